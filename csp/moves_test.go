package csp

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// TestComponentMovesAgree: on every process of the library models (the
// invocation/response ones also with their event-renaming thread symmetry)
// and the fast-path test processes, in the first states in BFS order,
// ComponentMoves(s, c) is SuccessorsMoves(s) restricted to component c,
// in order, with the same moves; and LocalSteps, once s is expanded,
// lists for each component whose steps are all local (Local and
// CompLocal) exactly those steps' events, in order, and marks the others.
func TestComponentMovesAgree(t *testing.T) {
	limit := 2000
	if testing.Short() {
		limit = 300
	}
	checked, local := 0, 0
	try := func(name string, systems ...*Proc) {
		for _, s := range systems {
			c, l := componentMovesAgree(t, name, s, limit)
			checked += c
			local += l
		}
	}
	for _, am := range assertedModels(t, "../models/lib/*.csp", "../models/testdata/*.csp") {
		p, err := Compile(am.checked)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range am.procs {
			sys, err := p.Process(q)
			if err != nil {
				t.Fatal(err)
			}
			try(am.path+" "+am.texts[i], sys)
			if sym, _, err := p.SymmetricEventsProcess(q); err == nil && sym != nil {
				try(am.path+" "+am.texts[i]+" (symmetry)", sym)
			}
		}
	}
	for _, cp := range comparedProcs(t) {
		p := compileSrc(t, cp.src)
		if sys, err := p.ProcessByName(strings.TrimSuffix(strings.TrimSpace(cp.text), "()")); err == nil {
			try(cp.file+" "+cp.text, sys)
		}
	}
	if checked == 0 || local == 0 {
		t.Fatalf("%d states checked, %d local components seen", checked, local)
	}
	t.Logf("%d states, %d components with local steps only", checked, local)
}

func componentMovesAgree(t *testing.T, name string, sys *Proc, limit int) (checked, local int) {
	seen := map[lts.State]bool{sys.Initial(): true}
	queue := []lts.State{sys.Initial()}
	for len(queue) > 0 && checked < limit {
		s := queue[0]
		queue = queue[1:]
		trs, moves, err := sys.SuccessorsMoves(s, nil, nil)
		if err != nil {
			continue // a run-time error of the model: ComponentMoves reports it too
		}
		checked++
		for c := range sys.ncomp {
			var want []lts.Transition
			var wantMv []lts.Move
			for i, m := range moves {
				if m.Comp == int32(c) {
					want, wantMv = append(want, trs[i]), append(wantMv, m)
				}
			}
			got, gotMv, err := sys.ComponentMoves(s, int32(c), nil, nil)
			if err != nil {
				t.Fatalf("%s: state %d, component %d: %v", name, s, c, err)
			}
			if !slices.Equal(got, want) || !slices.Equal(gotMv, wantMv) {
				t.Fatalf("%s: state %d, component %d: ComponentMoves %v %v, SuccessorsMoves %v %v", name, s, c, got, gotMv, want, wantMv)
			}
		}
		evs, ends := sys.LocalSteps(s, nil, nil)
		if msg := localAgrees(sys, evs, ends, trs, moves); msg != "" {
			t.Fatalf("%s: state %d: %s", name, s, msg)
		}
		start := 0
		for _, end := range ends {
			if end >= 0 {
				if end > start {
					local++
				}
				start = end
			}
		}
		pendingAgree(t, name, sys, s, trs, moves)
		for _, tr := range trs {
			if !seen[tr.Target] {
				seen[tr.Target] = true
				queue = append(queue, tr.Target)
			}
		}
	}
	return checked, local
}

