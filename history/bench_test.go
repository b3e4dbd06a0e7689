package history

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

func loadHistory(tb testing.TB, file string) *History {
	f, err := os.Open(filepath.Join(dataDir, file))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHistory(file, f)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

func benchFile(b *testing.B, file string, m Model) {
	h := loadHistory(b, file)
	b.ReportAllocs()
	var states int64
	for b.Loop() {
		res, err := Check(context.Background(), h, m, Options{})
		if err != nil {
			b.Fatal(err)
		}
		states = res.Stats.States
	}
	b.ReportMetric(float64(states), "states")
}

func BenchmarkEtcd002(b *testing.B) { benchFile(b, "jepsen/etcd_002.log", CASRegister()) }
func BenchmarkEtcd007(b *testing.B) { benchFile(b, "jepsen/etcd_007.log", CASRegister()) }
func BenchmarkC50Ok(b *testing.B)   { benchFile(b, "kv/c50-ok.txt", KV()) }

func BenchmarkC01Ok(b *testing.B)  { benchFile(b, "kv/c01-ok.txt", KV()) }
func BenchmarkC10Ok(b *testing.B)  { benchFile(b, "kv/c10-ok.txt", KV()) }
func BenchmarkC50Bad(b *testing.B) { benchFile(b, "kv/c50-bad.txt", KV()) }
func BenchmarkC10Bad(b *testing.B) { benchFile(b, "kv/c10-bad.txt", KV()) }
func BenchmarkC01Bad(b *testing.B) { benchFile(b, "kv/c01-bad.txt", KV()) }

// linearizableQueue simulates procs processes on an atomic queue: each op
// takes effect at a random point inside its interval, so the history is
// linearizable by construction.
func linearizableQueue(n, procs int, seed int64) *History {
	r := rand.New(rand.NewSource(seed))
	h, order, _ := randomQueueOps(r, n, procs, 10, 20)
	var q []int64
	for _, i := range order {
		o := &h.Ops[i]
		if o.F == "enq" {
			v, _ := o.Input.Int()
			q = append(q, v)
		} else if len(q) > 0 {
			o.Output, q = Int(q[0]), q[1:]
		}
	}
	byCall(h)
	return h
}

// randomQueueOps is the skeleton of the random queue histories of the
// tests: n completed operations on procs processes, enq of fresh values
// 1, 2, ... or deq with no result yet, each call at most gap-1 after its
// process's previous return and lasting 1..span. order lists the
// operations by a random linearization point inside each interval; next
// is the first value not enqueued.
func randomQueueOps(r *rand.Rand, n, procs, gap, span int) (h *History, order []int, next int64) {
	h = &History{}
	clock := make([]int64, procs)
	at := make([]int64, n)
	next = 1
	for i := 0; i < n; i++ {
		p := r.Intn(procs)
		call := clock[p] + int64(r.Intn(gap))
		ret := call + 1 + int64(r.Intn(span))
		clock[p] = ret + 1
		o := Op{Process: p, Status: Ok, Call: call, Return: ret}
		if r.Intn(2) == 0 {
			o.F, o.Input = "enq", Int(next)
			next++
		} else {
			o.F = "deq"
		}
		h.Ops = append(h.Ops, o)
		at[i] = call + r.Int63n(ret-call+1)
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool { return at[order[a]] < at[order[b]] })
	return h, order, next
}

// byCall orders h's operations by call time and numbers them.
func byCall(h *History) {
	sort.SliceStable(h.Ops, func(a, b int) bool { return h.Ops[a].Call < h.Ops[b].Call })
	for i := range h.Ops {
		h.Ops[i].ID = i
	}
}

func BenchmarkQueueBig(b *testing.B) {
	h := linearizableQueue(benchBigN, 8, 1)
	b.ReportAllocs()
	var res *Result
	for b.Loop() {
		var err error
		res, err = Check(context.Background(), h, Queue(), Options{})
		if err != nil || res.Verdict != lts.Valid {
			b.Fatal(err, res.Verdict, res.Reason)
		}
	}
	b.ReportMetric(float64(res.Stats.States), "states")
}

var benchBigN = 20000

func BenchmarkEtcd056(b *testing.B) { benchFile(b, "jepsen/etcd_056.log", CASRegister()) }

// BenchmarkQuasiQueueLost: testdata/localize/queue_lost.jsonl (8 ops, a
// pending dequeue) at quasi factor k with every op in one class. The
// witness's replay followed every run of the relaxed queue (its set of
// states grows exponentially in k): 0.9 s at k=5 and 11.5 s at k=6; it
// follows the search's own run now. At k=8 the search itself took 2.2 s
// (46,085 states; one step of the relaxed queue had 488,281 successors)
// before the check deepened its bound (quasi.go).
func BenchmarkQuasiQueueLost(b *testing.B) {
	f, err := os.Open("testdata/localize/queue_lost.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	h, err := ReadHistory("queue_lost.jsonl", f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []int{4, 5, 6, 8} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			cfg, err := relax.ParseConfig(strconv.Itoa(k))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				res, err := Check(context.Background(), h, Queue(), Options{Quasi: &cfg})
				if err != nil || res.Verdict != lts.Valid {
					b.Fatalf("%v %v", res.Verdict, err)
				}
			}
		})
	}
}
