package csp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// TestFastEdgesAgree compares, on random interleavings of guarded
// processes, the successors made as bytes (fastEdge) with those the
// closures make: per state in BFS order, SuccessorsMoves (events,
// targets, moves) and ComponentMoves of each component, and the error
// that ends the search. The guards and blocks mix the shapes fastOf
// takes (a variable compared with a constant or a variable, constants
// stored in fixed slots) with those it must leave to the closures (other
// comparisons, chains, arithmetic, a ranged variable, a constant whose
// byte does not fit, states whose values do not fit a byte), with and
// without blocks specialised to their environments, and with hiding.
func TestFastEdgesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	n := 300
	if testing.Short() {
		n = 40
	}
	// Models whose templates are built (by the closures) in a state where
	// a guard is false, so that the fast edges first fire later: a store
	// out of a ranged variable's range, a constant whose byte does not
	// fit, a guard on a variable and another.
	fixed := []string{`var r : {0..2} = 0;
var g = 0;
P(i) = [g == 1] e.i{r = 3} -> P(i);
Q() = open{g = 1} -> Q();
Sys() = (||| i:{0..2} @ P(i)) ||| Q();
`, `var g = 0;
var big = 0;
P(i) = [g == 1] e.i{big = 100} -> f.i{big = 0} -> P(i);
Q() = open{g = 1} -> shut{g = 0} -> Q();
Sys() = (||| i:{0..2} @ P(i)) ||| Q();
`, `var a[3] = [0, 1, 0];
var g = 0;
P(i) = [g != a[i]] e.i{a[i] = 1} -> [a[i] == a[(i+1)%3]] f.i{a[i] = 0} -> P(i);
Q() = open{g = 1} -> shut{g = 0} -> Q();
Sys() = (||| i:{0..2} @ P(i)) ||| Q();
`}
	fastStates, errs, bad := 0, 0, 0
	w0 := wordStatesSeen.Load()
	for i := 0; i < n+len(fixed); i++ {
		var src string
		if i < len(fixed) {
			src = fixed[i]
		} else {
			src = randomFastModel(rng)
		}
		hot := i < len(fixed) || i%4 != 0
		slow, _ := fastExplore(t, src, true, hot)
		fast, used := fastExplore(t, src, false, hot)
		if fast != slow {
			if bad++; bad == 1 {
				t.Errorf("model %d (hot %v) differs:\n%s\n--- bytes:\n%s\n--- closures:\n%s", i, hot, src, fast, slow)
			}
		}
		fastStates += used
		if strings.Contains(slow, "error:") {
			errs++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d models differ", bad, n+len(fixed))
	}
	// (The word path's count may include other tests' states.)
	words := wordStatesSeen.Load() - w0
	t.Logf("%d models, %d end in an error, %d expansions with fast edges, %d states as words", n, errs, fastStates, words)
	if fastStates < n*5 {
		t.Errorf("only %d expansions with fast edges", fastStates)
	}
	if words < int64(n)/3 {
		t.Errorf("only %d states expanded as words", words)
	}
}

// fastExplore explores Sys of src with fast edges off or on, the blocks
// specialised (hot) or not: a text of every state's moves, and the number
// of states expanded through a template set with a fast edge.
func fastExplore(t *testing.T, src string, off, hot bool) (string, int) {
	return fastExploreProc(t, func() *Proc {
		p := compileSrc(t, src)
		if hot {
			p.heatBlocks()
		}
		sys, err := p.ProcessByName("Sys")
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}, off, 3000)
}

// fastExploreProc is fastExplore of the system mk builds (from a program
// of its own, compiled after fastOff is set), over at most limit states.
//
// With off, the reference: no fast edges, and neither expandPlain nor the
// specialised shapes (whose keys fastOf reads, and by which expandPlain
// shares the first conds of templates), only the generic closures and
// the general combination, so that a key that does not describe its cond
// shows there too.
func fastExploreProc(t *testing.T, mk func() *Proc, off bool, limit int) (string, int) {
	fastOff, plainOff, shapesOff = off, off, off
	defer func() { fastOff, plainOff, shapesOff = false, false, false }()
	sys := mk()
	var b strings.Builder
	num := map[lts.State]int{sys.Initial(): 0}
	order := []lts.State{sys.Initial()}
	used := 0
	name := func(s lts.State) int {
		j, ok := num[s]
		if !ok {
			j = len(order)
			num[s] = j
			order = append(order, s)
		}
		return j
	}
	for i := 0; i < len(order) && i < limit; i++ {
		ts, mv, err := sys.SuccessorsMoves(order[i], nil, nil)
		if err != nil {
			fmt.Fprintf(&b, "s%d error: %v\n", i, err)
			break
		}
		// The state's values too: a graph alike with other states
		// would not show a wrong byte that is never read.
		fmt.Fprintf(&b, "s%d %s:", i, stateText(sys, order[i]))
		for k, tr := range ts {
			fmt.Fprintf(&b, " %s->s%d %v", sys.Events().Name(tr.Event), name(tr.Target), mv[k])
		}
		b.WriteString("\n")
		for c := range int32(sys.ncomp) {
			ts, mv, err := sys.ComponentMoves(order[i], c, nil, nil)
			fmt.Fprintf(&b, "  c%d:", c)
			for k, tr := range ts {
				fmt.Fprintf(&b, " %s->s%d %v", sys.Events().Name(tr.Event), name(tr.Target), mv[k])
			}
			if err != nil {
				fmt.Fprintf(&b, " error: %v", err)
			}
			b.WriteString("\n")
		}
		if !off && hasFastEdge(sys, order[i]) {
			used++
		}
	}
	return b.String(), used
}

