package linearize

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/internal/modeltest"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// randomQuietModel writes a random invocation/response queue model with
// two threads running one process (so the thread symmetry applies): each
// operation is atomic or split, with extra internal steps now and then, so
// that internal steps lead both to responding states and to states with no
// responder.
func randomQuietModel(r *rand.Rand) string {
	var sb strings.Builder
	sb.WriteString(`#define T 2;
var q[2];
var n = 0;
var h[T];
Queue() = ([] v:{1..2} @ enq.v -> Queue()) [] ([] v:{0..2} @ deq.v -> Queue());
`)
	extra := func() string {
		if r.IntN(3) == 0 {
			return "tau -> "
		}
		return ""
	}
	fmt.Fprintf(&sb, "P(t) = ([] v:{1..2} @ enq_inv.t.v -> %sE(t, v)) [] (deq_inv.t -> %sD(t));\n", extra(), extra())
	if r.IntN(2) == 0 {
		fmt.Fprintf(&sb, "E(t, v) = [n < 2] tau{h[t] = n; n = n + 1;} -> tau{q[h[t]] = v;} -> %senq_res.t -> P(t);\n", extra())
	} else {
		fmt.Fprintf(&sb, "E(t, v) = [n < 2] tau{q[n] = v; n = n + 1;} -> %senq_res.t -> P(t);\n", extra())
	}
	switch r.IntN(3) {
	case 0:
		fmt.Fprintf(&sb, "D(t) = ([] v:{1..2} @ ([n > 0 && q[0] == v] tau{q[0] = q[1]; q[1] = 0; n = n - 1;} -> %sdeq_res.t.v -> P(t))) [] ([n == 0] tau -> deq_res.t.0 -> P(t));\n", extra())
	case 1:
		sb.WriteString("D(t) = tau{h[t] = q[0];} -> (([n > 0] tau{q[0] = q[1]; q[1] = 0; n = n - 1;} -> deq_res.t.h[t] -> P(t)) [] ([n == 0] tau -> deq_res.t.0 -> P(t)));\n")
	default:
		fmt.Fprintf(&sb, "D(t) = ([n > 0] tau{h[t] = q[0]; q[0] = q[1]; q[1] = 0; n = n - 1;} -> %sdeq_res.t.h[t] -> P(t)) [] ([n == 0] tau{h[t] = 0;} -> deq_res.t.h[t] -> P(t));\n", extra())
	}
	sb.WriteString("Impl() = ||| t:{0..T-1} @ P(t);\n#assert Impl() linearizes Queue();\n")
	return sb.String()
}

// quietImpl compiles src afresh (no template built yet) and returns the
// left side of its first linearizes assertion (of its first assertion if
// none), with the thread symmetry when sym, its program getting hot at
// hotAt states if hotAt > 0. nil if sym and the symmetry does not apply.
func quietImpl(t *testing.T, src string, sym bool, hotAt int) *csp.Proc {
	t.Helper()
	prog, c := modeltest.CompileSource(t, "random.csp", []byte(src))
	if hotAt > 0 {
		prog.SetHotStates(hotAt)
	}
	var left lang.Proc
	for _, d := range c.File.Decls {
		if a, ok := d.(*lang.AssertDecl); ok && (left == nil || a.Kind == lang.KindLinearizes) {
			left = a.Left
			if a.Kind == lang.KindLinearizes {
				break
			}
		}
	}
	if left == nil {
		t.Fatal("no assertion")
	}
	var impl *csp.Proc
	var err error
	if sym {
		impl, _, err = prog.SymmetricEventsProcess(left)
	} else {
		impl, err = prog.Process(left)
	}
	if err != nil {
		t.Fatal(err)
	}
	return impl
}

// reducedSucc is a state's transitions and moves in the reduced system.
type reducedSucc struct {
	trs   []lts.Transition
	moves []lts.Move
	err   error
}

