package zoo

import "github.com/quasar-verify/quasar/sched"

type qnode struct {
	v    int64
	next sched.Pointer[qnode]
}

// MSQueue is the Michael-Scott lock-free queue (enq/deq; deq of empty
// gives nil). With StoreLink, Enqueue links its node with a store after
// seeing tail.next == nil, instead of a CAS that re-checks it: an
// enqueue preempted between the check and the store overwrites the link
// of a concurrent enqueue, whose item is lost. (Skipping the other
// re-check of the textbook, tail == Tail after reading next, only costs
// retries: it does not break linearizability, so it is not the bug here.)
type MSQueue struct {
	head, tail sched.Pointer[qnode]
	StoreLink  bool
}

// NewMSQueue returns an empty queue (one dummy node).
func NewMSQueue(storeLink bool) *MSQueue {
	q := &MSQueue{StoreLink: storeLink}
	d := &qnode{}
	q.head.Store(d)
	q.tail.Store(d)
	return q
}

// Enqueue adds v at the tail.
func (q *MSQueue) Enqueue(v int64) {
	n := &qnode{v: v}
	for {
		t := q.tail.Load()
		next := t.next.Load()
		if next != nil {
			q.tail.CompareAndSwap(t, next) // help a lagging tail
			continue
		}
		if q.StoreLink {
			t.next.Store(n) // the bug
		} else if !t.next.CompareAndSwap(nil, n) {
			continue
		}
		q.tail.CompareAndSwap(t, n)
		return
	}
}

// Dequeue removes the head item; ok is false when the queue is empty.
func (q *MSQueue) Dequeue() (v int64, ok bool) {
	for {
		h := q.head.Load()
		t := q.tail.Load()
		next := h.next.Load()
		if next == nil {
			return 0, false
		}
		if h == t {
			q.tail.CompareAndSwap(t, next)
			continue
		}
		if q.head.CompareAndSwap(h, next) {
			return next.v, true
		}
	}
}

// Do runs enq(v) or deq().
func (q *MSQueue) Do(f string, arg any) any { return queueDo(q, f, arg) }
