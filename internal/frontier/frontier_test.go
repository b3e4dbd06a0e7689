package frontier

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// arith is a system whose state s has s%5 successors 3s+k, and fails on
// the states in bad.
type arith struct {
	table *lts.EventTable
	bad   map[lts.State]bool
}

func (a *arith) Initial() lts.State      { return 1 }
func (a *arith) Events() *lts.EventTable { return a.table }
func (a *arith) Successors(s lts.State, buf []lts.Transition) ([]lts.Transition, error) {
	if a.bad[s] {
		return buf, fmt.Errorf("bad state %d", s)
	}
	for k := range lts.State(s % 5) {
		buf = append(buf, lts.Transition{Event: lts.Event(k + 1), Target: 3*s + k})
	}
	return buf, nil
}

// batched is arith with SuccessorsBatch.
type batched struct{ arith }

func (b *batched) SuccessorsBatch(states []lts.State, buf []lts.Transition, counts []int) ([]lts.Transition, []int, error) {
	for _, s := range states {
		n := len(buf)
		var err error
		if buf, err = b.Successors(s, buf); err != nil {
			return buf[:n], counts, err
		}
		counts = append(counts, len(buf)-n)
	}
	return buf, counts, nil
}

// TestExpanderMatchesSequential: for every worker count, with and without
// a Batcher, each state's result is what Successors gives it alone, and
// the error reported is the first in the batch's order.
func TestExpanderMatchesSequential(t *testing.T) {
	states := make([]lts.State, 1000)
	for i := range states {
		states[i] = lts.State(7*i + 3)
	}
	for _, bad := range [][]lts.State{nil, {states[900]}, {states[999], states[10], states[600]}} {
		a := arith{table: lts.NewEventTable(), bad: map[lts.State]bool{}}
		for _, s := range bad {
			a.bad[s] = true
		}
		wantErrAt := -1
		for i, s := range states {
			if a.bad[s] {
				wantErrAt = i
				break
			}
		}
		for _, sys := range []lts.System{&a, &batched{a}} {
			for _, workers := range []int{1, 2, 3, 8} {
				name := fmt.Sprintf("%T/bad%v/workers%d", sys, bad, workers)
				x := New(workers)
				for round := range 2 { // buffers are reused
					x.Start(sys, states)
					errAt, err := x.Wait()
					if errAt != wantErrAt || (err == nil) != (wantErrAt < 0) {
						t.Fatalf("%s round %d: error at %d (%v), want %d", name, round, errAt, err, wantErrAt)
					}
					upto := len(states)
					if errAt >= 0 {
						upto = errAt
					}
					for i := range upto {
						want, _ := a.Successors(states[i], nil)
						if got := x.Result(i); !slices.Equal(got, want) {
							t.Fatalf("%s: state %d: got %v, want %v", name, states[i], got, want)
						}
					}
				}
			}
		}
	}
}

type panicky struct{ arith }

func (p *panicky) Successors(s lts.State, buf []lts.Transition) ([]lts.Transition, error) {
	if s == 42 {
		panic(errors.New("boom"))
	}
	return p.arith.Successors(s, buf)
}

// TestExpanderPanic: a worker's panic is raised in Wait's goroutine.
func TestExpanderPanic(t *testing.T) {
	x := New(2)
	x.Start(&panicky{arith{table: lts.NewEventTable()}}, []lts.State{1, 2, 42, 5})
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no panic")
		}
	}()
	x.Wait()
}
