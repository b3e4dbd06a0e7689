package zoo

import (
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/stress"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
	"github.com/quasar-verify/quasar/sched"
)

func c(f string, arg ...any) stress.Call {
	if len(arg) == 0 {
		return stress.Call{F: f}
	}
	return stress.Call{F: f, Arg: arg[0]}
}

type bug struct {
	name  string
	cfg   sched.Config
	test  stress.Test
	bound int    // the least preemption bound exposing the bug
	kind  string // the failure's kind
}

// bugs are the buggy objects of the zoo. Every bound is 1; the comments
// give the single preemption that exposes each bug. At bound 0 a thread
// runs until it ends or blocks, so for the non-blocking objects the
// bound-0 runs are the serial orders of the threads: sequential histories,
// linearizable for the stack and the queues (the starving queue's serial
// orders are checked FIFO in TestStarvingSerialFIFO), and the counting
// queue's derived spec is made of exactly these serial runs.
var bugs = []bug{
	{
		// p0's pop loads top (2); preempted, p1 pops 2 too (load, store)
		// and ends; p0 stores top = 1 and returns 2: 2 is popped twice.
		name:  "racy treiber",
		cfg:   sched.Config{New: func() stress.Object { return &Treiber{Racy: true} }, Model: history.Stack()},
		test:  stress.Test{{c("push", 1), c("push", 2), c("pop")}, {c("pop")}},
		bound: 1, kind: "not linearizable",
	},
	{
		// p0's enq(1) sees tail.next == nil; preempted, p1's enq(2) links
		// and ends; p0 overwrites the link: 2 is lost, p0's deqs give 1
		// and then empty although enq(2) returned before.
		name:  "ms queue store link",
		cfg:   sched.Config{New: func() stress.Object { return NewMSQueue(true) }, Model: history.Queue()},
		test:  stress.Test{{c("enq", 1), c("deq"), c("deq")}, {c("enq", 2)}},
		bound: 1, kind: "not linearizable",
	},
	{
		// p0's enq(1) pushes and unlocks; preempted before its increment,
		// p1 dequeues 1, decrements to -1 and reads size -1.
		name:  "counting queue size",
		cfg:   sched.Config{New: func() stress.Object { return &CountingQueue{} }}, // derived spec (Line-Up)
		test:  stress.Test{{c("enq", 1)}, {c("deq"), c("size")}},
		bound: 1, kind: "not linearizable",
	},
	{
		// p0's deq finds the queue empty and unlocks; preempted before it
		// announces itself, p1's enq(1) sees no waiter and does not
		// signal; p0 then waits forever: a stuck deq, a deadlock. At
		// bound 0: p1 first, enq(1) then deq returns 1; p0 first, deq
		// announces itself and blocks in Wait (a free switch), enq(1)
		// sees the waiter and signals, deq returns 1. Neither deadlocks.
		name:  "blocking queue lost wake-up",
		cfg:   sched.Config{New: func() stress.Object { return NewBlockingQueue(true) }, Model: history.Queue()},
		test:  stress.Test{{c("deq")}, {c("enq", 1)}},
		bound: 1, kind: "deadlock",
	},
	{
		// K=2; rot is the start-slot counter, each scan takes st = rot+1
		// mod 2. p1's first deq loads head, takes st = 1 (rot 1), finds
		// slot 1 free and loads it again in its scan; preempted, p0 runs:
		// enq(1) at st 0 (rot 2), enq(2) at st 1 (rot 3), enq(3) finds
		// the segment full (rot 4), links a second one and fills its
		// slot 1 (rot 5). p1 resumes, takes 1 from slot 0; its next deq
		// starts at slot 0 (rot 6), which is taken in a full segment: the
		// bug moves the head on, stranding 2. It returns 3 (rot 7), and
		// the last deq reports empty while 2 is in the queue. An empty
		// dequeue is a barrier, so no quasi factor accepts this; the
		// least bound is 1 because both serial orders are FIFO
		// (TestStarvingSerialFIFO checks them without the scheduler).
		name:  "starving segmented queue",
		cfg:   sched.Config{New: func() stress.Object { return NewStarvingSegQueue(2) }, Model: history.Queue(), Quasi: deqQuasi(1)},
		test:  starvingTest,
		bound: 1, kind: "not quasi-linearizable",
	},
}

