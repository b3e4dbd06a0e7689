package csp

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/internal/frontier"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// batchRecord is what a BFS driven by batches did: the sequence of states
// handed over, the transitions of each (event names and target ids) below
// the failing state, the failing state's position in the sequence (-1:
// none) and its error, and the store's states by id (by description: term
// ids depend on the order in which the workers met the terms).
type batchRecord struct {
	seq     []lts.State
	visits  []string
	errAt   int
	err     string
	states  []string
	batches int
	panic   string
}

// record formats the transitions of the visits (names now: the event
// table is the run's own program's) and the store.
func (rec *batchRecord) finish(sys *Proc, trs []lts.Transition, counts []int) {
	off := 0
	for _, c := range counts {
		var b strings.Builder
		for _, tr := range trs[off : off+c] {
			fmt.Fprintf(&b, " %s>%d", sys.Events().Name(tr.Event), tr.Target)
		}
		rec.visits = append(rec.visits, b.String())
		off += c
	}
	for id := range sys.NumStates() {
		rec.states = append(rec.states, fmt.Sprint(sys.Describe(lts.State(id))))
	}
}

// batchSize draws the size of a batch: a few states, a few hundred or a
// few thousand, or (size > 0) the rounds' Size.
func batchSize(rng *rand.Rand, size int) int {
	switch k := rng.IntN(8); {
	case k < 2:
		return 1 + rng.IntN(8)
	case k < 4:
		return 1 + rng.IntN(300)
	case k < 6 || size <= 0:
		return 1 + rng.IntN(3000)
	default:
		return size
	}
}

// seqBatches is the reference: a BFS of a fresh system (mk) with
// SuccessorsBatch on one goroutine, in batches of random sizes, that
// builds the sequence of states: the queue in id order, with now and then
// a state of the batch again (a state twice in one batch) or any state
// taken already (mostly one expanded in an earlier batch). It stops when
// the queue is empty, after limit states or at a run-time error (the rest
// of that batch and of the queue stay in the sequence).
func seqBatches(mk func() *Proc, seed uint64, limit int) (rec batchRecord) {
	rng := rand.New(rand.NewPCG(seed, 1))
	sys := mk()
	rec.errAt = -1
	var trs []lts.Transition
	var counts []int
	next := 0 // the next id of the queue
	for len(rec.seq) < limit {
		n0 := sys.NumStates()
		if next >= n0 {
			break
		}
		size := batchSize(rng, 0)
		var batch []lts.State
	fill:
		for len(batch) < size {
			switch k := rng.IntN(100); {
			case k < 4 && len(batch) > 0:
				batch = append(batch, batch[rng.IntN(len(batch))])
			case k < 8 && next > 0:
				batch = append(batch, lts.State(rng.IntN(next)))
			default:
				if next >= n0 {
					break fill
				}
				batch = append(batch, lts.State(next))
				next++
			}
		}
		var err error
		trs, counts, err = sys.SuccessorsBatch(batch, trs, counts)
		rec.seq = append(rec.seq, batch...)
		rec.batches++
		if err != nil {
			rec.errAt, rec.err = len(counts), err.Error()
			// The states queued after the batch: a rounds run may cut
			// a batch that holds them after the failing state, whose
			// successors it must not store.
			for ; next < n0 && len(rec.seq) < limit; next++ {
				rec.seq = append(rec.seq, lts.State(next))
			}
			break
		}
	}
	rec.finish(sys, trs, counts)
	return rec
}