// exploreReduced asks r for the transitions of every reachable state: in
// BFS order if rng is nil, else in a random order (the next state taken
// from anywhere in the frontier). With batch > 0 (and rng nil) it first
// hands Prepare the next batch states of the queue whenever it reaches
// the end of the last batch, as refine's search does with the pairs
// ahead.
func exploreReduced(r *Reduced, rng *rand.Rand, batch int) map[lts.State]reducedSucc {
	got := map[lts.State]reducedSucc{}
	seen := map[lts.State]bool{r.Initial(): true}
	frontier := []lts.State{r.Initial()}
	left := 0 // states of the last batch not taken yet
	for len(frontier) > 0 {
		if batch > 0 && left == 0 {
			left = min(batch, len(frontier))
			r.Prepare(frontier[:left])
		}
		i := 0
		if rng != nil {
			i = rng.IntN(len(frontier))
		}
		s := frontier[i]
		frontier = slices.Delete(frontier, i, i+1)
		left = max(left-1, 0)
		trs, moves, err := r.SuccessorsMoves(s, nil, nil)
		got[s] = reducedSucc{trs, moves, err}
		if err != nil {
			continue
		}
		for _, tr := range trs {
			if !seen[tr.Target] {
				seen[tr.Target] = true
				frontier = append(frontier, tr.Target)
			}
		}
	}
	return got
}

// sameReduced compares two explored reduced systems from their initial
// states up to a renumbering of states (a one-to-one map built as they
// are walked side by side), their events by name: the first difference in
// a state's transitions, moves or error, or "".
func sameReduced(a, b *Reduced, ga, gb map[lts.State]reducedSucc) string {
	toB := map[lts.State]lts.State{a.Initial(): b.Initial()}
	toA := map[lts.State]lts.State{b.Initial(): a.Initial()}
	queue := []lts.State{a.Initial()}
	for i := 0; i < len(queue); i++ {
		s := queue[i]
		x, y := ga[s], gb[toB[s]]
		if (x.err == nil) != (y.err == nil) {
			return fmt.Sprintf("state %d: errors %v and %v", s, x.err, y.err)
		}
		var msg string
		if queue, msg = matchSuccs(a, b, s, x.trs, x.moves, y.trs, y.moves, toB, toA, queue); msg != "" {
			return msg
		}
	}
	if len(queue) != len(ga) || len(queue) != len(gb) {
		return fmt.Sprintf("%d states walked, %d and %d explored", len(queue), len(ga), len(gb))
	}
	return ""
}

// matchSuccs compares the transitions and moves of s in a (ta, ma) with
// those of its image in b (tb, mb), their events by name, and extends the
// one-to-one map of states (toB, toA) with the targets it pairs, which it
// queues: the first difference, or "".
func matchSuccs(a, b *Reduced, s lts.State, ta []lts.Transition, ma []lts.Move, tb []lts.Transition, mb []lts.Move, toB, toA map[lts.State]lts.State, queue []lts.State) ([]lts.State, string) {
	if len(ta) != len(tb) || !slices.Equal(ma, mb) {
		return queue, fmt.Sprintf("state %d: %v %v, and %v %v", s, ta, ma, tb, mb)
	}
	for k, tr := range ta {
		u := tb[k]
		if a.Events().Name(tr.Event) != b.Events().Name(u.Event) {
			return queue, fmt.Sprintf("state %d: transition %d: %s, and %s", s, k, a.Events().Name(tr.Event), b.Events().Name(u.Event))
		}
		p, okA := toB[tr.Target]
		q, okB := toA[u.Target]
		switch {
		case !okA && !okB:
			toB[tr.Target], toA[u.Target] = u.Target, tr.Target
			queue = append(queue, tr.Target)
		case p != u.Target || q != tr.Target:
			return queue, fmt.Sprintf("state %d: transition %d leads to states that are not each other's", s, k)
		}
	}
	return queue, ""
}

// orderModel is a model of the order tests: its source, whether its
// implementation is taken with the thread symmetry, and a name.
type orderModel struct {
	name string
	src  string
	sym  bool
}

