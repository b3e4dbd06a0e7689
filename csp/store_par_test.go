package csp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// searchRecord is what a search did: every state visited, in order, with
// its transitions, the store's states by id, and the counterexample of a
// deadlock check.
type searchRecord struct {
	visits   []string
	states   []string
	verdict  lts.Verdict
	trace    string
	count    int64
	deferred int
	// rounds: folded inserts, ids by bits, by merge, serial, on 4-byte
	// side slots; 4-byte side tables rebuilt by the workers, and their
	// records inserted after the partitions; the workers' expansions
	// with words in and out, and those unpacked to strings (explore.go:
	// parPaths; pathNames).
	paths [9]int
	// parents[s]: the parent of state s in the search's tree, for the
	// states it marked; ids: what checkIDs found wrong in the store, or
	// a tree link that is not the first visit reaching the state, or a
	// panic.
	parents []string
	ids     string
}

// checkIDs checks every id of s against the store's definition, not
// against another search: Lookup of its bytes gives it back; an inline
// state's index entry is the h32 of its bytes' hash (the home Get starts
// from); a side state's index entry is its rank (odd), and the table slot
// that Lookup finds for its bytes points to the record of that rank (its
// rank in a dense set, the rank's offset in the arena). It returns what
// it found wrong, or "". It also checks the dense chunks' room
// (checkDenseRoom).
func checkIDs(s *store) string {
	d := &s.side
	if e := checkDenseRoom(d); e != "" {
		return e
	}
	for id := range uint32(s.n) {
		b := append([]byte(nil), s.Get(id)...)
		h := s.Hash(b)
		if got, ok := s.Lookup(b); !ok || got != id {
			return fmt.Sprintf("id %d: Lookup of its bytes gives %d %v", id, got, ok)
		}
		k := id // a store without a width: the rank is the id
		if s.width >= 0 {
			v := s.index[id>>refBits][id&(refBlock-1)]
			if len(b) == s.width {
				if v != h32(h) {
					return fmt.Sprintf("inline id %d: index entry %#x, h32 of its hash %#x", id, v, h32(h))
				}
				continue
			}
			if v&1 == 0 {
				return fmt.Sprintf("side id %d (%d bytes): index entry %#x is not a rank", id, len(b), v)
			}
			k = v >> 1
		}
		slot, _, _, ok := d.find(b, h)
		if !ok {
			return fmt.Sprintf("side id %d: not in the table", id)
		}
		var loc uint64
		if d.t4 != nil {
			loc = uint64(d.t4[slot]&d.rmask) - 1
		} else {
			loc = d.table[slot]&offMask - 1
		}
		want := uint64(k)
		if d.recLen < 0 {
			want = d.refs[k>>refBits][k&(refBlock-1)]
		}
		if loc != want {
			return fmt.Sprintf("side id %d of rank %d: slot %d points to %d, not %d", id, k, slot, loc, want)
		}
	}
	return ""
}

// pathNames names searchRecord.paths.
const pathNames = "rounds (folded inserts, ids by bits, by merge, serially, on 4-byte slots; 4-byte rebuilds, their records left; workers' expansions with words in and out, those unpacked to strings)"