// pendingAgree: Expand then Store gives the transitions of SuccessorsMoves
// (trs, moves), and the successors of a pending state are those of the
// state stored: the same transitions without a symmetry, the same targets
// with one (events name threads as the state expanded does, not as its
// representative).
func pendingAgree(t *testing.T, name string, sys *Proc, s lts.State, trs []lts.Transition, moves []lts.Move) {
	var p, q Pending
	if err := sys.Expand(s, -1, &p); err != nil {
		t.Fatalf("%s: state %d: Expand: %v", name, s, err)
	}
	got, gotMv, err := sys.Store(&p, nil, nil, nil)
	if err != nil || !slices.Equal(got, trs) || !slices.Equal(gotMv, moves) {
		t.Fatalf("%s: state %d: Expand and Store %v %v (%v), SuccessorsMoves %v %v", name, s, got, gotMv, err, trs, moves)
	}
	for i := range p.Len() {
		if p.Event(i) != trs[i].Event || p.Move(i).Comp != moves[i].Comp || p.Move(i).Local != moves[i].Local {
			t.Fatalf("%s: state %d: pending %d: %v %+v, stored %v %+v", name, s, i, p.Event(i), p.Move(i), trs[i], moves[i])
		}
		if sys.sym == nil {
			e1, n1 := sys.PendingLocalSteps(&p, i, nil, nil)
			e2, n2 := sys.LocalSteps(trs[i].Target, nil, nil)
			if !slices.Equal(e1, e2) || !slices.Equal(n1, n2) {
				t.Fatalf("%s: state %d: successor %d: PendingLocalSteps %v %v, LocalSteps %v %v", name, s, i, e1, n1, e2, n2)
			}
		}
		for c := range sys.ncomp {
			if err := sys.ExpandPending(&p, i, int32(c), &q); err != nil {
				continue // the stored state's expansion meets it too
			}
			got, gotMv, err := sys.Store(&q, nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, wantMv, err := sys.ComponentMoves(trs[i].Target, int32(moves[i].Perm.At(c)), nil, nil)
			if err != nil {
				t.Fatalf("%s: state %d: successor %d: ComponentMoves: %v, ExpandPending succeeded", name, s, i, err)
			}
			if sys.sym == nil {
				if !slices.Equal(got, want) || !slices.Equal(gotMv, wantMv) {
					t.Fatalf("%s: state %d: successor %d, component %d: pending %v %v, stored %v %v", name, s, i, c, got, gotMv, want, wantMv)
				}
				continue
			}
			a, b := targets(got), targets(want)
			if !slices.Equal(a, b) {
				t.Fatalf("%s: state %d: successor %d, component %d: pending targets %v, stored %v", name, s, i, c, a, b)
			}
		}
	}
}

func targets(trs []lts.Transition) []lts.State {
	var out []lts.State
	for _, tr := range trs {
		out = append(out, tr.Target)
	}
	slices.Sort(out)
	return out
}

// TestLocalStepsOrderFree: LocalSteps, PendingLocalSteps and the moves of
// a state are functions of the state, whatever was expanded before: on
// every process of the library models (the invocation/response ones also
// with their thread symmetry), each compiled afresh, and with the program
// switching to specialised blocks at the default, after 5 and after 60
// states (SetHotStates, which drops every template built), each state's
// answers when first met in BFS order (LocalSteps before the state is
// expanded, its successors' PendingLocalSteps before they are stored)
// are those once every state is explored; and LocalSteps agrees with the
// moves (a component it lists has all its steps local, one it marks has
// none CompLocal).
func TestLocalStepsOrderFree(t *testing.T) {
	limit := 1500
	if testing.Short() {
		limit = 300
	}
	failed, checked := localStepsOrderCases(t, limit)
	if failed > 0 {
		t.Fatalf("%d of %d processes differ", failed, checked)
	}
	t.Logf("%d processes and switches", checked)
}

// TestLocalStepsOrderMutant: with LocalSteps and the moves reading only
// the templates built so far (memoOnly, as before they built them on
// demand), TestLocalStepsOrderFree fails.
func TestLocalStepsOrderMutant(t *testing.T) {
	memoOnly = true
	defer func() { memoOnly = false }()
	failed, checked := localStepsOrderCases(t, 300)
	t.Logf("mutant: %d of %d processes and switches differ", failed, checked)
	if failed == 0 {
		t.Fatal("mutant not caught")
	}
}

func localStepsOrderCases(t *testing.T, limit int) (failed, checked int) {
	for _, am := range assertedModels(t, "../models/lib/*.csp", "../models/testdata/*.csp") {
		for i, q := range am.procs {
			for _, hot := range []int{0, 5, 60} {
				for _, sym := range []bool{false, true} {
					p, err := Compile(am.checked)
					if err != nil {
						t.Fatal(err)
					}
					if hot > 0 {
						p.SetHotStates(hot)
					}
					sys, err := p.Process(q)
					if sym {
						sys, _, err = p.SymmetricEventsProcess(q)
					}
					if err != nil || sys == nil {
						continue
					}
					checked++
					name := fmt.Sprintf("%s %s (hot at %d, symmetry %v)", am.path, am.texts[i], hot, sym)
					if d := localStepsOrder(sys, limit); d != "" {
						failed++
						if !memoOnly {
							t.Errorf("%s: %s", name, d)
						}
					}
				}
			}
		}
	}
	return failed, checked
}

// localStepsOrder explores sys in BFS order up to limit states and
// returns the first difference between a state's answers when first met
// and at the end, or a LocalSteps that the moves contradict; "" if none.
func localStepsOrder(sys *Proc, limit int) string {
	type answers struct {
		evs   []lts.Event
		ends  []int
		trs   []lts.Transition
		moves []lts.Move
		// The pending successors' PendingLocalSteps, read before they
		// were stored.
		pevs  [][]lts.Event
		pends [][]int
	}
	seen := map[lts.State]*answers{}
	queue := []lts.State{sys.Initial()}
	seen[sys.Initial()] = nil
	var order []lts.State
	var p Pending
	for len(queue) > 0 && len(order) < limit {
		s := queue[0]
		queue = queue[1:]
		a := &answers{}
		a.evs, a.ends = sys.LocalSteps(s, nil, nil)
		if err := sys.Expand(s, -1, &p); err != nil {
			continue // a run-time error of the model
		}
		for i := range p.Len() {
			e, n := sys.PendingLocalSteps(&p, i, nil, nil)
			a.pevs, a.pends = append(a.pevs, e), append(a.pends, n)
		}
		var err error
		if a.trs, a.moves, err = sys.SuccessorsMoves(s, nil, nil); err != nil {
			return fmt.Sprintf("state %d: %v after Expand succeeded", s, err)
		}
		if d := localAgrees(sys, a.evs, a.ends, a.trs, a.moves); d != "" {
			return fmt.Sprintf("state %d, first met: %s", s, d)
		}
		seen[s] = a
		order = append(order, s)
		for _, tr := range a.trs {
			if _, ok := seen[tr.Target]; !ok {
				seen[tr.Target] = nil
				queue = append(queue, tr.Target)
			}
		}
	}
	for _, s := range order {
		a := seen[s]
		evs, ends := sys.LocalSteps(s, nil, nil)
		if !slices.Equal(evs, a.evs) || !slices.Equal(ends, a.ends) {
			return fmt.Sprintf("state %d: LocalSteps %v %v when first met, %v %v at the end", s, a.evs, a.ends, evs, ends)
		}
		if err := sys.Expand(s, -1, &p); err != nil {
			return fmt.Sprintf("state %d: %v at the end", s, err)
		}
		for i := range p.Len() {
			e, n := sys.PendingLocalSteps(&p, i, nil, nil)
			if !slices.Equal(e, a.pevs[i]) || !slices.Equal(n, a.pends[i]) {
				return fmt.Sprintf("state %d: successor %d: PendingLocalSteps %v %v when first met, %v %v at the end", s, i, a.pevs[i], a.pends[i], e, n)
			}
		}
		trs, moves, err := sys.SuccessorsMoves(s, nil, nil)
		if err != nil || !slices.Equal(trs, a.trs) || !slices.Equal(moves, a.moves) {
			return fmt.Sprintf("state %d: %v %v when first met, %v %v (%v) at the end", s, a.trs, a.moves, trs, moves, err)
		}
	}
	return ""
}

// localAgrees checks LocalSteps (evs, ends) against the moves of the
// state: a component listed offers exactly those events, all Local and
// CompLocal; a component marked has no CompLocal move.
func localAgrees(sys *Proc, evs []lts.Event, ends []int, trs []lts.Transition, moves []lts.Move) string {
	if len(ends) != sys.ncomp {
		return fmt.Sprintf("%d ends for %d components", len(ends), sys.ncomp)
	}
	start := 0
	for c, end := range ends {
		var compEvs []lts.Event
		allLocal := true
		for i, m := range moves {
			if m.Comp == int32(c) {
				compEvs = append(compEvs, trs[i].Event)
				allLocal = allLocal && m.Local && m.CompLocal
				if end < 0 && m.CompLocal {
					return fmt.Sprintf("component %d not local for LocalSteps, but its move %+v is", c, m)
				}
			}
		}
		if end < 0 {
			continue
		}
		if !allLocal || !slices.Equal(evs[start:end], compEvs) {
			return fmt.Sprintf("component %d: LocalSteps %v, moves %v (all local: %v)", c, evs[start:end], compEvs, allLocal)
		}
		start = end
	}
	return ""
}

// TestLocalStepsConcurrent: workers that expand states and read
// LocalSteps at once, while the program switches to specialised blocks
// (at 50 states, so that heatBlocks drops the templates in the middle),
// get the answers a single reader gets afterwards, for every state they
// met (run it with -race too).
func TestLocalStepsConcurrent(t *testing.T) {
	for _, am := range assertedModels(t, "../models/testdata/segqueue.csp", "../models/testdata/linstack.csp") {
		for i, q := range am.procs {
			if !strings.HasPrefix(am.texts[i], "ImplIR") {
				continue
			}
			p, err := Compile(am.checked)
			if err != nil {
				t.Fatal(err)
			}
			p.SetHotStates(50)
			sys, _, err := p.SymmetricEventsProcess(q)
			if err != nil || sys == nil {
				t.Fatalf("%s: no symmetry: %v", am.path, err)
			}
			localStepsConcurrent(t, am.path, sys)
		}
	}
}

func localStepsConcurrent(t *testing.T, name string, sys *Proc) {
	type answer struct {
		evs   []lts.Event
		ends  []int
		moves []lts.Move
	}
	const workers, limit = 4, 3000
	var mu sync.Mutex
	got := map[lts.State]answer{}
	next := []lts.State{sys.Initial()}
	seen := map[lts.State]bool{sys.Initial(): true}
	// Level by level, each level's states shared out among the workers.
	for len(next) > 0 && len(seen) < limit {
		level := next
		next = nil
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := w; k < len(level); k += workers {
					s := level[k]
					evs, ends := sys.LocalSteps(s, nil, nil)
					trs, moves, err := sys.SuccessorsMoves(s, nil, nil)
					if err != nil {
						continue
					}
					mu.Lock()
					got[s] = answer{evs, ends, moves}
					for _, tr := range trs {
						if !seen[tr.Target] {
							seen[tr.Target] = true
							next = append(next, tr.Target)
						}
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		slices.Sort(next) // the order of a level does not depend on the workers
	}
	if !sys.p.Hot() {
		t.Fatalf("%s: the program never got hot (%d states)", name, sys.NumStates())
	}
	for s, a := range got {
		evs, ends := sys.LocalSteps(s, nil, nil)
		_, moves, err := sys.SuccessorsMoves(s, nil, nil)
		if err != nil || !slices.Equal(evs, a.evs) || !slices.Equal(ends, a.ends) || !slices.Equal(moves, a.moves) {
			t.Fatalf("%s: state %d: concurrent %v %v %v, alone %v %v %v (%v)", name, s, a.evs, a.ends, a.moves, evs, ends, moves, err)
		}
	}
	t.Logf("%s: %d states", name, len(got))
}
