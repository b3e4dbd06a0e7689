package linearize

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/csp"

	"github.com/quasar-verify/quasar/lts"
)

// quietDiff explores the reduced system of src with the responder memo
// filled from internal steps' targets (noteQuiet) and without, in the same
// order, and returns the first difference: in a state's transitions or
// moves, or in a memo entry that noteQuiet set and readResponder would
// not. "" if none.
func quietDiff(t *testing.T, src string, sym bool) string {
	return reducedDiff(t, src, sym, false, 0)
}

// reducedDiff is quietDiff; with prepare, both have the memo, and the
// first has its states' transitions computed by Prepare, a batch of the
// states queued at a time, before they are asked (as refine's search
// does), the second not. Both programs get hot at hotAt states if hotAt
// > 0 (the default, 2^15, is beyond these models).
func reducedDiff(t *testing.T, src string, sym, prepare bool, hotAt int) string {
	t.Helper()
	a := NewReduced(quietImpl(t, src, sym, hotAt), DefaultNaming)
	b := NewReduced(quietImpl(t, src, sym, hotAt), DefaultNaming)
	defer func() { noQuiet = false }()
	// The two may number their states differently (a mutant's, or a
	// prepared state that is never asked), so they are compared up to a
	// one-to-one map of states, built as they are explored side by side,
	// and their events by name (each has a table, filled as events are
	// met).
	toB := map[lts.State]lts.State{a.Initial(): b.Initial()}
	toA := map[lts.State]lts.State{b.Initial(): a.Initial()}
	queue := []lts.State{a.Initial()}
	for i := 0; i < len(queue); i++ {
		s := queue[i]
		if prepare && i%prepareBatch == 0 {
			a.Prepare(queue[i:min(len(queue), i+prepareBatch)])
		}
		noQuiet = false
		ta, ma, errA := a.SuccessorsMoves(s, nil, nil)
		noQuiet = !prepare
		tb, mb, errB := b.SuccessorsMoves(toB[s], nil, nil)
		if (errA == nil) != (errB == nil) {
			return fmt.Sprintf("state %d: errors %v and %v", s, errA, errB)
		}
		var msg string
		if queue, msg = matchSuccs(a, b, s, ta, ma, tb, mb, toB, toA, queue); msg != "" {
			return msg
		}
	}
	// Every entry noteQuiet set is what readResponder reads.
	x := &reduceScratch{}
	for page, entries := range a.resp {
		for at, v := range entries {
			if v == 0 {
				continue
			}
			s := lts.State(page*respPage + at)
			only := a.readResponder(a.base.(compMover), s, x)
			if uint8(only+2) != v {
				return fmt.Sprintf("state %d: memo %d, read %d", s, int(v)-2, only)
			}
		}
	}
	return ""
}

// TestQuietMemo: the memo entries noteQuiet sets from the targets of
// internal steps leave the reduced system as it is without them, and each
// is what reading the state itself gives, on random models with and
// without the thread symmetry.
func TestQuietMemo(t *testing.T) {
	if failed := quietCases(t, 60); failed > 0 {
		t.Fatalf("%d cases differ", failed)
	}
}

// quietCases runs quietDiff on n random models (every other one with the
// thread symmetry) and returns in how many a difference was found.
func quietCases(t *testing.T, n int) (failed int) {
	r := rand.New(rand.NewPCG(7, 3))
	for i := range n {
		src := randomQuietModel(r)
		sym := i%2 == 0
		if d := quietDiff(t, src, sym); d != "" {
			failed++
			if quietMutant == 0 {
				t.Errorf("case %d (sym %v): %s\n%s", i, sym, d, src)
			}
		}
	}
	return failed
}

// TestQuietMutants: hand mutants of noteQuiet are caught by quietDiff.
func TestQuietMutants(t *testing.T) {
	defer func() { quietMutant = 0 }()
	for m := 1; m <= 2; m++ {
		quietMutant = m
		failed := quietCases(t, 60)
		t.Logf("mutant %d: caught in %d of 60 cases", m, failed)
		if failed == 0 {
			t.Errorf("mutant %d not caught", m)
		}
	}
}

// prepareBatch is the batch reducedDiff prepares (smaller than refine's,
// so that the small random models make several batches).
const prepareBatch = 5

// TestPrepare: the transitions Prepare caches for a batch of states are
// those SuccessorsMoves computes one state at a time, up to a
// renumbering of states, on random models with and without the thread
// symmetry, with the switch to specialised blocks never met, or met in
// the middle of the exploration (where branch linpair2, whose moves read
// only the templates built so far, differed in 4 of 60 models at 30).
func TestPrepare(t *testing.T) {
	for _, hot := range hotSwitches {
		if failed := prepareCases(t, 60, hot); failed > 0 {
			t.Fatalf("hot at %d: %d cases differ", hot, failed)
		}
	}
}

// hotSwitches are the numbers of states at which TestPrepare's programs
// get hot: never in these models (the default), and in the middle of
// their explorations, where a batch could be stored across the switch.
var hotSwitches = []int{0, 3, 10, 30, 100}

// prepareCases runs reducedDiff with prepare on n random models (every
// other one with the thread symmetry), with their programs getting hot at
// hotAt states (0: the default), and returns in how many a difference
// was found.
func prepareCases(t *testing.T, n, hotAt int) (failed int) {
	r := rand.New(rand.NewPCG(9, 3))
	for i := range n {
		src := randomQuietModel(r)
		sym := i%2 == 0
		if d := reducedDiffSafe(t, src, sym, hotAt); d != "" {
			failed++
			if !strings.HasSuffix(t.Name(), "Mutants") {
				t.Errorf("case %d (sym %v, hot at %d): %s\n%s", i, sym, hotAt, d, src)
			}
		}
	}
	return failed
}

// reducedDiffSafe is reducedDiff with prepare, a panic (of a mutant
// that indexes out of range) reported as a difference.
func reducedDiffSafe(t *testing.T, src string, sym bool, hotAt int) (d string) {
	defer func() {
		if r := recover(); r != nil {
			d = fmt.Sprint("panic: ", r)
		}
	}()
	return reducedDiff(t, src, sym, true, hotAt)
}

// TestPrepareMutants: hand mutants of Prepare are caught by reducedDiff:
// a state's stored targets not made relative to its first (1), a state's
// last target dropped (2). And so is csp's memoOnly (3): LocalSteps and
// the moves reading only the templates built so far, so that a state's
// transitions depend on the states expanded before it and on the switch
// to specialised blocks. (Branch linpair2 guarded Prepare against that
// dependence: no batch stored across the switch, a state prepared before
// it computed again after; with the templates built on demand there is
// nothing to guard, and the guards are gone.)
func TestPrepareMutants(t *testing.T) {
	defer func() { prepareMutant = 0 }()
	for m := 1; m <= 3; m++ {
		prepareMutant = m
		if m == 3 {
			prepareMutant = 0
			restore := csp.SetMemoOnlyMutant(true)
			defer restore()
		}
		failed, cases := 0, 0
		for _, hot := range hotSwitches {
			failed += prepareCases(t, 60, hot)
			cases += 60
		}
		t.Logf("mutant %d: caught in %d of %d cases", m, failed, cases)
		if failed == 0 {
			t.Errorf("mutant %d not caught", m)
		}
	}
}