// stateText is the components' terms and the variables of state s.
func stateText(sys *Proc, s lts.State) string {
	x := sys.getScratch()
	defer sys.pool.Put(x)
	x.comps, x.vars = sys.decode(sys.raw(s, x.raw), x.comps, x.vars)
	return fmt.Sprint(x.comps, x.vars)
}

// hasFastEdge reports whether state s is expanded by expandPlain in its
// short form with a component that offers a template with a fastEdge.
func hasFastEdge(sys *Proc, s lts.State) bool {
	if sys.op != lang.Interleave {
		return false
	}
	x := sys.getScratch()
	defer sys.pool.Put(x)
	x.raw = sys.raw(s, x.raw)
	x.comps, x.vars = sys.decode(x.raw, x.comps, x.vars)
	if len(x.raw) != len(x.comps)+sys.nvars {
		return false
	}
	fast := false
	for _, ct := range x.comps {
		if ct == termSkip || ct == termStop {
			continue
		}
		ts := sys.p.term(ct).edges.Load()
		if ts == nil || !ts.plain {
			return false
		}
		fast = fast || ts.fast != nil
	}
	return fast
}

// randomFastModel writes N = 3 processes P(i) in interleaving (and a
// process Q without parameters), each a cycle of guarded events with
// blocks, over a[3], x, y, a ranged r and big.
func randomFastModel(rng *rand.Rand) string {
	c := func() string { return fmt.Sprint(rng.IntN(4) - 1) }
	guard := func() string {
		switch rng.IntN(12) {
		case 0:
			return ""
		case 1:
			return "[a[i] == " + c() + "] "
		case 2:
			return "[a[i] != " + c() + "] "
		case 3:
			return "[a[(i+1)%3] == " + c() + "] "
		case 4:
			return "[x != a[i]] "
		case 5:
			return "[a[i] == a[(i+1)%3]] "
		case 6:
			return "[" + c() + " == x] "
		case 7:
			return "[x + 1 == " + c() + "] " // not a plain variable
		case 8:
			return "[a[i] < " + c() + "] " // not == or !=
		case 9:
			return "[a[i] == " + c() + " && y != " + c() + "] " // a chain
		case 10:
			return []string{"[x == a[r]] ", "[x == y + 1] "}[rng.IntN(2)] // the right side is not a plain variable
		}
		return "[big == 0] "
	}
	stmt := func() string {
		switch rng.IntN(13) {
		case 0, 1:
			return "a[i] = " + c() + ";"
		case 2:
			return "a[(i+2)%3] = " + c() + ";"
		case 3:
			return "x = " + c() + ";"
		case 4:
			return "y = " + c() + ";"
		case 5:
			return "a[i] = " + c() + "; a[i] = " + c() + ";"
		case 6:
			return "x = x + 1; x = x % 3;" // not a constant
		case 7:
			return "r = " + fmt.Sprint(rng.IntN(4)) + ";" // ranged: 3 is out of range
		case 8:
			return "big = 100;" // its byte does not fit
		case 9:
			return "big = 0;"
		case 10:
			return "a[x + 1] = 0;" // an index that is not fixed (may fail)
		case 11:
			return []string{"y++;", "y--;", "y = 0;"}[rng.IntN(3)]
		}
		return "y = 0;"
	}
	block := func() string {
		switch rng.IntN(4) {
		case 0:
			return ""
		case 1:
			return "{" + stmt() + "}"
		}
		return "{" + stmt() + " " + stmt() + "}"
	}
	steps := func(p string) string {
		var b strings.Builder
		k := 2 + rng.IntN(3)
		for j := 0; j < k; j++ {
			g := guard()
			if p == "Q" {
				g = strings.ReplaceAll(strings.ReplaceAll(g, "a[i]", "a[0]"), "(i+1)", "1")
			}
			bl := block()
			if p == "Q" {
				bl = strings.ReplaceAll(strings.ReplaceAll(bl, "a[i]", "a[1]"), "(i+2)", "2")
			}
			ev := fmt.Sprintf("e%d", j)
			if p == "P" {
				ev += ".i"
			} else {
				ev = "q" + ev
			}
			fmt.Fprintf(&b, "%s%s%s -> ", g, ev, bl)
		}
		return b.String()
	}
	sys := "(||| i:{0..2} @ P(i)) ||| Q()"
	switch rng.IntN(3) {
	case 0:
		sys = "((||| i:{0..2} @ P(i)) ||| Q()) \\ {e0.1, qe1}"
	case 1:
		sys = "||| i:{0..2} @ P(i)"
	}
	return fmt.Sprintf(`var a[3] = [%s, %s, %s];
var x = %s;
var y = 0;
var r : {0..2} = 0;
var big = 0;
P(i) = %sP(i);
Q() = %sQ();
Sys() = %s;
`, c(), c(), c(), c(), steps("P"), steps("Q"), sys)
}