// starvingTest exposes the starving segmented queue (K=2) with one
// preemption; the correct queue passes it (corrects).
var starvingTest = stress.Test{{c("enq", 1), c("enq", 2), c("enq", 3)}, {c("deq"), c("deq"), c("deq")}}

func TestBugsAtLeastBound(t *testing.T) {
	for _, b := range bugs {
		t.Run(b.name, func(t *testing.T) {
			cfg := b.cfg
			cfg.Bound = b.bound - 1
			res, err := sched.Explore(cfg, b.test)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure != nil || res.Stats.Bound != b.bound-1 {
				t.Fatalf("found at bound %d (completed %d): %v", b.bound-1, res.Stats.Bound, res.Failure)
			}
			cfg.Bound = b.bound
			res, err = sched.Explore(cfg, b.test)
			if err != nil {
				t.Fatal(err)
			}
			f := res.Failure
			if f == nil || f.Kind != b.kind || f.Preemptions != b.bound {
				t.Fatalf("bound %d: want a %s with %d preemptions, got %+v (%s)", b.bound, b.kind, b.bound, f, res.Stats)
			}
			t.Logf("found after %d executions; minimised:\n%s", res.Stats.Executions, f.Report())
			// The printed schedule replays the failure exactly.
			rep, err := sched.Replay(b.cfg, b.test, f.Schedule.String())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Failure == nil || rep.Failure.Kind != b.kind || rep.Failure.History.Ops == nil {
				t.Fatalf("replay of %q: %+v", f.Schedule, rep.Failure)
			}
			if rep.Stats.Executions != 1 {
				t.Fatalf("replay ran %d executions", rep.Stats.Executions)
			}
		})
	}
}

// TestBugsSleepSets: the unbounded search with sleep sets finds every bug
// too.
func TestBugsSleepSets(t *testing.T) {
	for _, b := range bugs {
		cfg := b.cfg
		cfg.Bound, cfg.SleepSets, cfg.NoMinimize = sched.Unbounded, true, true
		res, err := sched.Explore(cfg, b.test)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil || res.Failure.Kind != b.kind {
			t.Errorf("%s: sleep sets missed the bug: %s", b.name, res.Stats)
		}
	}
}

// TestBugsPCT: PCT (depth 2: one change point suffices for one
// preemption) finds every bug from a fixed seed.
func TestBugsPCT(t *testing.T) {
	for _, b := range bugs {
		cfg := b.cfg
		cfg.Strategy, cfg.Depth, cfg.Seed, cfg.Executions = sched.PCT, 2, 1, 2000
		res, err := sched.Explore(cfg, b.test)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil || res.Failure.Kind != b.kind {
			t.Errorf("%s: PCT missed the bug: %s", b.name, res.Stats)
		}
	}
}

func deqQuasi(q int) *relax.Config {
	return &relax.Config{
		Classes:  []relax.Class{{Patterns: []lts.Pattern{lts.ParsePattern("deq")}, Bound: q}},
		Barriers: []lts.Pattern{lts.ParsePattern("deq.0")},
	}
}

type correct struct {
	name string
	cfg  sched.Config
	test stress.Test
}

