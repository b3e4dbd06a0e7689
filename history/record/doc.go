// Package record records histories of instrumented Go code, for
// history.Check.
//
//	r := record.New(nil)
//	tok := r.Invoke(p, "enq", 3) // just before the operation starts
//	q.Enqueue(3)
//	r.Return(tok, nil)           // just after it returns (or Fail, Info)
//	h := r.History()             // or r.WriteTo(w): our JSON Lines format
//
// A Recorder is safe for concurrent use and lock-free on the hot path. Each
// event (invocation or completion) takes a ticket from one atomic counter;
// the ticket is both the event's slot in a chunked array (so appends from
// many goroutines never contend on a lock) and its tie-breaker. The event
// is stamped with the monotonic clock, in nanoseconds since New.
//
// Why the recorded order is sound. Invoke reads the clock before the
// operation starts and Return after it ended, so if operation A returned
// before B was invoked (A precedes B in real time), A's completion stamp is
// at most B's invocation stamp. The history orders events by (stamp,
// ticket) and an operation precedes another only if its completion stamp is
// strictly smaller (history.Op.Precedes): equal stamps count as concurrent,
// which can hide a violation but never invent one. The converse holds too:
// a smaller completion stamp means the clock was read at A's completion
// before it was read at B's invocation, so A ended before B began.
//
// Events are kept in memory until History or WriteTo; a recorder is meant
// for one test run (millions of operations at most).
package record
