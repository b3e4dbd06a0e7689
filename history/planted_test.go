package history

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

// Planted violations. plantedQueue takes a run of an atomic FIFO queue
// (linearizableQueue: each op takes effect inside its interval, so the
// history is linearizable by construction) and plants one fault among the
// operations invoked after the first 3,000, of a kind whose violation
// follows from the definition of a queue alone:
//
//   - "swap": values a, b with enq(a) preceding enq(b) in real time,
//     dequeued by d_a preceding d_b; the two results are exchanged. Every
//     linearization enqueues a before b, so a must leave first, and the
//     only dequeue of a (d_b) follows the dequeue of b (d_a) in real time.
//   - "dup": a dequeue returns the value of a later dequeue: a value
//     enqueued once is dequeued twice, which no run of a queue does.
//   - "empty": a dequeue d returns null while a value enqueued before d
//     is invoked is dequeued only by an op invoked after d returns: the
//     value is in the queue throughout d.
//
// It returns the history and the planted op (index = ID).
func plantedQueue(n int, seed int64, kind string) (*History, int) {
	h := linearizableQueue(n, 8, seed)
	r := rand.New(rand.NewSource(seed))
	enqOf, deqOf := map[int64]int{}, map[int64]int{}
	for i, o := range h.Ops {
		if v, ok := o.Input.Int(); ok && o.F == "enq" {
			enqOf[v] = i
		}
		if v, ok := o.Output.Int(); ok && o.F == "deq" {
			deqOf[v] = i
		}
	}
	late := func(i int) bool { return i > 3000 }
	for {
		d := 3001 + r.Intn(len(h.Ops)-3101)
		o := &h.Ops[d]
		if o.F != "deq" {
			continue
		}
		switch kind {
		case "swap":
			a, ok := o.Output.Int()
			if !ok {
				continue
			}
			for k := d + 1; k < len(h.Ops); k++ { // the first later dequeue that qualifies
				b, ok := h.Ops[k].Output.Int()
				if !ok || h.Ops[k].F != "deq" || !o.Precedes(&h.Ops[k]) || !h.Ops[enqOf[a]].Precedes(&h.Ops[enqOf[b]]) {
					continue
				}
				o.Output, h.Ops[k].Output = h.Ops[k].Output, o.Output
				return h, d
			}
		case "dup":
			for k := d + 1; k < len(h.Ops); k++ {
				if _, ok := h.Ops[k].Output.Int(); ok && h.Ops[k].F == "deq" && late(k) {
					o.Output = h.Ops[k].Output
					return h, d
				}
			}
		case "empty":
			for v, e := range enqOf {
				dv, removed := deqOf[v]
				if h.Ops[e].Precedes(o) && (!removed || o.Precedes(&h.Ops[dv])) && dv != d {
					o.Output = Nil()
					return h, d
				}
			}
		}
	}
}

var plantedKinds = []string{"swap", "dup", "empty"}

// TestPlantedQueueViolation: queue histories with one fault planted late
// are not linearizable (by construction). Check says so on 12,000
// operations; Localize (on 4,000, where it is cheaper) gives a test case
// that brute force also refutes, and that holds the planted op (a "dup"
// may keep the other dequeue of the value instead).
func TestPlantedQueueViolation(t *testing.T) {
	opt := Options{Limits: lts.Limits{Timeout: 20 * time.Second}}
	for _, kind := range plantedKinds {
		for seed := int64(1); seed <= 3; seed++ {
			h, d := plantedQueue(12000, seed, kind)
			res, err := Check(context.Background(), h, Queue(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != lts.Invalid {
				t.Fatalf("%s seed %d (planted at op %d): %v %s", kind, seed, d, res.Verdict, res.Reason)
			}
		}
		h, d := plantedQueue(4000, 1, kind)
		l, err := Localize(context.Background(), h, Queue(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if l.Verdict != lts.Invalid || len(l.Undecided) > 0 {
			t.Fatalf("%s: localize %v %s (undecided %v)", kind, l.Verdict, l.Reason, l.Undecided)
		}
		tc := slices.Clone(l.Ops)
		if len(tc) > 9 {
			t.Fatalf("%s: a test case of %d ops", kind, len(tc))
		}
		if bruteForce(tc, func(order []int) bool { return refQueue(tc, order) }) {
			t.Fatalf("%s: brute force linearizes the test case\n%s", kind, dumpOps(tc))
		}
		if !slices.ContainsFunc(tc, func(o Op) bool { return o.ID == d }) && kind != "dup" {
			t.Fatalf("%s: the test case misses the planted op %d\n%s", kind, d, dumpOps(tc))
		}
	}
}

// BenchmarkPlantedQueue12k: Check and Localize on the 12,000-operation
// histories of TestPlantedQueueViolation (seed 1); before the patterns of
// queueViolation the check hit the 20 s limit.
func BenchmarkPlantedQueue12k(b *testing.B) {
	for _, kind := range plantedKinds {
		h, _ := plantedQueue(12000, 1, kind)
		opt := Options{Limits: lts.Limits{Timeout: 20 * time.Second}}
		b.Run(fmt.Sprintf("check/%s", kind), func(b *testing.B) {
			for b.Loop() {
				res, err := Check(context.Background(), h, Queue(), opt)
				if err != nil || res.Verdict != lts.Invalid {
					b.Fatal(err, res.Verdict, res.Reason)
				}
			}
		})
		b.Run(fmt.Sprintf("localize/%s", kind), func(b *testing.B) {
			for b.Loop() {
				l, err := Localize(context.Background(), h, Queue(), opt)
				if err != nil || l.Verdict != lts.Invalid {
					b.Fatal(err, l.Verdict, l.Reason)
				}
			}
		})
	}
}
