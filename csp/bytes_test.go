package csp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

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
	fastStates, errs := 0, 0
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
			t.Fatalf("model %d (hot %v) differs:\n%s\n--- bytes:\n%s\n--- closures:\n%s", i, hot, src, fast, slow)
		}
		fastStates += used
		if strings.Contains(slow, "error:") {
			errs++
		}
	}
	t.Logf("%d models, %d end in an error, %d expansions with fast edges", n, errs, fastStates)
	if fastStates < n*5 {
		t.Errorf("only %d expansions with fast edges", fastStates)
	}
}

// fastExplore explores Sys of src with fast edges off or on, the blocks
// specialised (hot) or not: a text of every state's moves, and the number
// of states expanded through a template set with a fast edge.
func fastExplore(t *testing.T, src string, off, hot bool) (string, int) {
	fastOff = off
	defer func() { fastOff = false }()
	p := compileSrc(t, src)
	if hot {
		p.heatBlocks()
	}
	sys, err := p.ProcessByName("Sys")
	if err != nil {
		t.Fatal(err)
	}
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
	for i := 0; i < len(order) && i < 3000; i++ {
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

// hasFastEdge reports whether a component of state s offers a template
// with a fastEdge.
func hasFastEdge(sys *Proc, s lts.State) bool {
	x := sys.getScratch()
	defer sys.pool.Put(x)
	x.comps, x.vars = sys.decode(sys.raw(s, x.raw), x.comps, x.vars)
	for _, ct := range x.comps {
		if ct == termSkip || ct == termStop {
			continue
		}
		if ts := sys.p.term(ct).edges.Load(); ts != nil && ts.fast != nil {
			return true
		}
	}
	return false
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