// roundsBatches replays seq on a fresh system with NewRounds(workers),
// cut into batches of random sizes of its own (each stops before a state
// the store does not hold yet). pipelined: two Rounds of the system used
// in turn, the next batch expanded while this one's results are read (as
// refine's levelRounds does).
func roundsBatches(mk func() *Proc, seq []lts.State, workers int, seed uint64, pipelined bool) (rec batchRecord) {
	rng := rand.New(rand.NewPCG(seed, 2))
	sys := mk()
	rec.errAt = -1
	type out struct {
		errAt int
		err   error
		panic any
	}
	var rs [2]frontier.Rounds
	var done chan out
	defer func() {
		if done != nil {
			<-done // no Expand running
		}
		for _, r := range rs {
			if r != nil {
				r.Close()
			}
		}
		// A panic fails this run only (a mutant's failures are counted).
		if e := recover(); e != nil {
			rec.panic = fmt.Sprint(e)
		}
	}()
	rs[0] = sys.NewRounds(workers)
	if pipelined {
		rs[1] = sys.NewRounds(workers)
	}
	if rs[0] == nil || pipelined && rs[1] == nil {
		panic("NewRounds gave nil")
	}
	// cut is the batch that starts at pos.
	cut := func(pos, size int) []lts.State {
		n0 := lts.State(sys.NumStates())
		end := pos
		for end < len(seq) && end-pos < size && seq[end] < n0 {
			end++
		}
		if end == pos {
			panic(fmt.Sprintf("state %d at %d not stored (%d states)", seq[pos], pos, n0))
		}
		return seq[pos:end]
	}
	expand := func(r frontier.Rounds, batch []lts.State) (o out) {
		defer func() { o.panic = recover() }()
		o.errAt, o.err = r.Expand(batch)
		return o
	}
	var trs []lts.Transition
	var counts []int
	c := 0
	batch := cut(0, batchSize(rng, rs[0].Size()))
	o := expand(rs[0], batch)
	for pos := 0; ; {
		rec.batches++
		if o.panic != nil {
			panic(o.panic)
		}
		if (o.errAt < 0) != (o.err == nil) || o.errAt >= len(batch) {
			panic(fmt.Sprintf("Expand of %d states: %d, %v", len(batch), o.errAt, o.err))
		}
		end := pos + len(batch)
		var nextBatch []lts.State
		if o.err == nil && end < len(seq) {
			nextBatch = cut(end, batchSize(rng, rs[c].Size()))
			if pipelined {
				done = make(chan out, 1)
				go func(r frontier.Rounds, b []lts.State) { done <- expand(r, b) }(rs[1-c], nextBatch)
			}
		}
		m := len(batch)
		if o.err != nil {
			m = o.errAt
		}
		for k := range m {
			ts := rs[c].Result(k)
			trs = append(trs, ts...)
			counts = append(counts, len(ts))
		}
		if o.err != nil {
			rec.errAt, rec.err = pos+o.errAt, o.err.Error()
			break
		}
		if nextBatch == nil {
			break
		}
		if pipelined {
			o = <-done
			done = nil
			c = 1 - c
		} else {
			o = expand(rs[c], nextBatch)
		}
		pos, batch = end, nextBatch
	}
	rec.finish(sys, trs, counts)
	return rec
}

// sameBatches compares a rounds run with the reference: state by state
// the transitions, the failing state and its error, and the stores (the
// number of states and each one's description).
func sameBatches(t *testing.T, name string, ref, got batchRecord) bool {
	t.Helper()
	if got.panic != "" {
		t.Errorf("%s: panic: %s", name, got.panic)
		return false
	}
	for i := range min(len(ref.visits), len(got.visits)) {
		if ref.visits[i] != got.visits[i] {
			t.Errorf("%s: state %d of the sequence (id %d):%s, one worker:%s", name, i, ref.seq[i], got.visits[i], ref.visits[i])
			return false
		}
	}
	if len(ref.visits) != len(got.visits) || ref.errAt != got.errAt || ref.err != got.err {
		t.Errorf("%s: %d states expanded, error at %d %q; one worker %d, at %d %q", name, len(got.visits), got.errAt, got.err, len(ref.visits), ref.errAt, ref.err)
		return false
	}
	if len(ref.states) != len(got.states) {
		t.Errorf("%s: %d states stored, one worker %d", name, len(got.states), len(ref.states))
		return false
	}
	for id := range ref.states {
		if ref.states[id] != got.states[id] {
			t.Errorf("%s: state %d is %s, one worker %s", name, id, got.states[id], ref.states[id])
			return false
		}
	}
	return true
}

// roundsCase is a system to compare: mk builds a fresh one.
type roundsCase struct {
	name string
	mk   func() *Proc
}

