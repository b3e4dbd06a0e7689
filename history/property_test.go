package history

import (
	"context"
	"math/rand"
	"strconv"
	"testing"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// randomQueueHistory makes a small concurrent queue history: procs
// processes each run a few operations one after the other at random
// times; enqueued values are distinct; dequeue results are random (often
// wrong); some operations are pending (Info) when withInfo.
func randomQueueHistory(r *rand.Rand, nops, procs int, withInfo bool) *History {
	h := &History{}
	clock := make([]int64, procs)
	next := 1
	for i := 0; i < nops; i++ {
		p := r.Intn(procs)
		call := clock[p] + int64(r.Intn(4))
		ret := call + 1 + int64(r.Intn(6))
		clock[p] = ret + 1
		o := Op{Process: p, Status: Ok, Call: call, Return: ret}
		if r.Intn(2) == 0 {
			o.F, o.Input = "enq", Int(int64(next))
			next++
		} else {
			o.F = "deq"
			if v := r.Intn(next + 1); v > 0 && v < next {
				o.Output = Int(int64(v))
			}
		}
		if withInfo && r.Intn(6) == 0 {
			o.Status, o.Return = Info, Pending
			clock[p] = 1 << 40 // a crashed process does nothing more
		}
		h.Ops = append(h.Ops, o)
	}
	// Invocation order and IDs.
	sortOpsByCall(h.Ops)
	for i := range h.Ops {
		h.Ops[i].ID = i
	}
	return h
}

func sortOpsByCall(ops []Op) {
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && ops[j].Call < ops[j-1].Call; j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
}

// bruteForce enumerates every order of every set of operations (all
// completed ones plus any subset of the pending ones) that respects real
// time, and runs accept on each: an enumeration, the oracle of the
// memoised search.
func bruteForce(ops []Op, accept func(order []int) bool) bool {
	n := len(ops)
	var pend []int
	for i, o := range ops {
		if o.Status == Info {
			pend = append(pend, i)
		}
	}
	for mask := 0; mask < 1<<len(pend); mask++ {
		in := make([]bool, n)
		for i, o := range ops {
			in[i] = o.Status != Info
		}
		for b, i := range pend {
			if mask&(1<<b) != 0 {
				in[i] = true
			}
		}
		placed := make([]bool, n)
		var order []int
		var rec func() bool
		rec = func() bool {
			done := true
			for i := 0; i < n; i++ {
				if in[i] && !placed[i] {
					done = false
				}
			}
			if done {
				return accept(order)
			}
			for i := 0; i < n; i++ {
				if !in[i] || placed[i] {
					continue
				}
				ok := true
				for j := 0; j < n; j++ {
					if in[j] && !placed[j] && j != i && ops[j].Return < ops[i].Call {
						ok = false
						break
					}
				}
				if !ok {
					continue
				}
				placed[i] = true
				order = append(order, i)
				if rec() {
					return true
				}
				order = order[:len(order)-1]
				placed[i] = false
			}
			return false
		}
		if rec() {
			return true
		}
	}
	return false
}

// refQueue runs a sequential FIFO queue (an independent reference).
func refQueue(ops []Op, order []int) bool {
	var q []int64
	for _, i := range order {
		o := ops[i]
		if o.F == "enq" {
			n, _ := o.Input.Int()
			q = append(q, n)
			continue
		}
		if o.Status == Info {
			if len(q) > 0 {
				q = q[1:]
			}
			continue
		}
		if len(q) == 0 {
			if !o.Output.IsNil() {
				return false
			}
			continue
		}
		if n, ok := o.Output.Int(); !ok || n != q[0] {
			return false
		}
		q = q[1:]
	}
	return true
}

// explicitQueue is an lts.Explicit FIFO queue over values 1..n (each
// enqueued at most once), written independently of the container models:
// events enq.v, deq.v, deq.0 (empty).
func explicitQueue(n int) *lts.Explicit {
	x := lts.NewExplicit(nil)
	ids := map[string]lts.State{"": 0}
	work := []string{""}
	key := func(q []int) string {
		s := ""
		for _, v := range q {
			s += strconv.Itoa(v) + ","
		}
		return s
	}
	parse := func(s string) []int {
		var q []int
		cur := ""
		for _, c := range s {
			if c == ',' {
				v, _ := strconv.Atoi(cur)
				q = append(q, v)
				cur = ""
			} else {
				cur += string(c)
			}
		}
		return q
	}
	state := func(q []int) lts.State {
		k := key(q)
		if id, ok := ids[k]; ok {
			return id
		}
		id := x.AddState()
		ids[k] = id
		work = append(work, k)
		return id
	}
	for len(work) > 0 {
		k := work[0]
		work = work[1:]
		q := parse(k)
		from := ids[k]
		for v := 1; v <= n; v++ {
			present := false
			for _, w := range q {
				present = present || w == v
			}
			if !present {
				x.Add(from, "enq."+strconv.Itoa(v), state(append(append([]int(nil), q...), v)))
			}
		}
		if len(q) == 0 {
			x.Add(from, "deq.0", from)
		} else {
			x.Add(from, "deq."+strconv.Itoa(q[0]), state(q[1:]))
		}
	}
	return x
}

func queueTrace(t *lts.EventTable, ops []Op, order []int) []lts.Event {
	var tr []lts.Event
	for _, i := range order {
		o := ops[i]
		if o.F == "enq" {
			n, _ := o.Input.Int()
			tr = append(tr, t.Intern("enq", int(n)))
		} else if o.Output.IsNil() {
			tr = append(tr, t.Intern("deq", 0))
		} else {
			n, _ := o.Output.Int()
			tr = append(tr, t.Intern("deq", int(n)))
		}
	}
	return tr
}

// TestSearchAgainstBruteForce compares the memoised search with the
// enumeration of all linearizations on random small queue histories, for
// the native queue model and for FromAutomaton of an explicit queue.
func TestSearchAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	counts := map[bool]int{}
	for it := 0; it < 800; it++ {
		// Half without Info ops and from a simulated queue with one output
		// perturbed, so that the queue's pruning (distinct values, no Info
		// dequeue) is exercised on histories near the boundary.
		var h *History
		if it%2 == 0 {
			h = randomQueueHistory(r, 3+r.Intn(5), 2+r.Intn(2), true)
		} else {
			h = linearizableQueue(3+r.Intn(5), 2+r.Intn(2), r.Int63())
			if r.Intn(2) == 0 {
				i := r.Intn(len(h.Ops))
				if h.Ops[i].F == "deq" {
					h.Ops[i].Output = Int(int64(1 + r.Intn(4))) // 0 is "empty" in events
					if r.Intn(3) == 0 {
						h.Ops[i].Output = Nil()
					}
				}
			}
		}
		want := bruteForce(h.Ops, func(order []int) bool { return refQueue(h.Ops, order) })
		counts[want]++
		nvals := 0
		for _, o := range h.Ops {
			if o.F == "enq" {
				nvals++
			}
		}
		for _, m := range []Model{Queue(), FromAutomaton(explicitQueue(nvals))} {
			res, err := Check(context.Background(), h, m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if (res.Verdict == lts.Valid) != want || res.Verdict == lts.Unknown {
				t.Fatalf("history %d (%s): search %v, brute force %v\n%s", it, m.Name(), res.Verdict, want, dumpOps(h.Ops))
			}
			if want && (!refQueue(h.Ops, res.Witness) || !respectsRealTime(h.Ops, res.Witness)) {
				t.Fatalf("history %d: witness %v is not a linearization\n%s", it, res.Witness, dumpOps(h.Ops))
			}
		}
	}
	if counts[true] < 40 || counts[false] < 40 {
		t.Fatalf("unbalanced sample: %v", counts)
	}
}

// TestQuasiAgainstBruteForce compares the quasi search with the
// enumeration of all linearizations, each judged by relax.Admits (an
// independent re-validator of the exact relaxation) on an explicit queue.
func TestQuasiAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	counts := map[bool]int{}
	for it := 0; it < 300; it++ {
		h := randomQueueHistory(r, 3+r.Intn(4), 2, false)
		nvals := 0
		for _, o := range h.Ops {
			if o.F == "enq" {
				nvals++
			}
		}
		spec := explicitQueue(nvals)
		k := r.Intn(3)
		cfg := deqClass(k, r.Intn(2) == 0)
		want := bruteForce(h.Ops, func(order []int) bool {
			ok, err := relax.Admits(spec, *cfg, queueTrace(spec.Table, h.Ops, order))
			if err != nil {
				t.Fatal(err)
			}
			return ok
		})
		counts[want]++
		res, err := Check(context.Background(), h, Queue(), Options{Quasi: cfg})
		if err != nil {
			t.Fatal(err)
		}
		if (res.Verdict == lts.Valid) != want || res.Verdict == lts.Unknown {
			t.Fatalf("history %d (k=%d complete=%v): search %v, brute force %v\n%s", it, k, cfg.Complete, res.Verdict, want, dumpOps(h.Ops))
		}
	}
	if counts[true] < 30 || counts[false] < 30 {
		t.Fatalf("unbalanced sample: %v", counts)
	}
}

