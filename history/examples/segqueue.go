package examples

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
)

// Slot states. A slot goes from slotFree to a value (> 0) to slotTaken and
// never back: the monotonicity is what makes the double collect of Dequeue
// a valid snapshot.
const (
	slotFree  int64 = 0
	slotTaken int64 = -1
)

type segment struct {
	slots []atomic.Int64
	next  atomic.Pointer[segment]
}

func newSegment(k int) *segment { return &segment{slots: make([]atomic.Int64, k)} }

// SegmentedQueue is Afek, Korland and Yanovsky's segmented queue with
// segments of K slots. It is safe for concurrent use. Invariants: a segment
// gets a successor only after all its slots were filled, so all items of a
// segment are enqueued before any item of the next; the head moves past a
// segment only once every slot of it is taken. Hence a dequeue removes one
// of the (at most K) items of the first segment that still holds any: the
// queue is quasi-linearizable with factor K-1 on dequeues.
type SegmentedQueue struct {
	k        int
	head     atomic.Pointer[segment]
	tail     atomic.Pointer[segment]
	starving bool
	quiet    bool
}

// NewSegmentedQueue returns an empty correct segmented queue with segments
// of k slots (k < 1 is taken as 1).
func NewSegmentedQueue(k int) *SegmentedQueue { return newSegQueue(k, false) }

// NewStarvingSegmentedQueue returns an empty segmented queue with the
// starvation bug described in the package documentation.
func NewStarvingSegmentedQueue(k int) *SegmentedQueue { return newSegQueue(k, true) }

func newSegQueue(k int, starving bool) *SegmentedQueue {
	if k < 1 {
		k = 1
	}
	q := &SegmentedQueue{k: k, starving: starving}
	s := newSegment(k)
	q.head.Store(s)
	q.tail.Store(s)
	return q
}

// Quiet turns off the yields inside the race windows (see the package
// doc); call it before the queue is shared. It returns q.
func (q *SegmentedQueue) Quiet() *SegmentedQueue { q.quiet = true; return q }

func (q *SegmentedQueue) yield() {
	if !q.quiet {
		runtime.Gosched()
	}
}

// K is the segment size.
func (q *SegmentedQueue) K() int { return q.k }

// Enqueue adds v, which must be positive (0 and -1 mark slot states).
func (q *SegmentedQueue) Enqueue(v int64) {
	if v <= 0 {
		panic("examples: SegmentedQueue.Enqueue of a non-positive value")
	}
	for {
		seg := q.tail.Load()
		start := rand.IntN(q.k)
		for i := range q.k {
			s := &seg.slots[(start+i)%q.k]
			if s.Load() == slotFree {
				q.yield() // race window: another enqueuer may fill the slot
				if s.CompareAndSwap(slotFree, v) {
					return
				}
			}
		}
		// seg is full: append a successor (or find the one another thread
		// appended) and help move the tail.
		next := seg.next.Load()
		if next == nil {
			n := newSegment(q.k)
			if seg.next.CompareAndSwap(nil, n) {
				next = n
			} else {
				next = seg.next.Load()
			}
		}
		q.tail.CompareAndSwap(seg, next)
	}
}

// Dequeue removes and returns an item of the first segment that holds one,
// or ok == false when the queue is empty.
func (q *SegmentedQueue) Dequeue() (v int64, ok bool) {
	for {
		seg := q.head.Load()
		start := rand.IntN(q.k)
		if q.starving && seg.slots[start].Load() == slotTaken && full(seg) {
			// The bug: "this slot is spent and the segment is full, so the
			// segment is probably drained" — without checking the other
			// slots. Items still in seg are stranded for good.
			if next := seg.next.Load(); next != nil {
				q.head.CompareAndSwap(seg, next)
				continue
			}
		}
		v, free, took := q.take(seg, start)
		if took {
			return v, true
		}
		if free > 0 {
			// seg is the last segment and holds no item in this collect.
			// A second identical collect proves that there was an instant
			// between the two at which every slot was free or taken, and
			// no successor existed (it is created only once seg is full):
			// the queue was empty then.
			if again, ok := collectFree(seg); ok && again == free {
				return 0, false
			}
			continue
		}
		// Every slot is taken (final): seg is drained.
		next := seg.next.Load()
		if next == nil {
			return 0, false // drained and no successor at this instant: empty
		}
		q.head.CompareAndSwap(seg, next)
	}
}

// take scans seg from start and removes the first item it finds. Without an
// item it returns the number of free slots seen.
func (q *SegmentedQueue) take(seg *segment, start int) (v int64, free int, took bool) {
	k := len(seg.slots)
	for i := 0; i < k; i++ {
		s := &seg.slots[(start+i)%k]
		x := s.Load()
		for x > 0 {
			q.yield() // race window: another dequeuer may take it
			if s.CompareAndSwap(x, slotTaken) {
				return x, 0, true
			}
			x = s.Load()
		}
		if x == slotFree {
			free++
		}
	}
	return 0, free, false
}

// collectFree counts the free slots of seg; ok is false if it sees an item.
func collectFree(seg *segment) (free int, ok bool) {
	for i := range seg.slots {
		switch x := seg.slots[i].Load(); {
		case x > 0:
			return 0, false
		case x == slotFree:
			free++
		}
	}
	return free, true
}

func full(seg *segment) bool {
	for i := range seg.slots {
		if seg.slots[i].Load() == slotFree {
			return false
		}
	}
	return true
}