// roundsCases: every asserted process of the library models (and the path
// comparisons' models), the symmetry-reduced systems of the models with
// thread symmetry, random programs (randomShapeModel, as
// TestParallelIDsRandom: a third end in a run-time error, mostly at their
// first states), and programs whose run-time error comes deep in the
// search, first in its level, with states queued after it (a counter put
// first beside random programs and the philosophers).
func roundsCases(t *testing.T, nRandom int) (cases []roundsCase) {
	for _, pr := range comparedProcs(t) {
		name := strings.TrimSuffix(strings.TrimSpace(pr.text), "()")
		if _, err := compileSrc(t, pr.src).ProcessByName(name); err != nil {
			continue
		}
		cases = append(cases, roundsCase{pr.file + " " + pr.text, func() *Proc {
			sys, err := compileSrc(t, pr.src).ProcessByName(name)
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}})
	}
	for _, c := range symmetricCases(t) {
		cases = append(cases, roundsCase{"symmetric " + c.name, c.mk})
	}
	rng := rand.New(rand.NewPCG(21, 6))
	for c := range nRandom {
		src := randomShapeModel(rng) + "var z = 0;\nQ = [z < 70] up{z = z + 9} -> Q [] [z > 0] down{z = z - 5} -> Q;\nSys = P ||| P ||| Q;\n"
		if m, err := lang.Parse("test.csp", []byte(src)); err != nil {
			t.Fatal(err)
		} else if _, err := lang.Check(m); err != nil {
			continue // a constant index out of range
		}
		cases = append(cases, roundsCase{fmt.Sprintf("random %d\n%s", c, src), func() *Proc {
			sys, err := compileSrc(t, src).ProcessByName("Sys")
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}})
	}
	// Run-time errors deep in the search (the random programs' come at
	// their first states): a counter beside them divides by zero at
	// depth d, with states queued after the failing one.
	for c := range nRandom / 4 {
		d := 2 + c%5
		src := randomShapeModel(rng) + fmt.Sprintf("var e = 0;\nQ = [e < %d] up{e = e + 1} -> Q [] [e == %d] bad{e = e / (e - e)} -> Q;\nSys = Q ||| P ||| P;\n", d, d)
		if m, err := lang.Parse("test.csp", []byte(src)); err != nil {
			t.Fatal(err)
		} else if _, err := lang.Check(m); err != nil {
			continue
		}
		cases = append(cases, roundsCase{fmt.Sprintf("random, division at depth %d\n%s", d, src), func() *Proc {
			sys, err := compileSrc(t, src).ProcessByName("Sys")
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}})
	}
	for _, n := range []int{5, 6} {
		for _, d := range []int{4, 8, 12} {
			phil := philosophersSrc(t, n)
			text := phil + divByZeroAt(d) + "Bad() = Count() ||| College();\n"
			cases = append(cases, roundsCase{fmt.Sprintf("philosophers %d, division at depth %d", n, d), func() *Proc {
				sys, err := compileSrc(t, text).ProcessByName("Bad")
				if err != nil {
					t.Fatal(err)
				}
				return sys
			}})
		}
	}
	return cases
}

