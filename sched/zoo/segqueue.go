package zoo

import "github.com/quasar-verify/quasar/sched"

const (
	slotFree  int64 = 0
	slotTaken int64 = -1
)

type segment struct {
	slots []sched.Int64
	next  sched.Pointer[segment]
}

// SegQueue is Afek, Korland and Yanovsky's segmented queue with segments
// of K slots (history/examples.SegmentedQueue on the sched API; the
// random start slot is a rotating counter, so runs are deterministic). It
// is quasi-linearizable with factor K-1 on dequeues.
type SegQueue struct {
	k          int
	head, tail sched.Pointer[segment]
	rot        sched.Int64
}

// NewSegQueue returns an empty queue with segments of k slots (k >= 1).
func NewSegQueue(k int) *SegQueue {
	k = max(k, 1)
	q := &SegQueue{k: k}
	s := &segment{slots: make([]sched.Int64, k)}
	q.head.Store(s)
	q.tail.Store(s)
	return q
}

func (q *SegQueue) start() int { return int(uint64(q.rot.Add(1)) % uint64(q.k)) }

// Enqueue adds v > 0.
func (q *SegQueue) Enqueue(v int64) {
	for {
		seg := q.tail.Load()
		st := q.start()
		for i := range q.k {
			s := &seg.slots[(st+i)%q.k]
			if s.Load() == slotFree && s.CompareAndSwap(slotFree, v) {
				return
			}
		}
		next := seg.next.Load()
		if next == nil {
			n := &segment{slots: make([]sched.Int64, q.k)}
			if seg.next.CompareAndSwap(nil, n) {
				next = n
			} else {
				next = seg.next.Load()
			}
		}
		q.tail.CompareAndSwap(seg, next)
	}
}

// Dequeue removes an item of the first segment holding one; ok is false
// when the queue is empty.
func (q *SegQueue) Dequeue() (v int64, ok bool) {
	for {
		seg := q.head.Load()
		st := q.start()
		free := 0
		for i := range q.k {
			s := &seg.slots[(st+i)%q.k]
			x := s.Load()
			for x > 0 {
				if s.CompareAndSwap(x, slotTaken) {
					return x, true
				}
				x = s.Load()
			}
			if x == slotFree {
				free++
			}
		}
		if free > 0 {
			if again, ok := collectFree(seg); ok && again == free {
				return 0, false
			}
			continue
		}
		next := seg.next.Load()
		if next == nil {
			return 0, false
		}
		q.head.CompareAndSwap(seg, next)
	}
}

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

// Do runs enq(v) or deq().
func (q *SegQueue) Do(f string, arg any) any { return queueDo(q, f, arg) }