// orderModels are the models of TestReducedOrderFree: n random ones
// (every other one with the thread symmetry), the compression tests'
// models and the library's invocation/response models (models/testdata,
// one segment, and the segmented queue at two when not short), with and
// without the symmetry.
func orderModels(t *testing.T, n int) []orderModel {
	var out []orderModel
	r := rand.New(rand.NewPCG(11, 5))
	for i := range n {
		out = append(out, orderModel{fmt.Sprintf("random %d", i), randomQuietModel(r), i%2 == 0})
	}
	ar, err := txtar.ParseFile("testdata/compress.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		out = append(out, orderModel{f.Name, string(f.Data), false}, orderModel{f.Name, string(f.Data), true})
	}
	for _, name := range []string{"segqueue", "linqueue", "linstack", "segpq"} {
		b, err := os.ReadFile("../models/testdata/" + name + ".csp")
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		out = append(out, orderModel{name, src, false}, orderModel{name, src, true})
		if name == "segqueue" && !testing.Short() {
			two := strings.NewReplacer("#define NSEG 1;", "#define NSEG 2;", "#define CAP 3;", "#define CAP 6;").Replace(src)
			if two == src {
				t.Fatal("segqueue: no NSEG 1 to replace")
			}
			out = append(out, orderModel{name + " seg 2", two, true})
		}
	}
	return out
}

// orderHots are the numbers of states at which the second exploration's
// program gets hot (drops its templates to rebuild them specialised):
// early, in the middle of the small models, late, and never (0, the
// default 2^15, beyond these models).
var orderHots = []int{3, 30, 300, 0}

// TestReducedOrderFree: the reduced system is a function of the
// implementation, not of the order in which its states are asked for nor
// of when its program gets hot: explored in BFS order with the default
// switch and in a random order with the switch early, in the middle or
// late, every reachable state has the same transitions (events, targets
// up to a renumbering) and moves, on random models, the compression
// tests' models and the library's invocation/response models.
func TestReducedOrderFree(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	failed, cases, hot := reducedOrderCases(t, orderModels(t, n), 0)
	if failed > 0 {
		t.Fatalf("%d of %d cases differ", failed, cases)
	}
	t.Logf("%d cases, %d with the switch before the end", cases, hot)
	if hot < cases/2 {
		t.Errorf("the switch happened in only %d of %d cases", hot, cases)
	}
}

// TestReducedOrderMutant: with csp's LocalSteps and moves reading only
// the templates built so far (the hand mutant csp.SetMemoOnlyMutant: the
// answer for a control not expanded yet is "not local"),
// TestReducedOrderFree fails.
func TestReducedOrderMutant(t *testing.T) {
	defer csp.SetMemoOnlyMutant(true)()
	failed, cases, _ := reducedOrderCases(t, orderModels(t, 10), 0)
	t.Logf("mutant: %d of %d cases differ", failed, cases)
	if failed == 0 {
		t.Fatal("mutant not caught")
	}
}

// reducedOrderCases compares, for each model and each of orderHots, the
// BFS exploration with the default switch and a random one with the
// switch there (if batch > 0, a BFS one with Prepare batches of batch
// states instead of the random one); it
// returns the number of cases that differ, of cases, and of cases whose
// program got hot before the end.
func reducedOrderCases(t *testing.T, models []orderModel, batch int) (failed, cases, hotCases int) {
	quiet := strings.HasSuffix(t.Name(), "Mutant") || strings.HasSuffix(t.Name(), "Mutants")
	for i, m := range models {
		a := quietImpl(t, m.src, m.sym, 0)
		if a == nil {
			continue
		}
		ra := NewReduced(a, DefaultNaming)
		ga := exploreReduced(ra, nil, 0)
		for _, hot := range orderHots {
			rb := NewReduced(quietImpl(t, m.src, m.sym, hot), DefaultNaming)
			var rng *rand.Rand
			if batch == 0 {
				rng = rand.New(rand.NewPCG(uint64(i), uint64(hot)))
			}
			gb := exploreReduced(rb, rng, batch)
			cases++
			if hot > 0 && rb.Base().(*csp.Proc).Program().Hot() {
				hotCases++
			}
			if d := sameReduced(ra, rb, ga, gb); d != "" {
				failed++
				if !quiet {
					t.Errorf("%s (symmetry %v), hot at %d: %s", m.name, m.sym, hot, d)
				}
			}
		}
	}
	return failed, cases, hotCases
}

// TestReducedOrderPrepared: TestReducedOrderFree's comparison, the second
// exploration in BFS order with Prepare batches of 5 states (as refine's
// search prepares the pairs ahead), the switch early, in the middle, late
// or never.
func TestReducedOrderPrepared(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	failed, cases, hot := reducedOrderCases(t, orderModels(t, n), prepareBatch)
	if failed > 0 {
		t.Fatalf("%d of %d cases differ", failed, cases)
	}
	t.Logf("%d cases, %d with the switch before the end", cases, hot)
}