// TestRoundsSameAsOneWorker: a BFS handed to NewRounds(w), w = 2, 3, 4,
// in batches of random sizes (and of the rounds' Size, with rounds of the
// default size and of 1, 3 and 7 states per worker), one Rounds or two in
// turn, gives every state of the sequence the transitions (events and
// target ids) that SuccessorsBatch on one goroutine gives it, cut into
// other batches; the same failing state and error; and the same store.
// The sequences repeat states within a batch and across batches.
func TestRoundsSameAsOneWorker(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(r int) { parRound = r }(parRound)
	limit, nRandom := 3000, 40
	if testing.Short() {
		limit, nRandom = 600, 12
	}
	cases := roundsCases(t, nRandom)
	runs, failed, compared, errs, errsAfter, sym, repeats := 0, 0, 0, 0, 0, 0, 0
	failedCases := map[string]bool{}
	for ci, c := range cases {
		parRound = 2048
		ref := seqBatches(c.mk, uint64(ci), limit)
		if ref.errAt >= 0 {
			errs++
			if len(ref.seq) > ref.errAt+1 {
				errsAfter++
			}
		}
		if strings.HasPrefix(c.name, "symmetric") {
			sym++
		}
		seen := map[lts.State]bool{}
		for _, s := range ref.seq {
			if seen[s] {
				repeats++
			}
			seen[s] = true
		}
		for _, round := range []int{2048, 1, 3, 7} {
			parRound = round
			for _, w := range []int{2, 3, 4} {
				runs++
				pipelined := (runs % 2) == 0
				got := roundsBatches(c.mk, ref.seq, w, uint64(runs), pipelined)
				if !sameBatches(t, fmt.Sprintf("%s: workers %d round %d pipelined %v (%d batches, one worker %d)", c.name, w, round, pipelined, got.batches, ref.batches), ref, got) {
					failed++
					failedCases[c.name] = true
				}
				compared += len(ref.visits) + len(ref.states)
			}
		}
	}
	if errsAfter == 0 || sym < 2 || repeats == 0 || len(cases) < 50 {
		t.Errorf("%d cases, %d end in an error (%d with states after it), %d symmetric, %d repeated states: the cases do not cover the contract", len(cases), errs, errsAfter, sym, repeats)
	}
	t.Logf("%d cases (%d symmetric, %d end in a run-time error, %d with states after it), %d repeated states; %d runs, %d comparisons (visits and stored states); %d runs in %d cases differ", len(cases), sym, errs, errsAfter, repeats, runs, compared, failed, len(failedCases))
}

// TestRoundsNil: NewRounds gives no Rounds for fewer than two workers or a
// compacted store (a nil interface, not a nil *rounds), and gives one
// otherwise.
func TestRoundsNil(t *testing.T) {
	text := philosophersSrc(t, 4)
	sys, err := compileSrc(t, text).ProcessByName("College")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{-1, 0, 1} {
		if rs := sys.NewRounds(w); rs != nil {
			t.Errorf("NewRounds(%d) = %v, want nil", w, rs)
		}
	}
	for _, c := range []Compaction{{Mode: HashCompact}, {Mode: Bitstate, BitstateBytes: 1 << 16}} {
		cp, err := sys.Compacted(c)
		if err != nil {
			t.Fatal(err)
		}
		if cp.fp == nil {
			t.Fatalf("%v: no compacted store", c.Mode)
		}
		if rs := cp.NewRounds(4); rs != nil {
			t.Errorf("%v: NewRounds(4) = %v, want nil", c.Mode, rs)
		}
	}
	rs := sys.NewRounds(2)
	if rs == nil {
		t.Fatal("NewRounds(2) = nil on an exact store")
	}
	rs.Close()
}

// TestRoundsEdges: an empty batch, fewer states than workers, and more
// than 127 workers (whose indices once overflowed an int8).
func TestRoundsEdges(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	text := philosophersSrc(t, 7)
	mk := func() *Proc {
		sys, err := compileSrc(t, text).ProcessByName("College")
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}
	sys := mk()
	rs := sys.NewRounds(3)
	if e, err := rs.Expand(nil); e != -1 || err != nil {
		t.Errorf("empty batch: %d, %v", e, err)
	}
	rs.Close()
	// 3^7 states, in batches of up to 3000 states.
	ref := seqBatches(mk, 7, 3000)
	for _, w := range []int{2, 7, 130} {
		sameBatches(t, fmt.Sprintf("workers %d", w), ref, roundsBatches(mk, ref.seq, w, 9, false))
	}
	// Every state in one batch (twice over) to 130 workers: the workers
	// past 127 get states too.
	all := ref.seq[:0:0]
	for range 2 {
		for id := range len(ref.states) {
			all = append(all, lts.State(id))
		}
	}
	if len(all) < 3*130 {
		t.Fatalf("%d states", len(all))
	}
	func() {
		defer func() {
			if e := recover(); e != nil {
				t.Errorf("workers 130, %d states: panic %v", len(all), e)
			}
		}()
		sys := mk()
		var trs []lts.Transition
		var err error
		var counts []int
		for next := 0; next < sys.NumStates(); {
			n0 := sys.NumStates()
			var batch []lts.State
			for ; next < n0; next++ {
				batch = append(batch, lts.State(next))
			}
			if trs, counts, err = sys.SuccessorsBatch(batch, trs[:0], counts[:0]); err != nil {
				t.Fatal(err)
			}
		}
		if trs, counts, err = sys.SuccessorsBatch(all, trs[:0], counts[:0]); err != nil {
			t.Fatal(err)
		}
		sys2 := mk()
		rs := sys2.NewRounds(130)
		defer rs.Close()
		for next := 0; next < sys2.NumStates(); {
			n0 := sys2.NumStates()
			var batch []lts.State
			for ; next < n0; next++ {
				batch = append(batch, lts.State(next))
			}
			if _, err := rs.Expand(batch); err != nil {
				t.Fatal(err)
			}
		}
		if sys2.NumStates() != sys.NumStates() {
			t.Fatalf("%d states, one worker %d", sys2.NumStates(), sys.NumStates())
		}
		if _, err := rs.Expand(all); err != nil {
			t.Fatal(err)
		}
		format := func(sys *Proc, ts []lts.Transition) string {
			var b strings.Builder
			for _, tr := range ts {
				fmt.Fprintf(&b, " %s>%d", sys.Events().Name(tr.Event), tr.Target)
			}
			return b.String()
		}
		off := 0
		for k, c := range counts {
			if got, want := format(sys2, rs.Result(k)), format(sys, trs[off:off+c]); got != want {
				t.Fatalf("workers 130: state %d:%s, one worker:%s", all[k], got, want)
			}
			off += c
		}
	}()
}

