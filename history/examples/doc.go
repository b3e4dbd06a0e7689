// Package examples holds small concurrent Go data structures, correct and
// deliberately broken, used to exercise the history engine end to end: the
// recorder (history/record) logs their operations, the stress harness
// (history/stress) drives them from many goroutines, and history.Check
// decides linearizability or quasi-linearizability of what was recorded.
//
//   - SegmentedQueue is the segmented queue of Afek, Korland and Yanovsky
//     ("Quasi-linearizability", OPODIS 2010): a list of segments of K slots;
//     an enqueue fills a free slot of the last segment, a dequeue removes an
//     item from any slot of the first segment that still holds items. It is
//     not linearizable (items of a segment leave in any order) but it is
//     quasi-linearizable with factor K-1 on dequeues.
//   - StarvingSegmentedQueue has a plausible "fast path" bug: a dequeue that
//     lands on an already emptied slot of a full segment gives up on that
//     segment and moves the head on, stranding the items still in it. Those
//     items are overtaken by every later dequeue (and the queue reports
//     "empty" while holding them), so no quasi factor accepts it.
//   - TreiberStack is Treiber's lock-free stack (CAS on the top pointer; Go's
//     garbage collector rules out ABA on freshly allocated nodes).
//   - RacyTreiberStack pops with a load followed by a plain store instead of
//     a compare-and-swap, so two concurrent pops can return the same element
//     (and a concurrent push can be lost).
//
// Every variant calls runtime.Gosched inside its race windows, as a
// noise-injecting scheduler would, so that a test of a few thousand
// operations on two cores exposes the bugs reliably, and the correct
// variants face the same schedules as the broken ones. Quiet turns the
// yields off (plain runs: fewer overlapping operations).
//
// Values are positive int64s; a dequeue or pop on an empty structure returns
// ok == false.
package examples