func dumpOps(ops []Op) string {
	s := ""
	for _, o := range ops {
		s += "  " + o.String() + " [" + strconv.FormatInt(o.Call, 10) + ", " + strconv.FormatInt(o.Return, 10) + "]\n"
	}
	return s
}

func respectsRealTime(ops []Op, order []int) bool {
	for a := range order {
		for b := a + 1; b < len(order); b++ {
			if ops[order[b]].Return < ops[order[a]].Call {
				return false
			}
		}
	}
	return true
}

// refCAS runs a sequential CAS register starting at nil (the MANIFEST's
// etcd semantics; Info ops take their natural effect).
func refCAS(ops []Op, order []int) bool {
	var cur Value
	for _, i := range order {
		o := ops[i]
		switch o.F {
		case "read":
			if o.Status == Ok && !o.Output.Equal(cur) {
				return false
			}
		case "write":
			cur = o.Input
		case "cas":
			l, _ := o.Input.List()
			match := l[0].Equal(cur)
			if o.Status == Ok {
				b, _ := o.Output.Bool()
				if b != match {
					return false
				}
			}
			if match {
				cur = l[1]
			}
		}
	}
	return true
}

func TestCASRegisterAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	counts := map[bool]int{}
	val := func() Value {
		if v := r.Intn(4); v > 0 {
			return Int(int64(v))
		}
		return Nil()
	}
	for it := 0; it < 400; it++ {
		h := &History{}
		procs := 2 + r.Intn(2)
		clock := make([]int64, procs)
		for i := 0; i < 3+r.Intn(5); i++ {
			p := r.Intn(procs)
			call := clock[p] + int64(r.Intn(4))
			ret := call + 1 + int64(r.Intn(6))
			clock[p] = ret + 1
			o := Op{Process: p, Status: Ok, Call: call, Return: ret}
			switch r.Intn(3) {
			case 0:
				o.F, o.Output = "read", val()
			case 1:
				o.F, o.Input = "write", Int(int64(1+r.Intn(3)))
			default:
				o.F, o.Input, o.Output = "cas", List(Int(int64(1+r.Intn(3))), Int(int64(1+r.Intn(3)))), Bool(r.Intn(2) == 0)
			}
			switch r.Intn(8) {
			case 0:
				o.Status, o.Return = Info, Pending
				clock[p] = 1 << 40
			case 1:
				o.Status = Fail
			}
			h.Ops = append(h.Ops, o)
		}
		sortOpsByCall(h.Ops)
		var live []Op
		for i := range h.Ops {
			h.Ops[i].ID = i
		}
		for _, o := range h.Ops {
			if o.Status != Fail {
				live = append(live, o)
			}
		}
		want := bruteForce(live, func(order []int) bool { return refCAS(live, order) })
		counts[want]++
		res, err := Check(context.Background(), h, CASRegister(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if (res.Verdict == lts.Valid) != want {
			t.Fatalf("history %d: search %v, brute force %v\n%s", it, res.Verdict, want, dumpOps(h.Ops))
		}
		if want && (!refCAS(h.Ops, res.Witness) || !respectsRealTime(h.Ops, res.Witness)) {
			t.Fatalf("history %d: witness %v is not a linearization\n%s", it, res.Witness, dumpOps(h.Ops))
		}
	}
	if counts[true] < 40 || counts[false] < 40 {
		t.Fatalf("unbalanced sample: %v", counts)
	}
}

// refKV runs a sequential single-key string store ("" initially).
func refKV(ops []Op, order []int) bool {
	cur := ""
	for _, i := range order {
		o := ops[i]
		v, _ := o.Input.Str()
		switch o.F {
		case "get":
			if out, _ := o.Output.Str(); o.Status == Ok && out != cur {
				return false
			}
		case "put":
			cur = v
		case "append":
			cur += v
		}
	}
	return true
}

// TestKVPruningAgainstBruteForce checks the kv machine (with its pruning
// of dead states) against the enumeration on random single-key histories
// whose gets return plausible strings (prefixes of orders of the appends,
// puts' values), so that many are linearizable.
func TestKVPruningAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	counts := map[bool]int{}
	for it := 0; it < 500; it++ {
		h := &History{}
		procs := 2 + r.Intn(2)
		clock := make([]int64, procs)
		var written []string
		tok := 0
		for i := 0; i < 3+r.Intn(5); i++ {
			p := r.Intn(procs)
			call := clock[p] + int64(r.Intn(4))
			ret := call + 1 + int64(r.Intn(6))
			clock[p] = ret + 1
			o := Op{Process: p, Key: "k", Status: Ok, Call: call, Return: ret}
			switch r.Intn(5) {
			case 0, 1:
				o.F = "get"
				s := ""
				if r.Intn(3) > 0 {
					for _, w := range written {
						if r.Intn(3) > 0 {
							s += w
						}
					}
				}
				if r.Intn(4) == 0 && len(written) > 1 {
					s = written[1] + written[0]
				}
				o.Output = Str(s)
			case 2:
				tok++
				o.F, o.Input = "put", Str(strconv.Itoa(tok))
				written = append(written, strconv.Itoa(tok))
			default:
				tok++
				o.F, o.Input = "append", Str(strconv.Itoa(tok))
				written = append(written, strconv.Itoa(tok))
			}
			if r.Intn(8) == 0 {
				o.Status, o.Return = Info, Pending
				clock[p] = 1 << 40
			}
			h.Ops = append(h.Ops, o)
		}
		sortOpsByCall(h.Ops)
		for i := range h.Ops {
			h.Ops[i].ID = i
		}
		want := bruteForce(h.Ops, func(order []int) bool { return refKV(h.Ops, order) })
		counts[want]++
		res, err := Check(context.Background(), h, KV(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if (res.Verdict == lts.Valid) != want {
			t.Fatalf("history %d: search %v, brute force %v\n%s", it, res.Verdict, want, dumpOps(h.Ops))
		}
	}
	if counts[true] < 50 || counts[false] < 50 {
		t.Fatalf("unbalanced sample: %v", counts)
	}
}

// simulateContainer runs procs processes on an atomic container (each op
// takes effect at a random point of its interval) and perturbs one result
// half of the time: put is enq/push/insert, take is deq/pop/deleteMin.
func simulateContainer(r *rand.Rand, kind containerKind, n, procs int) *History {
	return simulateRelaxedQueue(r, kind, n, procs, 0, false)
}

// refContainer runs a sequential queue, stack or priority queue.
func refContainer(kind containerKind, ops []Op, order []int) bool {
	var c []int64
	for _, i := range order {
		o := ops[i]
		if v, ok := o.Input.Int(); ok {
			c = append(c, v)
			continue
		}
		if len(c) == 0 {
			if !o.Output.IsNil() {
				return false
			}
			continue
		}
		k := 0
		switch kind {
		case cStack:
			k = len(c) - 1
		case cPQueue:
			for j := range c {
				if c[j] < c[k] {
					k = j
				}
			}
		}
		if v, ok := o.Output.Int(); !ok || v != c[k] {
			return false
		}
		c = append(c[:k:k], c[k+1:]...)
	}
	return true
}

// TestContainersAgainstBruteForce checks the queue, stack and priority
// queue (with their pruning of dead states) against the enumeration.
func TestContainersAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, kind := range []containerKind{cQueue, cStack, cPQueue} {
		m := containerModel{kind}
		counts := map[bool]int{}
		for it := 0; it < 400; it++ {
			h := simulateContainer(r, kind, 3+r.Intn(5), 2+r.Intn(2))
			want := bruteForce(h.Ops, func(order []int) bool { return refContainer(kind, h.Ops, order) })
			counts[want]++
			res, err := Check(context.Background(), h, m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if (res.Verdict == lts.Valid) != want {
				t.Fatalf("%s history %d: search %v, brute force %v\n%s", m.Name(), it, res.Verdict, want, dumpOps(h.Ops))
			}
		}
		if counts[true] < 40 || counts[false] < 40 {
			t.Fatalf("%s: unbalanced sample: %v", m.Name(), counts)
		}
	}
}
