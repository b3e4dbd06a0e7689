package csp

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

// TestStorePanicNoHang: a store that panics in the middle of a search
// (internHook in the sequential step, insertHook in a parallel round)
// ends the search with an internal error instead of leaving the
// process's lock held (the next step used to wait on it forever), and
// every later search of the same process returns that error at once
// instead of probing the half-updated store.
func TestStorePanicNoHang(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(r int) { parRound = r }(parRound)
	parRound = 64
	for _, workers := range []int{1, 2} {
		mk := denseSwitchModel(t, -1) // 4096 states
		sys := mk()
		armed := true
		if workers == 1 {
			internHook = func(n int) {
				if armed && n >= 50 {
					panic("store failure")
				}
			}
		} else {
			var calls atomic.Int32
			insertHook = func(q int) {
				// (The round holds the process's lock: no NumStates.)
				if calls.Add(1) > 6 && armed && q == 0 {
					panic("store failure")
				}
			}
		}
		for run := range 2 {
			res, err := exploreWithin(t, sys, workers, 20*time.Second)
			if err == nil && (res == nil || res.Err == nil) {
				t.Errorf("workers %d run %d: no error (%v)", workers, run, res)
			} else if err == nil {
				err = res.Err
			}
			if err != nil && !strings.Contains(err.Error(), "store failure") {
				t.Errorf("workers %d run %d: %v, want the first failure's error", workers, run, err)
			}
			t.Logf("workers %d run %d: %v", workers, run, err)
			// The second run, the hook disarmed, must not use the
			// broken store either.
			armed = false
		}
		internHook, insertHook = nil, nil
	}
}

// exploreWithin explores sys in a goroutine and fails the test if it
// does not end within d; a panic out of Explore is returned as an error.
func exploreWithin(t *testing.T, sys *Proc, workers int, d time.Duration) (res *Result, err error) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if e := recover(); e != nil {
				err = fmt.Errorf("panic: %v", e)
			}
		}()
		res, err = Explore(context.Background(), sys, Options{Workers: workers, Limits: lts.Limits{MaxStates: 100000}})
	}()
	select {
	case <-done:
		return res, err
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		t.Fatalf("workers %d: the search did not end within %v\n%s", workers, d, buf[:runtime.Stack(buf, true)])
		return nil, nil
	}
}
