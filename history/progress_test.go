package history

import (
	"context"
	"testing"
	"time"
)

// TestTracker: the figures of Options.Progress, summed over partitions; a
// decided valid partition counts all its ops; calls are at least
// progressEvery apart (the test moves the clock of the last call back
// instead of sleeping).
func TestTracker(t *testing.T) {
	var got []Progress
	start := time.Now()
	parts := []part{{ops: make([]Op, 10)}, {ops: make([]Op, 5)}}
	tr := newTracker(func(p Progress) { got = append(got, p) }, parts, start)
	tr.tick(0, 100, 3)
	if len(got) != 0 {
		t.Fatalf("called before %v: %+v", progressEvery, got)
	}
	tr.last = start.Add(-progressEvery)
	tr.tick(1, 50, 2)
	if len(got) != 1 {
		t.Fatalf("not called after %v", progressEvery)
	}
	if p := got[0]; p.Ops != 15 || p.Linearized != 5 || p.Partitions != 2 || p.Done != 0 || p.States != 150 {
		t.Fatalf("%+v", p)
	}
	tr.tick(0, 120, 1) // the most linearized so far stays 3
	s := &search{states: 60}
	tr.finish(1, s, true)
	tr.finish(1, s, true) // once
	tr.last = start.Add(-progressEvery)
	tr.tick(0, 130, 2)
	if p := got[len(got)-1]; len(got) != 2 || p.Linearized != 3+5 || p.Done != 1 || p.States != 130+60 {
		t.Fatalf("%d calls, last %+v", len(got), p)
	}
	var none *tracker
	none.tick(0, 1, 1)
	none.finish(0, s, false)
}

// TestProgressOption: a search reports through its tracker from its polls
// (every pollEvery steps); the test puts the tracker's last report in the
// past so that the first poll reports, without waiting.
func TestProgressOption(t *testing.T) {
	h := linearizableQueue(3000, 4, 7)
	var calls []Progress
	opt := Options{Progress: func(p Progress) { calls = append(calls, p) }}
	ops, err := happened(h.Ops)
	if err != nil {
		t.Fatal(err)
	}
	parts := partition(ops, Queue(), opt)
	mc, err := compile(Queue(), parts[0].ops, opt)
	if err != nil {
		t.Fatal(err)
	}
	s := newSearch(mc, parts[0].ops, nil)
	s.prog = newTracker(opt.Progress, parts, time.Now().Add(-time.Second))
	s.prog.last = s.prog.start
	if !s.run() {
		t.Fatal("no linearization")
	}
	if len(calls) == 0 || calls[0].Ops != 3000 || calls[0].Linearized == 0 || calls[0].States == 0 {
		t.Fatalf("calls %+v", calls)
	}
	res, err := Check(context.Background(), h, Queue(), opt)
	if err != nil || res.Verdict.String() != "valid" {
		t.Fatalf("%v %v", res.Verdict, err)
	}
}
