package zoo

import "github.com/quasar-verify/quasar/sched"

// CountingQueue is a lock-based queue (enq, deq, size) that keeps its size
// in a separate atomic counter updated after the lock is released: size()
// can see a dequeue's decrement before the matching enqueue's increment
// and return -1, which no sequential queue does.
type CountingQueue struct {
	mu    sched.Mutex
	items []int64
	n     sched.Int64
}

// Do runs enq(v), deq() or size().
func (q *CountingQueue) Do(f string, arg any) any {
	switch f {
	case "enq":
		q.mu.Lock()
		q.items = append(q.items, toInt(arg))
		q.mu.Unlock()
		q.n.Add(1)
		return nil
	case "deq":
		q.mu.Lock()
		if len(q.items) == 0 {
			q.mu.Unlock()
			return nil
		}
		v := q.items[0]
		q.items = q.items[1:]
		q.mu.Unlock()
		q.n.Add(-1)
		return v
	}
	return q.n.Load()
}

// BlockingQueue is a queue whose deq waits until an item is there (a
// mutex and a condition variable). With LostWakeup, a dequeuer announces
// itself as waiting after releasing the lock and then waits without
// re-checking, while enq signals only if it sees a waiter: an enq in the
// window is never seen by the dequeuer, which sleeps forever.
type BlockingQueue struct {
	mu         sched.Mutex
	nonEmpty   sched.Cond
	items      []int64
	waiting    sched.Int64
	LostWakeup bool
}

// NewBlockingQueue returns an empty queue.
func NewBlockingQueue(lostWakeup bool) *BlockingQueue {
	q := &BlockingQueue{LostWakeup: lostWakeup}
	q.nonEmpty.L = &q.mu
	return q
}

// Do runs enq(v) or deq() (which blocks while the queue is empty).
func (q *BlockingQueue) Do(f string, arg any) any {
	if f == "enq" {
		q.mu.Lock()
		q.items = append(q.items, toInt(arg))
		if !q.LostWakeup || q.waiting.Load() > 0 {
			q.nonEmpty.Signal()
		}
		q.mu.Unlock()
		return nil
	}
	q.mu.Lock()
	if q.LostWakeup && len(q.items) == 0 {
		q.mu.Unlock()
		q.waiting.Add(1) // the window: an enq now sees no waiter
		q.mu.Lock()
		q.nonEmpty.Wait() // the bug: no re-check of the queue first
		q.waiting.Add(-1)
	}
	for len(q.items) == 0 {
		q.nonEmpty.Wait()
	}
	v := q.items[0]
	q.items = q.items[1:]
	q.mu.Unlock()
	return v
}
