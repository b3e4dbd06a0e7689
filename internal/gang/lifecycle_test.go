package gang

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// within runs f on a goroutine and reports whether it returned within d
// (a hang of the gang fails the test instead of the test binary), with
// what f panicked with.
func within(d time.Duration, f func()) (ok bool, panicked any) {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	select {
	case e := <-done:
		return true, e
	case <-time.After(d):
		return false, nil
	}
}

// TestOneP: with GOMAXPROCS = 1 (more workers than Ps: nobody spins), and
// with a gang made while there were 2 Ps and run on 1 (its parties spin
// while the party they wait for needs their P), every phase runs each
// worker once and Run waits for all, whether the waiter parks or spins.
func TestOneP(t *testing.T) {
	for _, late := range []bool{false, true} {
		for _, w := range []int{2, 3, 5} {
			t.Run(fmt.Sprintf("late=%v/w=%d", late, w), func(t *testing.T) {
				if late {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(w))
				} else {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
				}
				g := New(w, nil)
				defer g.Close()
				if late {
					runtime.GOMAXPROCS(1)
				}
				if g.ws[0].nospin == late {
					t.Fatalf("nospin %v, want %v", g.ws[0].nospin, !late)
				}
				ok, e := within(20*time.Second, func() { runPhases(g, w, 500) })
				if !ok || e != nil {
					t.Fatalf("returned %v, panicked %v", ok, e)
				}
			})
		}
	}
}

// TestPanicsWhileParked: with parking only (Spin = 0), a panic of worker
// 0 (the caller) and of another worker come out of Run, and the Runs
// after them and Close work.
func TestPanicsWhileParked(t *testing.T) {
	defer func(s, m time.Duration) { Spin, MinSpin = s, m }(Spin, MinSpin)
	Spin, MinSpin = 0, 0
	before := runtime.NumGoroutine()
	g := New(3, nil)
	var n atomic.Int64
	ok, e := within(20*time.Second, func() {
		for i := range 300 {
			who := i % 3
			func() {
				defer func() {
					if e := recover(); e != fmt.Sprint("boom ", who) {
						panic(fmt.Sprintf("run %d: recovered %v", i, e))
					}
				}()
				g.Run(func(w int) {
					if w == who {
						panic(fmt.Sprint("boom ", w))
					}
					n.Add(1)
				})
			}()
			g.Run(func(int) { n.Add(1) })
		}
		g.Close()
	})
	if !ok || e != nil {
		t.Fatalf("returned %v, panicked %v", ok, e)
	}
	if n.Load() != 300*5 {
		t.Errorf("%d calls, want %d", n.Load(), 300*5)
	}
	if n := settledGoroutines(before); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}

func settledGoroutines(before int) int {
	for range 400 {
		if n := runtime.NumGoroutine(); n <= before {
			return n
		}
		time.Sleep(5 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}

// TestGoexitInWorker: a worker's f that calls runtime.Goexit (t.FailNow
// on a worker, say) ends its goroutine; Run reports it (a panic) instead
// of waiting forever for that worker, and the gang still works.
func TestGoexitInWorker(t *testing.T) {
	for _, spin := range []time.Duration{0, Spin} {
		t.Run(fmt.Sprint("spin=", spin), func(t *testing.T) {
			defer func(s, m time.Duration) { Spin, MinSpin = s, m }(Spin, MinSpin)
			Spin, MinSpin = spin, min(spin, MinSpin)
			before := runtime.NumGoroutine()
			var inits atomic.Int64
			g := New(3, func(int) { inits.Add(1) })
			ok, e := within(10*time.Second, func() {
				g.Run(func(w int) {
					if w == 1 {
						runtime.Goexit()
					}
				})
			})
			if !ok {
				t.Fatal("Run did not return after a worker's Goexit")
			}
			if s, _ := e.(string); !strings.Contains(s, "Goexit") {
				t.Fatalf("Run panicked with %v, want a Goexit report", e)
			}
			var n atomic.Int64
			ok, e = within(10*time.Second, func() {
				for range 100 {
					g.Run(func(int) { n.Add(1) })
				}
				g.Close()
			})
			if !ok || e != nil || n.Load() != 300 {
				t.Fatalf("after the Goexit: returned %v, panicked %v, %d calls (want 300)", ok, e, n.Load())
			}
			if inits.Load() != 3 {
				t.Errorf("%d inits, want 3 (the new goroutine of worker 1 runs it too)", inits.Load())
			}
			if n := settledGoroutines(before); n > before {
				t.Errorf("%d goroutines after Close, %d before", n, before)
			}
		})
	}
}

// TestRunAfterClose: a Run after Close panics rather than waiting forever
// for workers that are gone.
func TestRunAfterClose(t *testing.T) {
	g := New(2, nil)
	g.Run(func(int) {})
	g.Close()
	ok, e := within(10*time.Second, func() { g.Run(func(int) {}) })
	if !ok {
		t.Fatal("Run after Close did not return")
	}
	if e == nil {
		t.Fatal("Run after Close did not panic")
	}
}

// TestGoexitInCaller: worker 0's f calling runtime.Goexit ends the
// caller's goroutine in Run; its deferred Close still stops the workers
// (those that had not started that Run's f yet skip it).
func TestGoexitInCaller(t *testing.T) {
	before := runtime.NumGoroutine()
	var ran atomic.Int64
	ok, _ := within(10*time.Second, func() {
		g := New(3, nil)
		defer g.Close()
		g.Run(func(w int) {
			if w == 0 {
				runtime.Goexit()
			}
			time.Sleep(time.Millisecond)
			ran.Add(1)
		})
		t.Error("Run returned after its caller's Goexit")
	})
	if !ok {
		t.Fatal("Close did not return after the caller's Goexit")
	}
	if ran.Load() > 2 {
		t.Errorf("%d workers finished their f, want at most 2", ran.Load())
	}
	if n := settledGoroutines(before); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}