// TestFastEdgesShared: a term whose edges are another term's memoised
// edges (a guard decided by the parameters, [k >= 0] P(i), returns P's
// slice as it is) is memoised while other workers read that slice in
// expandPlain. Making its fast edges must not write into the shared
// edges: under the race detector (go test -race) a write there is a data
// race. The state counts with one and two workers must agree.
func TestFastEdgesShared(t *testing.T) {
	src := `
var c[4] = [0, 0, 0, 0];
P(i) = [c[i] == 0] a.i{c[i] = 1} -> [c[i] == 1] b.i{c[i] = 0} -> P(i);
V(i, k) = [k >= 0] P(i);
W(i, k) = [k < 12] t.i -> W(i, k+1) [] V(i, k);
Sys = ||| i:{0..3} @ W(i, 0);
`
	var states [3]int64
	for w := 1; w <= 2; w++ {
		p := compileSrc(t, src)
		p.heatBlocks()
		sys, err := p.ProcessByName("Sys")
		if err != nil {
			t.Fatal(err)
		}
		r, err := Explore(context.Background(), sys, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		states[w] = r.Stats.States
	}
	// Each component is at W(i, k) for k in 0..12, or in P(i) at one of
	// its two prefixes (the same terms whatever k it left W at): 15
	// places, c[i] determined by the place; the four are independent.
	if want := int64(15 * 15 * 15 * 15); states[1] != want || states[2] != want {
		t.Errorf("states with 1 and 2 workers: %d, %d; want %d", states[1], states[2], want)
	}
}

// fastNodeModels are models whose fast edges come from nodes other than
// prefixes, or sit next to what expandPlain does not take: if, ifa and
// ifb (the else branch's cond is a negation, with no key), case (arms
// whose conds include the earlier arms'), an atomic block and channels
// in other components, hiding peeled off a single component
// (stripHides), an index that is a constant out of its array's range
// and constant indices of a 2-D array (no fixed slot), a block that
// fails in one template and a fast edge after it (blockErr), a guard that
// fails after a fast edge made a successor, a variable no transition
// writes (not stored: s.pos), and local steps. expandPlain takes a state
// only once its components' templates are memoised: the first state to
// reach a term takes the general path, so a template that matters is
// reached again (or first with its guard false) for its fast edge to
// fire.
var fastNodeModels = []string{`var x = 0;
var y = 0;
P(i) = if (x == i) { a.i{x = (i+1)%3} -> P(i) } else { if (y != x) { b.i{y = 2} -> P(i) } else { c.i{y = 1; x = 0} -> P(i) } };
Q() = ifa (x != y) { d{x = 0} -> Q() } else { e{y = 2} -> Q() };
R() = ifb (y == 2) { f{y = 0} -> R() };
Sys() = (||| i:{0..2} @ P(i)) ||| Q() ||| R();
`, `var x = 0;
var y = 1;
C(i) = case { x == i: g.i{x = (i+1)%3} -> C(i)  y == x: h.i{y = 0} -> C(i)  default: k.i{y = 1} -> C(i) };
D() = case { y != 0: m{y = 0} -> D()  x == 1: n{x = 2} -> D() };
Sys() = (||| i:{0..2} @ C(i)) ||| D();
`, `var x = 0;
var y = 0;
P(i) = [x == 0] a.i{x = 1} -> [x == 1] b.i{x = 0} -> P(i);
A() = [y == 0] z{y = 1} -> (atomic{ m{x = 1} -> n{x = 0} -> o{y = 0} -> Skip }; A());
Sys() = (||| i:{0..1} @ P(i)) ||| A();
`, `var x = 0;
var y = 1;
channel ch 0;
P(i) = [x == 0] a.i{x = 1} -> [x == 1] b.i{x = 0} -> P(i);
S() = [y == 1] ch!y -> s{y = 2} -> [y == 0] u{y = 1} -> S();
T() = ch?v -> t.v{x = 0} -> [y == 2] w{y = 0} -> T();
Sys() = (||| i:{0..1} @ P(i)) ||| S() ||| T();
`, `var x = 0;
var y = 0;
P() = ([x == 0] a{x = 1} -> [x == 1] b{x = 0} -> [y == x] c{y = 1} -> [y == 1] d{y = 0} -> P()) \ {a, c};
Sys() = P();
`, `var a[3] = [0, 0, 0];
var m[2][2];
P(i) = [a[i] == 0] e.i{a[i] = 1} -> [a[i] == 1] h.i{m[1][i % 2] = 1; a[i] = 0} -> k.i{m[1][i % 2] = 0} -> P(i);
Sys() = ||| i:{0..2} @ P(i);
`, `var a[3] = [0, 0, 0];
var g = 0;
P(i) = [a[i] == 0] e.i{a[i] = 1} -> [g == 1] f.i{a[i + 1] = 1} -> h.i{a[i] = 0} -> P(i);
Q() = [g == 0] q{g = 1} -> Q();
Sys() = (||| i:{0..2} @ P(i)) ||| Q();
`, `var x = 0;
var y = 2;
P(i) = [x == 0] a.i{x = 10 / y} -> P(i) [] [x == 0] b.i{x = 1} -> P(i) [] [x != 0] c.i{x = 0; y = y - 1} -> P(i);
Sys() = ||| i:{0..1} @ P(i);
`, `var x = 0;
var y = 2;
P() = [x == 0] a{x = 1} -> P() [] [10 / y > 3] b -> P() [] [x == 1] c{x = 0; y = y - 1} -> P();
Q() = [x == 1] d{x = 0} -> Q();
Sys() = Q() ||| P();
`, `var k = 1;
var x = 0;
P(i) = [x != k] a.i{x = 1} -> l.i -> [x == k] b.i{x = 0} -> m.i -> P(i);
Sys() = ||| i:{0..2} @ P(i);
`}

// TestFastEdgesNodes is TestFastEdgesAgree on fastNodeModels, with the
// blocks specialised and not.
func TestFastEdgesNodes(t *testing.T) {
	used, bad := 0, 0
	for i, src := range fastNodeModels {
		for _, hot := range []bool{false, true} {
			slow, _ := fastExplore(t, src, true, hot)
			fast, n := fastExplore(t, src, false, hot)
			if fast != slow {
				if bad++; bad == 1 {
					t.Errorf("model %d (hot %v) differs:\n%s\n--- bytes:\n%s\n--- closures:\n%s", i, hot, src, fast, slow)
				}
			}
			if n == 0 && hot {
				t.Errorf("model %d (hot %v): no fast edge used", i, hot)
			}
			used += n
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d runs differ", bad, 2*len(fastNodeModels))
	}
	t.Logf("%d expansions with fast edges", used)
}

// TestFastEdgesLibrary is TestFastEdgesAgree on the processes the library
// models assert about, their blocks specialised (as after heatBlocks in
// a long search), and on their symmetry reductions: the first 1,500
// states of each.
func TestFastEdgesLibrary(t *testing.T) {
	limit := 1500
	if testing.Short() {
		limit = 300
	}
	used, procs, bad := 0, 0, 0
	w0 := wordStatesSeen.Load()
	for _, am := range assertedModels(t, "../models/lib/*.csp", "../models/testdata/*.csp", "../testdata/pipeline/*.csp", "../testdata/sym/*.csp") {
		for k, q := range am.procs {
			for _, sym := range []bool{false, true} {
				mk := hotAsserted(t, am, q, sym)
				if sym && mk().Symmetry() == 0 {
					continue
				}
				slow, _ := fastExploreProc(t, mk, true, limit)
				fast, n := fastExploreProc(t, mk, false, limit)
				if fast != slow {
					if bad++; bad == 1 {
						t.Errorf("%s %s (symmetry %v) differs:\n--- bytes:\n%.3000s\n--- closures:\n%.3000s", am.path, am.texts[k], sym, fast, slow)
					}
				}
				used += n
				procs++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d processes differ", bad, procs)
	}
	t.Logf("%d processes, %d expansions with fast edges, %d states as words", procs, used, wordStatesSeen.Load()-w0)
	if used == 0 {
		t.Error("no fast edge used")
	}
}