var corrects = []correct{
	{"treiber", sched.Config{New: func() stress.Object { return &Treiber{} }, Model: history.Stack()},
		stress.Test{{c("push", 1), c("pop")}, {c("push", 2), c("pop")}}},
	{"ms queue", sched.Config{New: func() stress.Object { return NewMSQueue(false) }, Model: history.Queue()},
		stress.Test{{c("enq", 1), c("deq")}, {c("enq", 2), c("deq")}}},
	{"counting queue without size", sched.Config{New: func() stress.Object { return &CountingQueue{} }, Model: history.Queue()},
		stress.Test{{c("enq", 1), c("deq")}, {c("enq", 2), c("deq")}}},
	{"blocking queue", sched.Config{New: func() stress.Object { return NewBlockingQueue(false) }, Model: history.Queue()},
		stress.Test{{c("deq"), c("deq")}, {c("enq", 1), c("enq", 2)}}},
	{"segmented queue K=2 at quasi factor 1", sched.Config{New: func() stress.Object { return NewSegQueue(2) }, Model: history.Queue(), Quasi: deqQuasi(1)},
		stress.Test{{c("enq", 1), c("enq", 2)}, {c("deq"), c("deq")}}},
	{"segmented queue K=2 at quasi factor 1, the starving test", sched.Config{New: func() stress.Object { return NewSegQueue(2) }, Model: history.Queue(), Quasi: deqQuasi(1)},
		starvingTest},
}

// TestCorrectAtBound2: the correct objects pass every schedule with at
// most 2 preemptions.
func TestCorrectAtBound2(t *testing.T) {
	for _, k := range corrects {
		cfg := k.cfg
		cfg.Bound = 2
		res := sched.Check(t, cfg, k.test)
		if res == nil || res.Failure != nil || res.Stats.Bound != 2 && !res.Stats.Exhausted {
			t.Errorf("%s: %+v", k.name, res)
			continue
		}
		t.Logf("%s: %s", k.name, res.Stats)
	}
}

// TestSegQueueNotLinearizable: the segmented queue (K=2) is not a FIFO
// queue: at quasi factor 0 a schedule refutes it.
func TestSegQueueNotLinearizable(t *testing.T) {
	cfg := sched.Config{New: func() stress.Object { return NewSegQueue(2) }, Model: history.Queue(), Bound: 2}
	res, err := sched.Explore(cfg, stress.Test{{c("enq", 1), c("enq", 2)}, {c("deq"), c("deq")}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatalf("not refuted: %s", res.Stats)
	}
}

// TestStarvingSerialFIFO is the independent oracle behind the starving
// queue's least bound of 1: at bound 0 a two-thread schedule runs one
// thread to its end and then the other, so the bound-0 executions of
// starvingTest are its two serial orders. Run here directly, without the
// scheduler (the marked steps are plain atomics), both give FIFO results:
// enqueues first, the dequeues return 1, 2, 3; dequeues first, all three
// find the queue empty. Histories that a FIFO queue produces
// serially are linearizable, hence quasi-linearizable at any factor.
func TestStarvingSerialFIFO(t *testing.T) {
	for _, want := range [][]any{
		{int64(1), int64(2), int64(3)}, // p0 then p1
		{nil, nil, nil},                // p1 then p0
	} {
		q := NewStarvingSegQueue(2)
		order := starvingTest
		if want[0] == nil {
			order = stress.Test{starvingTest[1], starvingTest[0]}
		}
		var got []any
		for _, calls := range order {
			for _, call := range calls {
				if r := q.Do(call.F, call.Arg); call.F == "deq" {
					got = append(got, r)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("serial order %v: dequeues gave %v, want %v", order, got, want)
		}
	}
}

// TestStarvingAnyFactor: the stranded item makes a later empty dequeue
// impossible at every quasi factor, so the violation is found at each
// factor 0..3 with one preemption and never with none.
func TestStarvingAnyFactor(t *testing.T) {
	for q := 0; q <= 3; q++ {
		cfg := sched.Config{New: func() stress.Object { return NewStarvingSegQueue(2) }, Model: history.Queue(), Quasi: deqQuasi(q), NoMinimize: true}
		res, err := sched.Explore(cfg, starvingTest)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			t.Fatalf("factor %d: found at bound 0: %s", q, res.Failure.Report())
		}
		cfg.Bound = 1
		if res, err = sched.Explore(cfg, starvingTest); err != nil {
			t.Fatal(err)
		}
		if f := res.Failure; f == nil || f.Kind != "not quasi-linearizable" || f.Preemptions != 1 {
			t.Fatalf("factor %d at bound 1: %+v (%s)", q, f, res.Stats)
		}
	}
}
