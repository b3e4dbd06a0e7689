package sched

import (
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/history"
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
	case "get2":
		c.n.Load()
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
	// Exhaustive comparison on a correct test: get2 is two loads, a1 a2
	// and b1 b2, of C(4,2) = 6 interleavings. Loads commute, but a1 and b1
	// stamp the calls and a2 and b2 the returns, and the history orders a
	// return before a call: a1 b1 and b1 a1 commute (two calls), a2 b2 and
	// b2 a2 too (two returns), nothing else. A sleeping step may end its
	// operation (unknown before it runs), so a step that stamps a call
	// wakes every thread: a1 b1 and b1 a1 are kept apart too. So the traces
	// are a1 a2 b1 b2, b1 b2 a1 a2, a1 b1 {a2,b2}, b1 a1 {a2,b2}: 4 of the
	// 6 run to the end. Before calls and returns counted, sleep sets ran
	// 1 (all loads commute) and so checked neither a→b nor b→a.
	test = stress.Test{{{F: "get2"}}, {{F: "get2"}}}
	var full [2]Stats
	for i, sleep := range []bool{false, true} {
		res, err := Explore(Config{New: newC, Bound: Unbounded, SleepSets: sleep}, test)
		if err != nil || res.Failure != nil {
			t.Fatalf("sleep=%v: %v %v", sleep, err, res.Failure)
		}
		full[i] = res.Stats
	}
	if full[0].Complete != 6 || full[1].Complete != 4 {
		t.Fatalf("sleep sets: %s\nplain: %s", full[1], full[0])
	}
	t.Logf("plain %s\nsleep %s", full[0], full[1])
}

// blindQueue is a broken queue whose deq never looks at the items: enq(n)
// stores x n times, deq(n) loads an unrelated y n times (n = 0: no marked
// step) and always returns empty. An enq that returns before a deq is
// invoked makes the history non-linearizable, but the enq's and deq's
// steps touch different variables: only the order of the enq's return and
// the deq's call distinguishes the failing runs.
type blindQueue struct{ x, y Int64 }

func (q *blindQueue) Do(f string, arg any) any {
	for range arg.(int) {
		if f == "enq" {
			q.x.Store(1)
		} else {
			q.y.Load()
		}
	}
	return nil
}

// TestSleepSetsHistories: sleep sets find the blind queue's violation
// (regression: they took the enq's and deq's steps to commute and pruned
// the failing order when DFS did not try it first), including when the
// deq is an operation without marked steps after another operation of its
// thread (its call is stamped in the quantum of that operation's last
// step).
func TestSleepSetsHistories(t *testing.T) {
	c := func(f string, n int) stress.Call { return stress.Call{F: f, Arg: n} }
	tests := []stress.Test{
		{{c("deq", 1)}, {c("enq", 1)}},
		{{c("deq", 2)}, {c("enq", 2)}},
		{{c("deq", 2), c("deq", 0)}, {c("enq", 2)}},
		{{c("enq", 2)}, {c("deq", 2), c("deq", 0)}},
	}
	for _, test := range tests {
		for _, sleep := range []bool{false, true} {
			res, err := Explore(Config{New: func() stress.Object { return &blindQueue{} }, Model: history.Queue(), Bound: Unbounded, SleepSets: sleep, NoMinimize: true}, test)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure == nil || res.Failure.Kind != "not linearizable" {
				t.Errorf("%v sleep=%v: not found: %s", test, sleep, res.Stats)
			}
		}
	}
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
