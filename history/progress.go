package history

import (
	"sync"
	"time"
)

// Progress is a snapshot of a running check, passed to Options.Progress.
type Progress struct {
	// Ops is the number of operations checked (failed ones excluded);
	// Linearized the most of them linearized at once so far, summed over
	// the partitions (a decided valid partition counts all its ops).
	Ops, Linearized int
	// Partitions and Done: partitions in all, and decided.
	Partitions, Done int
	// States stored by the searches so far.
	States  int64
	Seconds float64
}

// progressEvery is the least interval between two Progress calls.
const progressEvery = 100 * time.Millisecond

// tracker gathers the figures of a check's searches for Options.Progress.
// The searches call it from their poll (every pollEvery steps), on any
// worker goroutine; it calls fn at most every progressEvery. A nil tracker
// does nothing.
type tracker struct {
	fn    func(Progress)
	start time.Time
	mu    sync.Mutex
	last  time.Time
	ops   int
	parts []partFigures
	done  int
}

type partFigures struct {
	n      int // ops
	lin    int // most linearized at once
	states int64
	done   bool
}

func newTracker(fn func(Progress), parts []part, start time.Time) *tracker {
	if fn == nil {
		return nil
	}
	t := &tracker{fn: fn, start: start, last: start, parts: make([]partFigures, len(parts))}
	for i := range parts {
		t.parts[i].n = len(parts[i].ops)
		t.ops += len(parts[i].ops)
	}
	return t
}

// tick records partition i's search figures (depth: ops linearized now).
func (t *tracker) tick(i int, states int64, depth int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := &t.parts[i]
	p.states, p.lin = states, max(p.lin, depth)
	if now := time.Now(); now.Sub(t.last) >= progressEvery {
		t.last = now
		t.report(now)
	}
}

// finish records that partition i is decided (valid: all its ops linearized).
func (t *tracker) finish(i int, s *search, valid bool) {
	if t == nil || s == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := &t.parts[i]
	if p.done {
		return
	}
	p.done, p.states = true, int64(s.states)
	p.lin = max(p.lin, len(s.longest))
	if valid {
		p.lin = p.n
	}
	t.done++
}

func (t *tracker) report(now time.Time) {
	pr := Progress{Ops: t.ops, Partitions: len(t.parts), Done: t.done, Seconds: now.Sub(t.start).Seconds()}
	for _, p := range t.parts {
		pr.Linearized += p.lin
		pr.States += p.states
	}
	t.fn(pr)
}
