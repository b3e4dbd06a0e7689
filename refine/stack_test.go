package refine

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// This file hand-builds PAT's linearizability template (Liu et al., the
// paper's §2.3) as explicit graphs: two threads, each performing at most
// two operations on a shared stack; thread t pushes the value t+1 or pops.
// Operations show an invocation and a response event; every internal step
// is tau. The specification performs each operation atomically in one
// hidden step between its invocation and its response, so trace refinement
// is linearizability (docs/verdicts.md §1).
//
// Events: push_inv.T.V, push_res.T, pop_inv.T, pop_res.T.V (V = 0: empty).
// The array has 4 cells, so with 4 operations in all it is never full.

const (
	idle      = iota
	pushStart // invoked, nothing done yet
	pushRead  // (impl) top read into local
	pushDone  // effect done, response pending
	popStart
	popDone
)

type stackState struct {
	pc    [2]uint8
	local [2]int8
	ret   [2]int8
	ops   [2]uint8
	top   int8
	arr   [4]int8
	lock  int8 // 0 free, else thread+1
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", path, got)
	}
}

// stackKind selects the step relation.
type stackKind int

const (
	specStack   stackKind = iota // atomic operations
	lockedStack                  // correct: every operation under one lock
	racyStack                    // bug: push reads top and writes in two unprotected steps
)

func stackSteps(kind stackKind) func(s stackState, emit func(ev string, t stackState)) {
	return func(s stackState, emit func(string, stackState)) {
		for th := 0; th < 2; th++ {
			n := s
			switch s.pc[th] {
			case idle:
				if s.ops[th] < 2 {
					n.pc[th] = pushStart
					emit(fmt.Sprintf("push_inv.%d.%d", th, th+1), n)
					n = s
					n.pc[th] = popStart
					emit(fmt.Sprintf("pop_inv.%d", th), n)
				}
			case pushStart:
				switch kind {
				case specStack:
					n.arr[n.top] = int8(th + 1)
					n.top++
					n.pc[th] = pushDone
					emit("tau", n)
				case lockedStack:
					if s.lock == 0 {
						n.lock = int8(th + 1)
						n.local[th] = s.top
						n.pc[th] = pushRead
						emit("tau", n)
					}
				case racyStack:
					n.local[th] = s.top
					n.pc[th] = pushRead
					emit("tau", n)
				}
			case pushRead:
				n.arr[s.local[th]] = int8(th + 1)
				n.top = s.local[th] + 1
				n.local[th] = 0
				if kind == lockedStack {
					n.lock = 0
				}
				n.pc[th] = pushDone
				emit("tau", n)
			case pushDone:
				n.pc[th] = idle
				n.ops[th]++
				emit(fmt.Sprintf("push_res.%d", th), n)
			case popStart:
				if kind == lockedStack && s.lock != 0 {
					break
				}
				if s.top == 0 {
					n.ret[th] = 0
				} else {
					n.top--
					n.ret[th] = s.arr[n.top]
					n.arr[n.top] = 0
				}
				n.pc[th] = popDone
				emit("tau", n)
			case popDone:
				n.pc[th] = idle
				n.ops[th]++
				n.ret[th] = 0
				emit(fmt.Sprintf("pop_res.%d.%d", th, s.ret[th]), n)
			}
		}
	}
}

// explore builds the reachable graph of a step relation, states numbered
// in breadth-first order.
func explore[S comparable](tab *lts.EventTable, init S, step func(S, func(string, S))) *lts.Explicit {
	x := lts.NewExplicit(tab)
	ids := map[S]lts.State{init: 0}
	queue := []S{init}
	for i := 0; i < len(queue); i++ {
		s := queue[i]
		step(s, func(ev string, t S) {
			id, ok := ids[t]
			if !ok {
				id = lts.State(len(queue))
				ids[t] = id
				queue = append(queue, t)
			}
			x.Add(lts.State(i), ev, id)
		})
	}
	return x
}

func TestLinearizableStack(t *testing.T) {
	tab := lts.NewEventTable()
	spec := explore(tab, stackState{}, stackSteps(specStack))
	locked := explore(tab, stackState{}, stackSteps(lockedStack))
	racy := explore(tab, stackState{}, stackSteps(racyStack))
	var events []lts.Event
	for e := lts.Event(1); int(e) < tab.Len(); e++ {
		events = append(events, e)
	}
	t.Logf("spec %d states, locked impl %d, racy impl %d", spec.NumStates(), locked.NumStates(), racy.NumStates())

	// The lock-based stack is linearizable: each operation takes effect in
	// one step under the lock, its linearization point.
	for _, opt := range allOptions() {
		res, err := Check(context.Background(), locked, lts.NewTauClosed(spec), opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != lts.Valid {
			t.Fatalf("%+v: locked stack: %v %v", opt, res.Verdict, res.Counterexample.Trace)
		}
	}
	if n := oracle(locked, spec, events, 64); n != -1 {
		t.Fatalf("oracle finds a violation of length %d in the locked stack", n)
	}

	// The racy stack loses a push when both threads read top before either
	// writes. Shortest witness (7 events, worked out by hand): both pushes
	// are invoked (2), both respond (2) so both must be linearized; one
	// thread's pop takes the only remaining cell and the other's returns
	// empty (2 invocations, 1 response). A single pop cannot show the loss
	// (overlapping pushes may be linearized either way), and every thread
	// must complete its push before it invokes its pop.
	var first *Counterexample
	for _, opt := range allOptions() {
		res, err := Check(context.Background(), racy, lts.NewTauClosed(spec), opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != lts.Invalid {
			t.Fatalf("%+v: racy stack: verdict %v", opt, res.Verdict)
		}
		cex := res.Counterexample
		if len(cex.Trace) != 7 || !strings.HasPrefix(cex.Event, "pop_res.") || !strings.HasSuffix(cex.Event, ".0") {
			t.Fatalf("%+v: counterexample %v, want 7 events ending with an empty pop", opt, cex.Trace)
		}
		var tr []lts.Event
		for _, n := range cex.Trace {
			tr = append(tr, tab.InternName(n))
		}
		if !violates(racy, spec, tr) {
			t.Fatalf("%+v: %v is not a violation", opt, cex.Trace)
		}
		// After t both pushes have responded, so the spec has linearized
		// them in either order; each pending pop may return either value,
		// and never empty (at most one of them has taken effect).
		if got, want := strings.Join(sorted(cex.Offered), " "), "pop_res.0.1 pop_res.0.2 pop_res.1.1 pop_res.1.2"; got != want {
			t.Errorf("%+v: spec offered %s, want %s", opt, got, want)
		}
		if first == nil {
			first = cex
			t.Logf("counterexample: %s; spec offered %v", strings.Join(cex.Trace, " "), cex.Offered)
			b, err := json.MarshalIndent(cex, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "racy_stack.json", append(b, '\n'))
		}
	}
	if n := oracle(racy, spec, events, 64); n != 7 {
		t.Fatalf("oracle: shortest violation %d, want 7", n)
	}
}
