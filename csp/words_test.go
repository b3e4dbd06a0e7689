package csp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// wordStatesSeen counts the states expanded on the word path.
var wordStatesSeen atomic.Int64

func init() { wordsHook = func(n int) { wordStatesSeen.Add(int64(n)) } }

// wordExplore explores sys (made by mk after wordsOff is set) with the
// one-worker search (runBatched, hence SuccessorsBatch) over at most limit
// states: a text of every state in visit order (its id, components'
// terms and variables, each transition's event and target id), then how
// the search ended. It returns the text and how many states the word path
// expanded.
func wordExplore(t *testing.T, mk func() *Proc, off bool, limit int) (string, int64) {
	got, w, _ := wordExploreWith(t, mk, off, limit, 0)
	return got, w
}

// wordExploreWith is wordExplore with the parallel rounds if workers > 0
// (one worker: parForce), in rounds of 64 states a worker; it also returns
// the rounds' paths (parPaths: [7] the workers' expansions with words in
// and out, [8] those unpacked to strings).
func wordExploreWith(t *testing.T, mk func() *Proc, off bool, limit, workers int) (string, int64, [9]int) {
	t.Helper()
	wordsOff = off
	defer func() { wordsOff = false }()
	sys := mk()
	n0 := wordStatesSeen.Load()
	opt := Options{Limits: lts.Limits{MaxStates: limit}, Workers: 1}
	if workers > 0 {
		defer func(f bool, r int) { parForce, parRound = f, r }(parForce, parRound)
		parForce, parRound, opt.Workers = workers == 1, 64, workers
	}
	x := newBFS(context.Background(), sys, opt)
	var b strings.Builder
	x.run(func(s lts.State, ts []lts.Transition) bool {
		txt := stateText(sys, s)
		if workers > 1 {
			// The term numbers depend on which worker made a term
			// first: the terms as texts.
			txt = stateTerms(sys, s)
		}
		fmt.Fprintf(&b, "%d %s:", s, txt)
		for _, tr := range ts {
			fmt.Fprintf(&b, " %s->%d", sys.Events().Name(tr.Event), tr.Target)
		}
		b.WriteString("\n")
		return false
	})
	fmt.Fprintf(&b, "end: states %d, transitions %d, depth %d, reason %q, err %v at %d\n", x.seen, x.trans, x.depth, x.reason, x.err, x.errAt)
	return b.String(), wordStatesSeen.Load() - n0, x.parPaths
}

// randomWordModel writes k threads P(i) (and perhaps Q) in interleaving
// over an array a[m] and x, y (r ranged, big), so that a state takes
// about 25 to 33 bytes (the side set's 2-bit records, which the word path
// needs, are of 25 to 32: shorter states are kept inline). The guards and blocks
// mix the fast edges' shapes with others (the byte path), and a few
// values or codes do not fit 2 bits (a constant 2, a cycle of five steps),
// so that the store repacks in the middle.
func randomWordModel(rng *rand.Rand) string { return randomModel(rng, false) }