// recordSearch explores sys (a fresh Proc built by mk) with workers and
// records it; limit bounds the states.
func recordSearch(t *testing.T, mk func() *Proc, workers, limit int) (rec searchRecord) {
	t.Helper()
	defer func() {
		// A panic fails this case only (so that a mutant's failures can
		// be counted).
		if e := recover(); e != nil {
			rec.trace = fmt.Sprintf("panic: %v", e)
			rec.ids = rec.trace
		}
	}()
	sys := mk()
	x := newBFS(context.Background(), sys, Options{Workers: workers, Limits: lts.Limits{MaxStates: limit}})
	// first[t]: the first state visited with a transition to t, by
	// definition t's parent in the BFS tree.
	first := map[lts.State]lts.State{sys.Initial(): sys.Initial()}
	x.run(func(s lts.State, ts []lts.Transition) bool {
		for _, tr := range ts {
			if _, ok := first[tr.Target]; !ok {
				first[tr.Target] = s
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d:", s)
		for _, tr := range ts {
			fmt.Fprintf(&b, " %s>%d", sys.Events().Name(tr.Event), tr.Target)
		}
		rec.visits = append(rec.visits, b.String())
		return false
	})
	r := x.finish(&Result{Verdict: lts.Valid})
	rec.count = r.Stats.States
	if r.Err != nil {
		rec.trace = fmt.Sprintf("error %v:", r.Err)
		for _, st := range r.Trace {
			rec.trace += fmt.Sprintf(" %s>%d", st.Event, st.State)
		}
	}
	// The tree parent of every state the search marked (ids below its
	// count, in order: "The parent tree beyond treeKeep").
	for s := range lts.State(x.seen) {
		var up lts.State
		if x.treeless(s) {
			var err error
			if up, _, err = x.parent(s); err != nil {
				rec.parents = append(rec.parents, err.Error())
				continue
			}
		} else if up = x.up(s); up == noState {
			rec.parents = append(rec.parents, "none")
			continue
		}
		rec.parents = append(rec.parents, fmt.Sprint(up))
		if f, ok := first[s]; (!ok || f != up) && rec.ids == "" {
			rec.ids = fmt.Sprintf("state %d: tree parent %d, first reached from %d (%v)", s, up, f, ok)
		}
	}
	if rec.ids == "" {
		rec.ids = checkIDs(sys.store)
	}
	if rec.ids == "" {
		// One worker or several: the one-worker layout of the slots.
		if err := slotLayout(&sys.store.side); err != nil {
			rec.ids = err.Error()
		}
	}
	rec.deferred = x.parDeferred
	rec.paths = x.parPaths
	// By description: component codes (and term ids), hence the bytes,
	// depend on the order in which the workers met the terms.
	for id := range sys.NumStates() {
		rec.states = append(rec.states, fmt.Sprint(sys.Describe(lts.State(id))))
	}
	d, err := DeadlockFree(context.Background(), mk(), Options{Workers: workers, NoSymmetry: true, Limits: lts.Limits{MaxStates: limit}})
	if err != nil {
		t.Fatal(err)
	}
	rec.verdict = d.Verdict
	for _, st := range d.Trace {
		rec.trace += fmt.Sprintf(" %s>%d", st.Event, st.State)
	}
	return rec
}

// sameSearch compares a parallel search with the sequential one: the same
// visits (states, transitions, ids), the same tree parents and the same
// counterexample (a model error's whole trace), after checking that
// neither found a store or tree link wrong (searchRecord.ids); the
// stores agree on every id both hold (a search stopped by a limit may have
// interned a different number of states: a round is interned whole).
//
// A search stopped by the state limit checks it every 256 states of a
// level, as the sequential one does, and at the start of each round: with
// rounds of a multiple of 256 states (the default), it stops where the
// sequential search stops, and stopped is false: the visits, the count,
// the verdict and the counterexample are compared whole.
func sameSearch(t *testing.T, name string, seq, par searchRecord, limited, stopped bool) bool {
	t.Helper()
	for _, r := range []searchRecord{seq, par} {
		if r.ids != "" {
			t.Errorf("%s: %s", name, r.ids)
			return false
		}
	}
	n := min(len(seq.visits), len(par.visits))
	if !stopped && len(seq.visits) != len(par.visits) {
		t.Errorf("%s: %d visits, sequential %d", name, len(par.visits), len(seq.visits))
		return false
	}
	for i := range n {
		if seq.visits[i] != par.visits[i] {
			t.Errorf("%s: visit %d: %s, sequential %s", name, i, par.visits[i], seq.visits[i])
			return false
		}
	}
	m := min(len(seq.states), len(par.states))
	if !limited && len(seq.states) != len(par.states) {
		t.Errorf("%s: %d states stored, sequential %d", name, len(par.states), len(seq.states))
		return false
	}
	for id := range m {
		if seq.states[id] != par.states[id] {
			t.Errorf("%s: state %d is %s, sequential %s", name, id, par.states[id], seq.states[id])
			return false
		}
	}
	if !stopped && len(seq.parents) != len(par.parents) {
		t.Errorf("%s: %d states in the tree, sequential %d", name, len(par.parents), len(seq.parents))
		return false
	}
	for s := range min(len(seq.parents), len(par.parents)) {
		if seq.parents[s] != par.parents[s] {
			t.Errorf("%s: the parent of %d is %s, sequential %s", name, s, par.parents[s], seq.parents[s])
			return false
		}
	}
	if !stopped && (seq.count != par.count || seq.verdict != par.verdict || seq.trace != par.trace) {
		t.Errorf("%s: %d states, %v %q; sequential %d, %v %q", name, par.count, par.verdict, par.trace, seq.count, seq.verdict, seq.trace)
		return false
	}
	return true
}

// TestParallelIDsDeterministic: on every asserted process of the library
// models (and the path comparisons' extra models), the parallel search
// with 2, 3 and 4 workers, in rounds of the default size and of a few
// states (many rounds per level, deferred probe runs), gives the states
// the same ids, the same transitions in the same order and the same
// counterexamples as the sequential search.
func TestParallelIDsDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	limit := 6000
	if testing.Short() {
		limit = 1500
	}
	defer func(r int) { parRound = r }(parRound)
	deferred, compared, cases, failed := 0, 0, 0, 0
	var paths [9]int
	for _, pr := range comparedProcs(t) {
		p := compileSrc(t, pr.src)
		name := strings.TrimSuffix(strings.TrimSpace(pr.text), "()")
		if _, err := p.ProcessByName(name); err != nil {
			continue
		}
		mk := func() *Proc {
			sys, err := compileSrc(t, pr.src).ProcessByName(name)
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}
		parRound = 2048
		seq := recordSearch(t, mk, 1, limit)
		limited := seq.count >= int64(limit)
		for _, round := range []int{2048, 3} {
			parRound = round
			for _, w := range []int{2, 3, 4} {
				par := recordSearch(t, mk, w, limit)
				cases++
				if !sameSearch(t, fmt.Sprintf("%s %s workers %d round %d", pr.file, pr.text, w, round), seq, par, limited, limited && round%256 != 0) {
					failed++
				}
				deferred += par.deferred
				for i, n := range par.paths {
					paths[i] += n
				}
			}
		}
		compared++
	}
	if compared < 10 || deferred == 0 || paths[1] == 0 || paths[2] == 0 || paths[4] == 0 {
		t.Errorf("%d processes compared, %d strings deferred, rounds numbered by bits and by merge %v: the cases do not cover the paths", compared, deferred, paths)
	}
	t.Logf("%d processes, %d deferred strings, "+pathNames+" %v; %d of %d parallel searches differ", compared, deferred, paths, failed, cases)
}

// TestParallelIDsRandom: the same on random programs (randomShapeModel,
// two copies interleaved, and a variable that needs two bytes now and
// then: both inline and side states), a third of which end in a run-time
// error.
func TestParallelIDsRandom(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(r int) { parRound = r }(parRound)
	n := 60
	if testing.Short() {
		n = 15
	}
	rng := rand.New(rand.NewPCG(21, 5))
	errs, cases, failed, programs, deferred := 0, 0, 0, 0, 0
	var paths [9]int
	for c := range n {
		src := randomShapeModel(rng) + "var z = 0;\nQ = [z < 70] up{z = z + 9} -> Q [] [z > 0] down{z = z - 5} -> Q;\nSys = P ||| P ||| Q;\n"
		if m, err := lang.Parse("test.csp", []byte(src)); err != nil {
			t.Fatal(err)
		} else if _, err := lang.Check(m); err != nil {
			continue // a constant index out of range
		}
		programs++
		mk := func() *Proc {
			sys, err := compileSrc(t, src).ProcessByName("Sys")
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}
		parRound = 2048
		seq := recordSearch(t, mk, 1, 0)
		if strings.HasPrefix(seq.trace, "error") {
			errs++
		}
		for _, round := range []int{2048, 1, 5} {
			parRound = round
			// 16 workers: 16 partitions of tables of a few hundred
			// slots, so that many probe runs leave their range.
			for _, w := range []int{2, 4, 16} {
				// Ids numbered by the partitions, and (a region of at
				// most 16 bytes) by the searching goroutine alone.
				for _, region := range []int{storeChunk, 16} {
					parRegionMax = region
					cases++
					par := recordSearch(t, mk, w, 0)
					deferred += par.deferred
					for i, n := range par.paths {
						paths[i] += n
					}
					if !sameSearch(t, fmt.Sprintf("case %d workers %d round %d region %d\n%s", c, w, round, region, src), seq, par, false, false) {
						failed++
					}
				}
				parRegionMax = storeChunk
			}
		}
	}
	if errs == 0 || errs == programs {
		t.Errorf("%d of %d programs end in an error", errs, programs)
	}
	if paths[1] == 0 || paths[2] == 0 || paths[3] == 0 || paths[4] == 0 || paths[5] == 0 {
		t.Errorf(pathNames+" %v: the cases do not cover the paths", paths)
	}
	t.Logf("%d programs, %d end in an error, %d deferred strings, "+pathNames+" %v; %d of %d parallel searches differ", programs, errs, deferred, paths, failed, cases)
}

// TestParallelIDsSymmetric: the same on the symmetry-reduced systems
// (SymmetricProcess: the workers intern orbit representatives) of the
// models with thread symmetry.
func TestParallelIDsSymmetric(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(r int) { parRound = r }(parRound)
	limit := 20000
	if testing.Short() {
		limit = 3000
	}
	reduced, cases, failed := 0, 0, 0
	for _, c := range symmetricCases(t) {
		reduced++
		parRound = 2048
		seq := recordSearch(t, c.mk, 1, limit)
		for _, round := range []int{2048, 7} {
			parRound = round
			for _, w := range []int{2, 3} {
				cases++
				if !sameSearch(t, fmt.Sprintf("%s workers %d round %d", c.name, w, round), seq, recordSearch(t, c.mk, w, limit), seq.count >= int64(limit), seq.count >= int64(limit) && round%256 != 0) {
					failed++
				}
			}
		}
	}
	if reduced < 2 {
		t.Errorf("only %d symmetric systems", reduced)
	}
	t.Logf("%d symmetric systems; %d of %d parallel searches differ", reduced, failed, cases)
}

// TestParallelLimits: a parallel search stopped by a state limit or a
// cancelled context answers Unknown with its statistics, and the system
// stays usable (a later search of it gives the full count).
func TestParallelLimits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	before := runtime.NumGoroutine()
	defer func() {
		// The workers (internal/gang) are gone once a search returns,
		// however it ended.
		if n := settled(before); n > before {
			t.Errorf("%d goroutines after the searches, %d before", n, before)
		}
	}()
	text := philosophersSrc(t, 8)
	sys, err := compileSrc(t, text).ProcessByName("College")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Explore(context.Background(), sys, Options{Workers: 2, Limits: lts.Limits{MaxStates: 1000}})
	if err != nil || r.Verdict != lts.Unknown || r.Reason != "state limit 1000" || r.Stats.States < 1000 || r.Stats.States >= 6561 {
		t.Errorf("state limit: %v %v %q %+v", err, r.Verdict, r.Reason, r.Stats)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err = Explore(ctx, sys, Options{Workers: 2})
	if err != nil || r.Verdict != lts.Unknown || r.Reason != "cancelled" {
		t.Errorf("cancelled: %v %v %q", err, r.Verdict, r.Reason)
	}
	r, err = Explore(context.Background(), sys, Options{Workers: 2})
	if err != nil || r.Verdict != lts.Valid || r.Stats.States != 6561 {
		t.Errorf("after the limits: %v %v %+v; want 3^8 states", err, r.Verdict, r.Stats)
	}
}

// symmetricCases makes the symmetry-reduced systems (SymmetricProcess) of
// the models with thread symmetry, each named by its file and process.
func symmetricCases(t *testing.T) []roundsCase {
	var cases []roundsCase
	for _, am := range assertedModels(t, "../testdata/sym/*.csp", "../models/lib/*.csp") {
		for k, q := range am.procs {
			mk := func() *Proc {
				p, err := Compile(am.checked)
				if err != nil {
					t.Fatal(err)
				}
				sys, why, err := p.SymmetricProcess(q)
				if err != nil || why != "" {
					return nil
				}
				return sys
			}
			if mk() != nil {
				cases = append(cases, roundsCase{am.path + " " + am.texts[k], mk})
			}
		}
	}
	return cases
}

// checkDenseRoom reports a 2-bit dense chunk without room for the 8-byte
// word read at its last record (rec2: a read past the allocation does not
// fault, so only a check sees it), or "".
func checkDenseRoom(d *sideSet) string {
	if d.recLen < 0 || d.pbits != 2 {
		return ""
	}
	for i, c := range d.dense {
		if len(c) >= d.plen && len(c)-d.plen+8 > cap(c) {
			return fmt.Sprintf("dense chunk %d: %d bytes of records of %d, room for %d", i, len(c), d.plen, cap(c))
		}
	}
	return ""
}
