// Package zoo holds concurrent objects written on the sched API, correct
// and buggy, with the tests that find the bugs by systematic exploration
// (package sched): the Treiber stack and its racy pop, the segmented queue
// (quasi-linearizable) and its starving variant (an item is overtaken
// without bound: not quasi-linearizable at any factor), a Michael-Scott queue whose enqueue links with a
// store instead of a CAS, a queue whose size counter is not linearizable,
// and a blocking queue with a lost wake-up. Each type implements
// stress.Object (Do), so the same objects run under history/stress.
//
// Objects are deterministic, as sched requires: the segmented queue's
// random start slot of history/examples is a shared rotating counter here,
// advanced by a marked step at each scan, so the start slot is a function
// of the schedule and a replay reproduces it.
package zoo

func toInt(arg any) int64 {
	switch v := arg.(type) {
	case int:
		return int64(v)
	case int64:
		return v
	}
	return 0
}

// queueDo runs enq(v) or deq() on a queue: deq of an empty queue is null.
func queueDo(q interface {
	Enqueue(int64)
	Dequeue() (int64, bool)
}, f string, arg any) any {
	if f == "enq" {
		q.Enqueue(toInt(arg))
		return nil
	}
	if v, ok := q.Dequeue(); ok {
		return v
	}
	return nil
}