// randomModel is randomWordModel, with states of 9 to 24 bytes if narrow
// (the inline table's).
func randomModel(rng *rand.Rand, narrow bool) string {
	k := 3 + rng.IntN(8) // threads
	var m int
	if narrow {
		m = 1 + rng.IntN(19-k) // 9..24 bytes in all
	} else {
		m = 28 - k - 5 + rng.IntN(6) // array length: about 25..33 bytes in all (k, Q, x, y, r, big, a)
	}
	m = max(1, m)
	c := func() string {
		if rng.IntN(25) == 0 {
			return []string{"2", "-2", "7"}[rng.IntN(3)] // zigzag 4, 3, 14
		}
		return fmt.Sprint(rng.IntN(3) - 1)
	}
	idx := func(d int) string { return fmt.Sprintf("a[(i+%d)%%%d]", d, m) }
	// Half the models use only the fast edges' shapes (and a few
	// values that do not fit 2 bits), the others mix in the byte path's
	// at one choice in 8 or 16.
	other := max(0, rng.IntN(4)-1)
	long := rng.IntN(8) == 0 // a cycle of five or six steps: codes 4 and 5
	pick := func(nfast, nall int) int {
		if rng.IntN(16) < other {
			return rng.IntN(nall)
		}
		return rng.IntN(nfast)
	}
	guard := func() string {
		switch pick(12, 17) {
		case 0, 1, 2, 3:
			return ""
		case 4:
			return "[a[i] == " + c() + "] "
		case 5:
			return "[a[i] != " + c() + "] "
		case 6:
			return "[" + idx(1) + " != " + c() + "] "
		case 7:
			return "[x != a[i]] "
		case 8:
			return "[a[i] == " + idx(1) + "] "
		case 9:
			if rng.IntN(2) == 0 {
				return "[a[i] != " + c() + " && " + idx(2) + " != " + c() + "] " // a chain: one cond
			}
			return "[a[i] != " + c() + "] [" + idx(2) + " == " + c() + "] " // two conds
		case 10:
			return "[y != 5] " // always, in 2 bits
		case 11:
			if rng.IntN(4) == 0 {
				return "[a[i] == 0] [a[i] == 1] " // never: two constants
			}
			return "[big == 0] "
		case 12:
			return "[" + c() + " == x] "
		case 13:
			return "[a[i] < " + c() + "] " // not == or !=
		case 14:
			return "[x == y + 1] " // not a plain variable
		case 15:
			return "[a[i] == 3 && x == 0] " // never, in 2 bits
		}
		return "[" + idx(1) + " == " + c() + "] "
	}
	stmt := func() string {
		switch pick(8, 14) {
		case 0, 1, 2:
			return "a[i] = " + c() + ";"
		case 3:
			return idx(2) + " = " + c() + ";"
		case 4:
			return "x = " + c() + ";"
		case 5:
			return "y = " + c() + ";"
		case 6:
			return "a[i] = " + c() + "; a[i] = " + c() + ";" // the last store wins
		case 7:
			return "y = 0;"
		case 8:
			return "r = " + fmt.Sprint(rng.IntN(2)) + ";" // ranged
		case 9:
			if rng.IntN(4) == 0 {
				return "big = 100;" // its byte does not fit
			}
			return "big = 0;"
		case 10:
			return "a[x + 1] = 0;" // an index that is not fixed (may fail)
		}
		return "x = (x + 1) % 2;" // not a constant
	}
	block := func() string {
		switch rng.IntN(4) {
		case 0:
			return ""
		case 1, 2:
			return "{" + stmt() + "}"
		}
		return "{" + stmt() + " " + stmt() + "}"
	}
	steps := func(p string) string {
		var b strings.Builder
		n := 2 + rng.IntN(3)
		if long && p == "P" {
			n = 5 + rng.IntN(2) // 4-bit records
		}
		for j := range n {
			g, bl := guard(), block()
			ev := fmt.Sprintf("e%d.i", j)
			if p == "Q" {
				r := strings.NewReplacer("a[i]", "a[0]", "(i+1)", "1", "(i+2)", "2")
				g, bl, ev = r.Replace(g), r.Replace(bl), fmt.Sprintf("q%d", j)
			}
			fmt.Fprintf(&b, "%s%s%s -> ", g, ev, bl)
		}
		return b.String()
	}
	vals := make([]string, m)
	for j := range vals {
		vals[j] = fmt.Sprint(rng.IntN(2))
	}
	sys := fmt.Sprintf("(||| i:{0..%d} @ P(i)) ||| Q()", k-1)
	switch rng.IntN(4) {
	case 0:
		sys = fmt.Sprintf("((||| i:{0..%d} @ P(i)) ||| Q()) \\ {e0.1, q1}", k-1)
	case 1:
		sys = fmt.Sprintf("||| i:{0..%d} @ P(i)", k-1)
	}
	return fmt.Sprintf(`var a[%d] = [%s];
var x = 0;
var y = 0;
var r : {0..2} = 0;
var big = 0;
P(i) = %sP(i);
Q() = %sQ();
Sys() = %s;
`, m, strings.Join(vals, ", "), steps("P"), steps("Q"), sys)
}