// TestRoundsHeatBlocks: a system whose rounds pass hotStates states makes
// its program specialise event blocks (as a search does), not before.
func TestRoundsHeatBlocks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	// 3^10 = 59049 states.
	text := philosophersSrc(t, 10)
	sys, err := compileSrc(t, text).ProcessByName("College")
	if err != nil {
		t.Fatal(err)
	}
	rs := sys.NewRounds(2)
	defer rs.Close()
	for next := 0; next < sys.NumStates(); {
		n0 := sys.NumStates()
		if hot := sys.p.hotBlocks.Load(); hot != (n0 >= hotStates) {
			t.Fatalf("%d states, hot blocks %v", n0, hot)
		}
		if n0 >= hotStates {
			return
		}
		batch := make([]lts.State, 0, n0-next)
		for ; next < n0; next++ {
			batch = append(batch, lts.State(next))
		}
		if _, err := rs.Expand(batch); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("%d states: the system never passed %d", sys.NumStates(), hotStates)
}

// TestRoundsCloseStopsWorkers: Close leaves no goroutine, after batches,
// after a failing one, and without any; with spinning workers and with
// more workers than Ps.
func TestRoundsCloseStopsWorkers(t *testing.T) {
	phil := philosophersSrc(t, 6)
	// A counter beside the philosophers divides by zero at depth 12.
	errSrc := phil + divByZeroAt(12) + "Bad() = College() ||| Count();\n"
	for _, procs := range []int{2, 1} {
		for _, c := range []struct{ name, src, proc string }{{"complete", phil, "College"}, {"run-time error", errSrc, "Bad"}, {"unused", phil, "College"}} {
			t.Run(fmt.Sprintf("GOMAXPROCS=%d/%s", procs, c.name), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				sys, err := compileSrc(t, c.src).ProcessByName(c.proc)
				if err != nil {
					t.Fatal(err)
				}
				before := runtime.NumGoroutine()
				rs := sys.NewRounds(3)
				var failed error
				for next := 0; c.name != "unused" && next < sys.NumStates() && failed == nil; {
					n0 := sys.NumStates()
					var batch []lts.State
					for ; next < n0; next++ {
						batch = append(batch, lts.State(next))
					}
					_, failed = rs.Expand(batch)
				}
				if n := gangWorkers(); c.name != "unused" && n != 2 {
					t.Errorf("%d gang workers while the rounds are open, want 2", n)
				}
				rs.Close()
				if (failed != nil) != (c.name == "run-time error") {
					t.Errorf("error %v", failed)
				}
				if n := settled(before); n > before {
					t.Errorf("%d goroutines after Close, %d before", n, before)
				}
			})
		}
	}
}
