package sched

import (
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/history/stress"
)

// counter is a racy counter: inc loads and stores (two steps), get loads.
type counter struct {
	n  Int64
	mu Mutex
}

func (c *counter) Do(f string, _ any) any {
	switch f {
	case "inc":
		c.n.Store(c.n.Load() + 1)
	case "locked":
		c.mu.Lock()
		defer c.mu.Unlock()
		c.n.Store(c.n.Load() + 1)
	case "spin":
		for c.n.Load() == 0 {
		}
	}
	return c.n.Load()
}

// TestSleepSetsReduce: on independent steps (threads touching their own
// variables) sleep sets explore one execution per trace; on a shared one
// they explore fewer than plain DFS and still find the lost update.
func TestSleepSetsReduce(t *testing.T) {
	cfg := Config{New: func() stress.Object { return stepper{} }, Model: nopModel{}, Bound: Unbounded}
	plain, err := Explore(cfg, steps(2, 3))
	if err != nil {
		t.Fatal(err)
	}
	cfg.SleepSets = true
	ss, err := Explore(cfg, steps(2, 3))
	if err != nil {
		t.Fatal(err)
	}
	// Yield conflicts with everything: no reduction is allowed.
	if plain.Stats.Complete != 20 || ss.Stats.Complete != 20 {
		t.Fatalf("yield steps: %d and %d complete executions, want 20 and 20", plain.Stats.Complete, ss.Stats.Complete)
	}
	newC := func() stress.Object { return &counter{} }
	test := stress.Test{{{F: "inc"}}, {{F: "inc"}}}
	var execs [2]int
	for i, sleep := range []bool{false, true} {
		res, err := Explore(Config{New: newC, Bound: Unbounded, SleepSets: sleep, NoMinimize: true}, test)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil || res.Failure.Kind != "not linearizable" {
			t.Fatalf("sleep=%v: lost update not found: %s", sleep, res.Stats)
		}
		execs[i] = res.Stats.Executions
	}
	// Exhaustive comparison on a correct test: loads commute, so the
	// C(4,2) = 6 interleavings of two threads of two gets are one trace.
	test = stress.Test{{{F: "get"}, {F: "get"}}, {{F: "get"}, {F: "get"}}}
	var full [2]Stats
	for i, sleep := range []bool{false, true} {
		res, err := Explore(Config{New: newC, Bound: Unbounded, SleepSets: sleep}, test)
		if err != nil || res.Failure != nil {
			t.Fatalf("sleep=%v: %v %v", sleep, err, res.Failure)
		}
		full[i] = res.Stats
	}
	if full[0].Complete != 6 || full[1].Complete != 1 {
		t.Fatalf("sleep sets: %s\nplain: %s", full[1], full[0])
	}
	t.Logf("plain %s\nsleep %s", full[0], full[1])
}

func TestBadInputNoPanic(t *testing.T) {
	newC := func() stress.Object { return &counter{} }
	one := stress.Test{{{F: "inc"}}}
	bad := []struct {
		cfg  Config
		test stress.Test
	}{
		{Config{}, one},
		{Config{New: newC}, nil},
		{Config{New: newC}, make(stress.Test, 65)},
		{Config{New: newC, Bound: -2}, one},
		{Config{New: newC, Bound: 1, SleepSets: true}, one},
		{Config{New: newC, Strategy: 9}, one},
		{Config{New: newC}, stress.Test{{{F: ""}}}},
	}
	for i, b := range bad {
		if _, err := Explore(b.cfg, b.test); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	for _, s := range []string{"x", "0x", "0x0", "-1", "64", "0,,1", "0@a", "0@1.0", "0@0/5", "1x9999999999"} {
		if _, err := Replay(Config{New: newC}, one, s); err == nil {
			t.Errorf("schedule %q: no error", s)
		}
	}
	// A schedule naming a thread that is not runnable is an error too.
	if _, err := Replay(Config{New: newC}, one, "1"); err == nil {
		t.Error("thread 1 of a one-thread test: no error")
	}
	for _, s := range []string{"", "0x3,1x2,0", "1x2,0@0.1/-/0", "3@-"} {
		p, err := ParseSchedule(s)
		if err != nil || p.String() != s {
			t.Errorf("round trip %q: %q, %v", s, p.String(), err)
		}
	}
}

// TestAbortAndLivelock: a spinning thread exceeds MaxSteps and is reported
// as a livelock; the aborted goroutines exit cleanly, deferred Unlocks
// included, and later runs are unaffected.
func TestAbortAndLivelock(t *testing.T) {
	newC := func() stress.Object { return &counter{} }
	res, err := Explore(Config{New: newC, Model: nopModel{}, MaxSteps: 50, NoMinimize: true}, stress.Test{{{F: "spin"}}, {{F: "locked"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || res.Failure.Kind != "livelock" {
		t.Fatalf("want a livelock, got %+v", res.Failure)
	}
	// A deadlock aborts a thread blocked in Lock while another holds it.
	res, err = Explore(Config{New: newC, Bound: 1}, stress.Test{{{F: "locked"}, {F: "locked"}}, {{F: "locked"}}})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if !strings.Contains(res.Stats.String(), "executions") {
		t.Fatal(res.Stats.String())
	}
}
