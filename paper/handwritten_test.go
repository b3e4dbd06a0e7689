package paper

import (
	"context"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/internal/budget"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/models"
	"github.com/quasar-verify/quasar/pipeline"
)

// The implementation of Table 1's `segqueue qf=1 seg=3 track=1` (Impl()
// of models/lib/segqueue.csp.tmpl: two threads, segments of K = 2 slots,
// values 1..2) written by hand in Go: each guarded transition of the
// model as code, a state packed into a uint64, the swap of the two
// threads as the symmetry, an open-addressing set. It is an independent
// oracle for the engine's state and transition counts of this model,
// and BenchmarkHandWrittenSegQueue measures how fast code written for
// the model explores it (docs/engine-log.md, "The short rows, fourth pass").

const (
	hwK    = 2
	hwNSEG = 3
	hwCAP  = hwK * hwNSEG
)

// A thread's control state (the model's process terms).
const (
	hwThread = iota // Enq(t) [] Deq(t)
	hwEnq
	hwEnqCas
	hwDeq
	hwDeqCas
)

type hwState struct {
	slot [hwCAP]int8
	enqc [hwNSEG]int8
	deqc [hwNSEG]int8
	tail int8
	es   [2]int8
	ds   [2]int8
	ctl  [2]int8
}

func (s *hwState) key() uint64 {
	var k uint64
	for _, v := range s.slot {
		k = k<<2 | uint64(v)
	}
	for _, v := range s.enqc {
		k = k<<2 | uint64(v)
	}
	for _, v := range s.deqc {
		k = k<<2 | uint64(v)
	}
	k = k<<2 | uint64(s.tail)
	for t := 0; t < 2; t++ {
		k = k<<3 | uint64(s.es[t]+1)
		k = k<<2 | uint64(s.ds[t]+1)
		k = k<<3 | uint64(s.ctl[t])
	}
	return k
}

func (s hwState) swapped() hwState {
	s.es[0], s.es[1] = s.es[1], s.es[0]
	s.ds[0], s.ds[1] = s.ds[1], s.ds[0]
	s.ctl[0], s.ctl[1] = s.ctl[1], s.ctl[0]
	return s
}

// hwSuccessors appends the successors of s, one per enabled transition.
func hwSuccessors(s *hwState, out []hwState) []hwState {
	for t := 0; t < 2; t++ {
		next := func(ctl int8) hwState {
			n := *s
			n.ctl[t] = ctl
			return n
		}
		switch s.ctl[t] {
		case hwThread, hwEnq, hwDeq:
			if s.ctl[t] != hwDeq { // tau{es[t] = tail;} -> EnqCas(t)
				n := next(hwEnqCas)
				n.es[t] = s.tail
				out = append(out, n)
			}
			if s.ctl[t] != hwEnq { // tau{ds[t] = 0;} -> DeqCas(t)
				n := next(hwDeqCas)
				n.ds[t] = 0
				out = append(out, n)
			}
		case hwEnqCas:
			tl := s.tail
			if s.es[t] == tl && s.enqc[tl] < hwK {
				for v := int8(1); v <= 2; v++ {
					one := false
					for _, x := range s.slot {
						one = one || x == 1
					}
					if v == 1 && one {
						continue
					}
					n := next(hwThread)
					n.slot[tl*hwK+s.enqc[tl]] = v
					n.enqc[tl]++
					n.es[t] = -1
					out = append(out, n)
				}
			}
			full := s.es[t] == tl && s.enqc[tl] == hwK
			if full && tl < hwNSEG-1 {
				n := next(hwEnq)
				n.tail++
				out = append(out, n)
			}
			if full && s.deqc[tl] == hwK && tl == 0 {
				n := next(hwEnq)
				n.enqc[0], n.deqc[0] = 0, 0
				out = append(out, n)
			}
			if full && tl == hwNSEG-1 && !(s.deqc[tl] == hwK && tl == 0) {
				out = append(out, next(hwEnq))
			}
			if s.es[t] != tl {
				out = append(out, next(hwEnq))
			}
		case hwDeqCas:
			if s.ds[t] == 0 {
				for i := range 2 {
					for v := int8(1); v <= 2; v++ {
						if s.slot[i] == v {
							n := next(hwThread)
							n.slot[i] = 0
							n.deqc[i/hwK]++
							n.ds[t] = -1
							out = append(out, n)
						}
					}
				}
			}
			if s.ds[t] == 0 && s.deqc[0] == hwK && s.tail > 0 {
				n := next(hwDeq)
				copy(n.slot[:], s.slot[hwK:])
				n.slot[hwCAP-2], n.slot[hwCAP-1] = 0, 0
				n.enqc = [hwNSEG]int8{s.enqc[1], s.enqc[2], 0}
				n.deqc = [hwNSEG]int8{s.deqc[1], s.deqc[2], 0}
				for u := range 2 {
					if n.es[u] >= 0 {
						n.es[u]--
					}
					if n.ds[u] >= 0 {
						n.ds[u]--
					}
				}
				n.tail--
				out = append(out, n)
			}
			if s.ds[t] == 0 && s.deqc[0] == s.enqc[0] && s.tail == 0 {
				n := next(hwThread)
				n.ds[t] = -1
				out = append(out, n)
			}
			if s.ds[t] == 0 && s.deqc[0] == s.enqc[0] && s.tail > 0 && s.deqc[0] < hwK {
				out = append(out, next(hwDeq))
			}
			if s.ds[t] != 0 {
				out = append(out, next(hwDeq))
			}
		}
	}
	return out
}

