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
// of K slots (history/examples.SegmentedQueue on the sched API). It is
// quasi-linearizable with factor K-1 on dequeues.
//
// The random start slot of history/examples is a shared rotating counter
// here: each scan of a segment (by an enqueue or a dequeue) takes the next
// value with a marked Add. So the start slot is a function of the schedule
// (the order of the scans), a replay reproduces it, and the scheduler,
// by reordering the scans of different threads, gives each scan the start
// slots that interleavings can produce.
type SegQueue struct {
	k          int
	head, tail sched.Pointer[segment]
	rot        sched.Int64
	starving   bool
}

// NewSegQueue returns an empty queue with segments of k slots (k >= 1).
func NewSegQueue(k int) *SegQueue { return newSegQueue(k, false) }

// NewStarvingSegQueue returns the segmented queue with the bug of
// history/examples.NewStarvingSegmentedQueue: a dequeue whose start slot
// is already taken in a full segment takes the segment for drained and
// moves the head on without looking at the other slots, stranding the
// items still there. They are overtaken by every later dequeue, and the
// queue reports empty while holding them: no quasi factor accepts that.
func NewStarvingSegQueue(k int) *SegQueue { return newSegQueue(k, true) }

func newSegQueue(k int, starving bool) *SegQueue {
	k = max(k, 1)
	q := &SegQueue{k: k, starving: starving}
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
		if q.starving && seg.slots[st].Load() == slotTaken && full(seg) {
			// The bug: "this slot is spent and the segment full, so it is
			// probably drained", without checking the other slots.
			if next := seg.next.Load(); next != nil {
				q.head.CompareAndSwap(seg, next)
				continue
			}
		}
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

func full(seg *segment) bool {
	for i := range seg.slots {
		if seg.slots[i].Load() == slotFree {
			return false
		}
	}
	return true
}

// Do runs enq(v) or deq().
func (q *SegQueue) Do(f string, arg any) any { return queueDo(q, f, arg) }