// TestWordsAgree compares the one-worker search on the word path with
// the byte path (wordsOff) on random models of 25- to 32-byte states:
// every state's id, terms and variables, every transition (event, target
// id), and how the search ends (counts, limit, run-time error and where).
// The blocks are specialised from the start, from the 300th state on (the
// templates change in the middle: the word edges are rebuilt) or not at
// all (fewer fast edges).
func TestWordsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 12))
	n := 300
	if testing.Short() {
		n = 60
	}
	bad, words, total, some := 0, int64(0), 0, 0
	var parBad, parExp, parUnpack, parSome [2]int
	var parWords [2]int64
	fixed := []string{
		// The philosophers, 13 and 16 (26 and 32 bytes).
		philosophers(13), philosophers(16),
		// Templates that never fire in 2 bits (two constants for one
		// variable, a constant of zigzag 16 or more) or always (!= of
		// such a constant), beside the philosophers' fast edges.
		philosophers(11) + `var g = 0;
var h = 0;
Q() = [fork[0] == 0] [fork[0] == 1] never.0 -> Q();
R() = [g == 9] never.1 -> R();
S() = [g != 8] s{g = 1; h = 1} -> [g != -1 && h != 9] t{g = 0; h = 0} -> [fork[1] == g] u -> S();
Sys() = College() ||| Q() ||| R() ||| S();
`,
		// A value that does not fit a nibble (zigzag 40) once T is
		// done: the states after it take the bytes (inline, and in
		// the side set repacked at 8 bits).
		philosophers(6) + bigLater, philosophers(13) + bigLater,
		// A run-time error of the model in a batch whose other states
		// took the words (the review's model): the words made so far
		// are dropped and the search ends on the model's error.
		wordsErrModel,
		// A thread of 20 steps: its codes from 16 on do not fit a
		// nibble, so those states take the bytes, in the inline store
		// (a[10]) and in the side set (a[24]).
		fmt.Sprintf(longThread, 10), fmt.Sprintf(longThread, 24),
	}
	errModel := len(fixed) - 3
	for i := range n + len(fixed) {
		src := ""
		if i < len(fixed) {
			src = fixed[i]
		} else {
			src = randomWordModel(rng)
		}
		hotAt := []int{0, 300, 1 << 30}[i%3]
		if i >= 2 && i < len(fixed) {
			hotAt = 0
		}
		mk := func() *Proc {
			p := compileSrc(t, src)
			if hotAt == 0 {
				p.heatBlocks()
			} else {
				p.SetHotStates(hotAt)
			}
			name := "Sys"
			if i < 2 {
				name = "College"
			}
			sys, err := p.ProcessByName(name)
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}
		want, _ := wordExplore(t, mk, true, 4000)
		got, w := wordExplore(t, mk, false, 4000)
		words += w
		total += strings.Count(want, "\n")
		if w > 0 {
			some++
		}
		if i == errModel && !strings.Contains(want, "index") {
			t.Errorf("the error model ends without its error:\n%s", want[max(0, len(want)-300):])
		}
		if got != want {
			if bad++; bad <= 2 {
				t.Errorf("model %d (hot at %d) differs:\n%s\n%s", i, hotAt, src, firstDiff(got, want))
			}
		}
		// The parallel rounds, one worker (parForce) and two, on the
		// word path (words in and out when the records are 2-bit and
		// dense, else inside expandPlain), against the same byte path.
		for _, workers := range []int{1, 2} {
			want, _, _ := wordExploreWith(t, mk, true, 4000, workers)
			got, w, paths := wordExploreWith(t, mk, false, 4000, workers)
			parWords[workers-1] += w
			parExp[workers-1] += paths[7]
			parUnpack[workers-1] += paths[8]
			if paths[7] > 0 {
				parSome[workers-1]++
			}
			if got != want {
				if parBad[workers-1]++; parBad[workers-1] <= 2 {
					t.Errorf("model %d (hot at %d), rounds of %d workers, differs:\n%s\n%s", i, hotAt, workers, src, firstDiff(got, want))
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d models differ", bad, n+len(fixed))
	}
	t.Logf("%d models, %d states, %d expanded as words, in %d models", n+len(fixed), total, words, some)
	if words < int64(total)/8 || some < n/5 {
		t.Errorf("only %d of %d states expanded as words, in %d models", words, total, some)
	}
	for k := range parBad {
		if parBad[k] > 0 {
			t.Errorf("rounds of %d workers: %d of %d models differ", k+1, parBad[k], n+len(fixed))
		}
		t.Logf("rounds of %d workers: %d states expanded as words, %d workers' expansions words in and out (%d unpacked to strings), in %d models", k+1, parWords[k], parExp[k], parUnpack[k], parSome[k])
		if parWords[k] < int64(total)/8 || parSome[k] < n/10 || parUnpack[k] == 0 {
			t.Errorf("rounds of %d workers: only %d of %d states expanded as words; words in and out in %d models", k+1, parWords[k], total, parSome[k])
		}
	}
}

// wordsErrModel makes R fail (a[-1]) while P's states take the words.
const wordsErrModel = `var a[24] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
var x = 0;
P(i) = [a[i] == 0] up.i{a[i] = 1} -> [a[i] == 1] down.i{a[i] = 0} -> P(i);
R() = [a[0] == 0 && a[1] == 0] bad2{a[x - 1] = 0} -> R();
Sys() = (||| i:{0..1} @ P(i)) ||| R();
`

// longThread (with the array's length) is a thread of 20 steps beside
// one of fast edges on the array.
const longThread = `var a[%d];
P() = e0 -> e1 -> e2 -> e3 -> e4 -> e5 -> e6 -> e7 -> e8 -> e9 -> e10 -> e11 -> e12 -> e13 -> e14 -> e15 -> e16 -> e17 -> e18 -> e19 -> P();
Q() = [a[0] == 0] q{a[0] = 1} -> [a[0] == 1] r{a[0] = 0} -> Q();
Sys() = P() ||| Q();
`

// bigLater adds to the philosophers a process that stores 20 in big
// once.
const bigLater = `var big = 0;
T() = w{big = 20} -> Skip;
Sys() = College() ||| T();
`

// stateTerms is stateText with the components' terms as texts.
func stateTerms(sys *Proc, s lts.State) string {
	x := sys.getScratch()
	defer sys.pool.Put(x)
	x.comps, x.vars = sys.decode(sys.raw(s, x.raw), x.comps, x.vars)
	ts := make([]string, len(x.comps))
	for i, c := range x.comps {
		ts[i] = sys.p.termString(c, 8)
	}
	return fmt.Sprint(ts, x.vars)
}

// philosophers is bench/philosophers' model with n philosophers.
func philosophers(n int) string {
	src, err := os.ReadFile("../bench/philosophers/philosophers.csp")
	if err != nil {
		panic(err)
	}
	return strings.Replace(string(src), "#define N 12;", fmt.Sprintf("#define N %d;", n), 1)
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n words: %.400s\n bytes: %.400s", i, g[i], w[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(g), len(w))
}

// TestWordsLibrary is TestWordsAgree on the processes the library and
// test models assert about (their blocks specialised), and on their
// symmetry reductions (whose states take the words inside expandPlain,
// strings out, before canonAll): the first 3,000 states
// of each.
func TestWordsLibrary(t *testing.T) {
	limit := 3000
	if testing.Short() {
		limit = 500
	}
	words := int64(0)
	procs := compareLibrary(t, func(mk func() *Proc) (string, string) {
		want, _ := wordExplore(t, mk, true, limit)
		got, w := wordExplore(t, mk, false, limit)
		words += w
		return want, got
	})
	// Few library processes have states of 25 to 32 bytes in 2 bits
	// and only fast edges: the word path is met in TestWordsAgree.
	t.Logf("%d processes, %d states expanded as words", procs, words)
}

// TestWordsMoves compares, on random models of TestWordsAgree, the moves
// of every state (SuccessorsMoves, ComponentMoves: expandRaw, where the
// word path makes strings) with those of the generic closures (no fast
// edges, no expandPlain: fastExploreProc's reference), over the first
// 1,500 states of each.
func TestWordsMoves(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 13))
	n := 150
	if testing.Short() {
		n = 30
	}
	bad := 0
	w0 := wordStatesSeen.Load()
	for i := range n {
		src := randomWordModel(rng)
		mk := hotSys(t, src)
		want, _ := fastExploreProc(t, mk, true, 1500)
		got, _ := fastExploreProc(t, mk, false, 1500)
		if got != want {
			if bad++; bad <= 2 {
				t.Errorf("model %d differs:\n%s\n%s", i, src, firstDiff(got, want))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d models differ", bad, n)
	}
	words := wordStatesSeen.Load() - w0
	t.Logf("%d models, %d states expanded as words", n, words)
	if words < int64(n)*100 {
		t.Errorf("only %d states expanded as words", words)
	}
}

// TestWordsParallel: the parallel rounds with the words in and out
// (records at 2 bits a byte, states of 26 bytes) against the one-worker
// search on the byte path (wordsOff, full hash): ids, transitions, tree
// parents, descriptions and the deadlock counterexample, with 2 and 4
// workers, rounds of 2,048 and 64 states a worker, 4- and 8-byte side
// slots, and the side hashes cut to their top 4 bits (every probe then
// compares words with records or with provisional new states, and probe
// runs cross the partitions). One model stores a value of zigzag 4 once,
// at depth 4 (the round that meets it unpacks its words: the set repacks
// at 4 bits; its successors meet states found before in the round), one
// deadlocks.
func TestWordsParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(r int) { parRound = r }(parRound)
	defer func(m uint64, o bool) { sideHashMask, slot4Off = m, o }(sideHashMask, slot4Off)
	// Z reads and writes pad (never: its guard never holds), so that a
	// state is 27 bytes (side records, not the inline table).
	pad := `var pad[10];
Z() = [pad[9] == 1] z{pad[0] = 0} -> Z();
`
	models := []string{
		philosophers(8) + pad + "Sys() = College() ||| Z();\n",
		philosophers(7) + pad + `var big = 0;
T() = t0 -> t1 -> t2 -> w{big = 2} -> Skip;
Sys() = College() ||| Z() ||| T();
`,
		// Every philosopher takes the left fork first: deadlock.
		strings.Replace(philosophers(8), "||| PhilR(N - 1)", "||| Phil(N - 1)", 1) + pad + "Sys() = College() ||| Z();\n",
		// A run-time error (pad[12]) in a round that expands words.
		philosophers(8) + pad + `var big = 0;
T() = t0 -> t1 -> t2 -> w{pad[big + 12] = 0} -> Skip;
Sys() = College() ||| Z() ||| T();
`,
		// The first model again, under a state limit (below).
		philosophers(8) + pad + "Sys() = College() ||| Z();\n",
	}
	var paths [9]int
	words, count0 := int64(0), int64(0)
	for m, src := range models {
		mk := hotSys(t, src)
		limit := 100000
		if m == 4 {
			limit = 1000
		}
		sideHashMask, parRound = ^uint64(0), 2048
		wordsOff = true
		want := recordSearch(t, mk, 1, limit)
		wordsOff = false
		failed, cases := 0, 0
		for _, weak := range []bool{false, true} {
			for _, c := range []struct {
				w, round int
				off      bool
			}{{2, 2048, false}, {2, 64, false}, {4, 64, false}, {2, 64, true}, {4, 2048, true}} {
				sideHashMask = ^uint64(0)
				if weak {
					sideHashMask = 0xF << 60
				}
				parRound, slot4Off = c.round, c.off
				n0 := wordStatesSeen.Load()
				got := recordSearch(t, mk, c.w, limit)
				words += wordStatesSeen.Load() - n0
				sideHashMask, slot4Off = ^uint64(0), false
				for i, n := range got.paths {
					paths[i] += n
				}
				cases++
				if got.paths[7] == 0 {
					t.Errorf("model %d weak %v %+v: no expansion with words in and out: %s %v", m, weak, c, pathNames, got.paths)
				}
				// Only model 1 repacks (big = 2), in one round: each
				// worker unpacks its words once.
				if unpacks := map[bool]int{true: c.w}[m == 1]; got.paths[8] != unpacks {
					t.Errorf("model %d weak %v %+v: %d expansions unpacked, want %d: %s %v", m, weak, c, got.paths[8], unpacks, pathNames, got.paths)
				}
				if !sameSearch(t, fmt.Sprintf("model %d weak %v workers %d round %d slot4Off %v", m, weak, c.w, c.round, c.off), want, got, m == 4, m == 4) {
					failed++
				}
			}
		}
		if m == 2 && !strings.HasPrefix(want.trace, " ") {
			t.Errorf("model %d: no deadlock: %q", m, want.trace)
		}
		if m == 3 && !strings.Contains(want.trace, "index") {
			t.Errorf("model %d: no run-time error: %q", m, want.trace)
		}
		if m == 0 {
			count0 = want.count
		}
		if m == 4 && (want.count < int64(limit) || want.count >= count0) {
			t.Errorf("model %d: %d states, with a limit of %d (%d without)", m, want.count, limit, count0)
		}
		if failed > 0 {
			t.Errorf("model %d: %d of %d searches differ", m, failed, cases)
		}
		t.Logf("model %d: %d states", m, want.count)
	}
	t.Logf("%d states expanded as words in the rounds; %s %v", words, pathNames, paths)
	if words == 0 || paths[8] == 0 {
		t.Errorf("%d states expanded as words, %d expansions unpacked", words, paths[8])
	}
}
