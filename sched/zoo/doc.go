// Package zoo holds concurrent objects written on the sched API, correct
// and buggy, with the tests that find the bugs by systematic exploration
// (package sched): the Treiber stack and its racy pop, the segmented queue
// (quasi-linearizable), a Michael-Scott queue whose enqueue links with a
// store instead of a CAS, a queue whose size counter is not linearizable,
// and a blocking queue with a lost wake-up. Each type implements
// stress.Object (Do), so the same objects run under history/stress.
//
// Objects are deterministic, as sched requires: the segmented queue's
// random start slot of history/examples is a rotating counter here.
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
