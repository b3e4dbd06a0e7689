package csp

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// TestParallelConcurrentUse: Systems are safe for concurrent use (doc.go).
// A parallel exploration of a Proc while another goroutine asks the same
// Proc for successors (interning states meanwhile) must still count every
// reachable state. Rounds of 3 states make many rounds; before the round
// checked the store's size under its lock, the workers linked the new
// states of a round in the parent tree after another goroutine had
// interned states in between, the walk then took them for seen, and 6 of
// 200 explorations lost 3 to 12 of the 2187 states (none with the
// frontier path or one worker).
func TestParallelConcurrentUse(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(r int) { parRound = r }(parRound)
	parRound = 3
	text := philosophersSrc(t, 7)
	want := int64(2187) // 3^7
	bad := 0
	for trial := range 200 {
		sys, err := compileSrc(t, text).ProcessByName("College")
		if err != nil {
			t.Fatal(err)
		}
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(trial), 1))
			var buf []lts.Transition
			for !stop.Load() {
				n := sys.NumStates()
				buf, _ = sys.Successors(lts.State(rng.IntN(n)), buf[:0])
			}
		}()
		r, err := Explore(context.Background(), sys, Options{Workers: 2})
		stop.Store(true)
		wg.Wait()
		if err != nil || r.Stats.States != want {
			bad++
			t.Logf("trial %d: %v %v states %d, want %d", trial, err, r.Verdict, r.Stats.States, want)
		}
	}
	if bad > 0 {
		t.Errorf("%d of 200 explorations lost states", bad)
	}
}
