package history

import (
	"slices"
	"strings"
)

// TotalQueueReport is the result of TotalQueue, with the fields of Jepsen's
// total-queue checker (jepsen.checker/total-queue). Multisets are lists of
// values with repetition, in a canonical order.
type TotalQueueReport struct {
	// Valid: nothing lost and nothing unexpected. As in Jepsen, duplicated
	// values are reported but do not invalidate the history.
	Valid bool
	// Attempts counts the enqueues invoked (whatever their completion),
	// Acknowledged the ok ones, OK the dequeued values that were attempted.
	Attempts     int
	Acknowledged int
	OK           int
	// Lost: acknowledged enqueues never dequeued. Unexpected: dequeued
	// values never enqueued. Duplicated: dequeued more often than
	// attempted (and attempted at least once). Recovered: dequeued values
	// whose enqueue was not acknowledged (pending, info or failed).
	Lost       []Value
	Unexpected []Value
	Duplicated []Value
	Recovered  []Value
}

// TotalQueue checks what goes in comes out, as Jepsen's total-queue
// checker does: it counts values, not orders, and is meant for histories
// that drain the queue. attempts is the multiset of the values of every
// enqueue invoked, enqueues that of the ok ones, dequeues that of the
// values returned by ok dequeues (a "drain" op that returned a list counts
// as one dequeue per element); then ok = dequeues ∩ attempts, unexpected =
// the dequeued values never attempted, duplicated = dequeues − attempts −
// unexpected, lost = enqueues − dequeues, recovered = ok − enqueues.
// Unlike Jepsen, an ok dequeue that returned null (our formats' empty
// dequeue) dequeued nothing. Operation names are those of the queue model
// (enq, enqueue, offer; deq, dequeue, poll) and "drain".
func TotalQueue(h *History) *TotalQueueReport {
	attempts, enqueues, dequeues := bag{}, bag{}, bag{}
	for i := range h.Ops {
		o := &h.Ops[i]
		switch o.F {
		case "enq", "enqueue", "offer":
			attempts.add(o.Input, 1)
			if o.Status == Ok {
				enqueues.add(o.Input, 1)
			}
		case "deq", "dequeue", "poll":
			if o.Status == Ok && !o.Output.IsNil() {
				dequeues.add(o.Output, 1)
			}
		case "drain":
			if l, ok := o.Output.List(); ok && o.Status == Ok {
				for _, v := range l {
					dequeues.add(v, 1)
				}
			}
		}
	}
	ok := dequeues.intersect(attempts)
	unexpected := bag{}
	for k, e := range dequeues {
		if _, tried := attempts[k]; !tried {
			unexpected[k] = e
		}
	}
	duplicated := dequeues.minus(attempts).minus(unexpected)
	lost := enqueues.minus(dequeues)
	recovered := ok.minus(enqueues)
	r := &TotalQueueReport{
		Attempts: attempts.count(), Acknowledged: enqueues.count(), OK: ok.count(),
		Lost: lost.list(), Unexpected: unexpected.list(), Duplicated: duplicated.list(), Recovered: recovered.list(),
	}
	r.Valid = len(r.Lost) == 0 && len(r.Unexpected) == 0
	return r
}

// bag is a multiset of values, keyed by their rendering.
type bag map[string]bagEntry

type bagEntry struct {
	v Value
	n int
}

func (b bag) add(v Value, n int) {
	e := b[v.String()]
	e.v, e.n = v, e.n+n
	b[v.String()] = e
}

func (b bag) intersect(c bag) bag {
	out := bag{}
	for k, e := range b {
		if n := min(e.n, c[k].n); n > 0 {
			out[k] = bagEntry{e.v, n}
		}
	}
	return out
}

func (b bag) minus(c bag) bag {
	out := bag{}
	for k, e := range b {
		if n := e.n - c[k].n; n > 0 {
			out[k] = bagEntry{e.v, n}
		}
	}
	return out
}

func (b bag) count() int {
	n := 0
	for _, e := range b {
		n += e.n
	}
	return n
}

// list is the multiset with repetition, ordered by rendering.
func (b bag) list() []Value {
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	var out []Value
	for _, k := range keys {
		for range b[k].n {
			out = append(out, b[k].v)
		}
	}
	return out
}