// hwSet is a set of uint64 keys, linear probing, doubling at half load.
type hwSet struct {
	slots []uint64 // key + 1; 0 is empty
	n     int
}

func (h *hwSet) add(k uint64) bool {
	if 2*(h.n+1) > len(h.slots) {
		old := h.slots
		h.slots, h.n = make([]uint64, max(256, 2*len(old))), 0
		for _, o := range old {
			if o != 0 {
				h.add(o - 1)
			}
		}
	}
	m := uint64(len(h.slots) - 1)
	for i := (k * 0x9E3779B97F4A7C15) >> 40 & m; ; i = (i + 1) & m {
		switch h.slots[i] {
		case 0:
			h.slots[i] = k + 1
			h.n++
			return true
		case k + 1:
			return false
		}
	}
}

// hwExplore explores Impl() breadth-first and returns its states (orbits
// under the thread swap, with sym) and transitions.
func hwExplore(sym bool) (states, transitions int) {
	rep := func(s hwState) (hwState, uint64) {
		k := s.key()
		if sym {
			if w := s.swapped(); w.key() < k {
				return w, w.key()
			}
		}
		return s, k
	}
	var seen hwSet
	init, k := rep(hwState{es: [2]int8{-1, -1}, ds: [2]int8{-1, -1}})
	seen.add(k)
	queue := []hwState{init}
	var buf []hwState
	for i := 0; i < len(queue); i++ {
		buf = hwSuccessors(&queue[i], buf[:0])
		for _, n := range buf {
			transitions++
			if r, k := rep(n); seen.add(k) {
				queue = append(queue, r)
			}
		}
	}
	return seen.n, transitions
}

// TestHandWrittenSegQueue: the engine's counts of Impl() (its deadlock
// check, with and without the symmetry, with one worker and two) equal
// the hand-written explorer's.
func TestHandWrittenSegQueue(t *testing.T) {
	_, src, err := models.Generate("segqueue", map[string]int{"qf": 1, "seg": 3, "track": 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, sym := range []bool{false, true} {
		states, transitions := hwExplore(sym)
		for _, workers := range []int{1, 2} {
			rep, err := pipeline.Source(context.Background(), "segqueue.csp", src, pipeline.Options{Workers: workers, Assert: "Impl() deadlockfree", NoSymmetry: !sym})
			if err != nil {
				t.Fatal(err)
			}
			a := rep.Assertions[0]
			if a.Verdict != lts.Valid || a.Stats.States != int64(states) || a.Stats.Transitions != int64(transitions) {
				t.Errorf("symmetry %v, %d workers: the engine %v with %d states, %d transitions; by hand %d states, %d transitions",
					sym, workers, a.Verdict, a.Stats.States, a.Stats.Transitions, states, transitions)
			}
		}
		t.Logf("symmetry %v: %d states, %d transitions", sym, states, transitions)
	}
}

// BenchmarkHandWrittenSegQueue times hwExplore with the symmetry as
// BenchmarkShortRows times a row: from a collected heap, with the
// collector tuned as for a search, the median of the runs ("ms").
func BenchmarkHandWrittenSegQueue(b *testing.B) {
	defer budget.TuneGC(1 << 30)()
	var times []float64
	for b.Loop() {
		runtime.GC()
		start := time.Now()
		hwExplore(true)
		times = append(times, time.Since(start).Seconds())
	}
	sort.Float64s(times)
	b.ReportMetric(times[len(times)/2]*1e3, "ms")
}
