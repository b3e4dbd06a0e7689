package gang

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunsEveryWorkerOnce runs many short phases, with spinning and with
// parking only (Spin = 0, where a lost wake-up would hang the test), and
// checks that every phase ran each worker exactly once and that Run
// returned only after all had finished (each phase reads what the last
// one wrote).
func TestRunsEveryWorkerOnce(t *testing.T) {
	for _, spin := range []time.Duration{0, time.Microsecond, Spin} {
		for _, w := range []int{1, 2, 3, 5} {
			t.Run(fmt.Sprintf("spin=%v/w=%d", spin, w), func(t *testing.T) {
				defer func(s, m time.Duration) { Spin, MinSpin = s, m }(Spin, MinSpin)
				Spin, MinSpin = spin, min(spin, MinSpin)
				g := New(w, nil)
				defer g.Close()
				runPhases(g, w, 3000)
			})
		}
	}
}

// runPhases runs phases Runs on g's w workers and panics unless every
// phase ran each worker exactly once and Run returned only after all had
// finished (each phase reads what the last one wrote). Workers are made
// uneven by yielding now and then.
func runPhases(g *Gang, w, phases int) {
	counts := make([]int, w)
	var ran atomic.Int64
	for phase := range phases {
		g.Run(func(i int) {
			if counts[i] != phase {
				panic(fmt.Sprintf("worker %d: phase %d saw %d runs", i, phase, counts[i]))
			}
			counts[i]++
			ran.Add(1)
			if phase%7 == i {
				runtime.Gosched()
			}
		})
		if got := ran.Load(); got != int64((phase+1)*w) {
			panic(fmt.Sprintf("phase %d: Run returned after %d calls, want %d", phase, got, (phase+1)*w))
		}
	}
}

// TestPanicRaisedAfterAll: a worker's panic comes out of Run, once, after
// every worker returned, and the gang still works.
func TestPanicRaisedAfterAll(t *testing.T) {
	g := New(3, nil)
	defer g.Close()
	var done atomic.Int64
	func() {
		defer func() {
			if e := recover(); e != "boom 2" {
				t.Fatalf("recovered %v, want boom 2", e)
			}
			if n := done.Load(); n != 2 {
				t.Fatalf("%d workers done when the panic came out, want 2", n)
			}
		}()
		g.Run(func(w int) {
			if w == 2 {
				panic("boom 2")
			}
			time.Sleep(time.Millisecond)
			done.Add(1)
		})
	}()
	var n atomic.Int64
	g.Run(func(int) { n.Add(1) })
	if n.Load() != 3 {
		t.Fatalf("after a panic: %d workers ran, want 3", n.Load())
	}
}

// TestCloseStopsWorkers: the goroutines are gone after Close, also when
// the workers had parked.
func TestCloseStopsWorkers(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 20 {
		g := New(4, nil)
		g.Run(func(int) {})
		time.Sleep(2 * Spin) // let them park
		g.Close()
		g.Close() // a second Close does nothing
	}
	if n := settledGoroutines(before); n > before {
		t.Fatalf("%d goroutines after Close, %d before", n, before)
	}
}

// TestInitRunsOnWorkers: init runs once on each worker goroutine, before
// its first phase.
func TestInitRunsOnWorkers(t *testing.T) {
	var inits [4]atomic.Int64
	g := New(4, func(w int) { inits[w].Add(1) })
	defer g.Close()
	for range 10 {
		g.Run(func(w int) {
			if w > 0 && inits[w].Load() != 1 {
				panic(fmt.Sprintf("worker %d ran before its init", w))
			}
		})
	}
	if inits[0].Load() != 0 {
		t.Fatal("init ran for worker 0 (the caller)")
	}
}

// BenchmarkHandOff measures phases of about 20 µs of work on each of
// two workers: with a gang, and with a goroutine started per phase and
// joined by a WaitGroup (what the parallel BFS did before). The time per
// phase above the work is the hand-off.
func BenchmarkHandOff(b *testing.B) {
	var sink [2 * pad]uint64
	work := func(w int) {
		x := uint64(w + 1)
		for range 20000 {
			x = x*6364136223846793005 + 1
		}
		sink[w*pad/8] = x
	}
	b.Run("work-only", func(b *testing.B) {
		for b.Loop() {
			work(0)
		}
	})
	b.Run("gang", func(b *testing.B) {
		g := New(2, nil)
		defer g.Close()
		for b.Loop() {
			g.Run(work)
		}
	})
	b.Run("go+waitgroup", func(b *testing.B) {
		var wg sync.WaitGroup
		for b.Loop() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work(1)
			}()
			work(0)
			wg.Wait()
		}
	})
}

// BenchmarkPingPong measures the machine, not the gang: the round trip of
// one cache line between two threads (each waits for the other's store,
// then stores), the cost of every line the parallel search's phases pass
// from one core to the other. On the shared 2-vCPU machine of
// docs/engine-log.md it is bimodal, about 110 ns in some runs and 520 ns in
// others, as the host places the two virtual CPUs near each other or far
// apart (the slowest two-worker searches came with the far placement).
func BenchmarkPingPong(b *testing.B) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs two Ps")
	}
	type line struct {
		_ [128]byte
		v atomic.Int64
		_ [128]byte
	}
	var ping, pong line
	done := make(chan struct{})
	n := int64(b.N)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := int64(1); i <= n; i++ {
			for ping.v.Load() != i {
			}
			pong.v.Store(i)
		}
		close(done)
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	for i := int64(1); i <= n; i++ {
		ping.v.Store(i)
		for pong.v.Load() != i {
		}
	}
	<-done
}
