package pipeline

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

var (
	linCases = flag.Int("lin.cases", 80, "TestLinearizesReductionsRandom: random models")
	linSeed  = flag.Uint64("lin.seed", 1, "TestLinearizesReductionsRandom: seed")
)

// randomIRModel writes a random invocation/response model of a queue of
// capacity 2 over values 1 and 2 used by two threads: each operation is
// one of a few shapes (atomic or split into a read and a write, a response
// with a fixed label or one that reads a register, extra internal steps,
// a wrong result now and then). With sym, both threads run one process
// (the symmetry typing can prove it); otherwise each runs its own, which
// it cannot, and then neither reduction applies (the verdicts must still
// agree).
func randomIRModel(r *rand.Rand, sym bool) string {
	var sb strings.Builder
	sb.WriteString(`#define T 2;
var q[2];
var n = 0;
var h[T];
var sq[2];
var sn = 0;
Queue() = ([] v:{1..2} @ ([sn < 2] enq.v{sq[sn] = v; sn = sn + 1;} -> Queue()))
       [] ([] v:{1..2} @ ([sn > 0 && sq[0] == v] deq.v{sq[0] = sq[1]; sq[1] = 0; sn = sn - 1;} -> Queue()))
       [] ([sn == 0] deq.0 -> Queue());
`)
	threads := []string{"P"}
	if !sym {
		threads = []string{"P0", "P1"}
	}
	for _, p := range threads {
		pick := func(k int) int { return r.IntN(k) }
		extra := func() string {
			if pick(3) == 0 {
				return "tau -> "
			}
			return ""
		}
		// Enqueue.
		fmt.Fprintf(&sb, "%s(t) = ([] v:{1..2} @ enq_inv.t.v -> %s%sE(t, v)) [] (deq_inv.t -> %s%sD(t));\n", p, extra(), p, extra(), p)
		enqRes := "enq_res.t"
		switch pick(4) {
		case 0: // two steps: reserve, then write (racy with a dequeue)
			fmt.Fprintf(&sb, "%sE(t, v) = [n < 2] tau{h[t] = n; n = n + 1;} -> tau{q[h[t]] = v;} -> %s%s -> %s(t);\n", p, extra(), enqRes, p)
		default:
			fmt.Fprintf(&sb, "%sE(t, v) = [n < 2] tau{q[n] = v; n = n + 1;} -> %s%s -> %s(t);\n", p, extra(), enqRes, p)
		}
		// Dequeue.
		wrong := "v"
		if pick(5) == 0 {
			wrong = "3 - v" // returns the other value
		}
		switch pick(3) {
		case 0: // atomic, response with a fixed label
			fmt.Fprintf(&sb, "%sD(t) = ([] v:{1..2} @ ([n > 0 && q[0] == v] tau{q[0] = q[1]; q[1] = 0; n = n - 1;} -> %sdeq_res.t.(%s) -> %s(t))) [] ([n == 0] tau -> deq_res.t.0 -> %s(t));\n", p, extra(), wrong, p, p)
		case 1: // read the head, then remove it: two dequeues can return one item
			fmt.Fprintf(&sb, "%sD(t) = tau{h[t] = q[0];} -> (([n > 0] tau{q[0] = q[1]; q[1] = 0; n = n - 1;} -> deq_res.t.h[t] -> %s(t)) [] ([n == 0] tau -> deq_res.t.0 -> %s(t)));\n", p, p, p)
		default: // atomic, the response reads a register
			fmt.Fprintf(&sb, "%sD(t) = ([n > 0] tau{h[t] = q[0]; q[0] = q[1]; q[1] = 0; n = n - 1;} -> %sdeq_res.t.h[t] -> %s(t)) [] ([n == 0] tau{h[t] = 0;} -> deq_res.t.h[t] -> %s(t));\n", p, extra(), p, p)
		}
	}
	if sym {
		sb.WriteString("Impl() = ||| t:{0..T-1} @ P(t);\n")
	} else {
		sb.WriteString("Impl() = P0(0) ||| P1(1);\n")
	}
	sb.WriteString("#assert Impl() linearizes Queue();\n")
	sb.WriteString("#assert Impl() linearizes<quasi 1 on {deq} barrier {deq.0}> Queue();\n")
	return sb.String()
}

// TestLinearizesReductionsRandom: on random invocation/response models,
// the thread symmetry and the partial-order reduction, alone and
// together, and with the arguments chosen late (on by default), keep
// every verdict of the unreduced check (no reduction, no symmetry, no late
// arguments; its wrapper is tested against the history engine in package
// linearize), and each
// counterexample they find is re-validated by the history engine on the
// concrete (unreduced) trace, as every linearizes counterexample is. Two
// workers give the same pairs and counterexample as one.
func TestLinearizesReductionsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(*linSeed, 3))
	configs := []Options{{NoSymmetry: true, NoReduction: true, NoLateArgs: true}, {NoReduction: true}, {NoSymmetry: true}, {}, {Workers: 2}, {NoSymmetry: true, Workers: 2}}
	counts := map[string]int{}
	for i := range *linCases {
		sym := i%2 == 0
		src := randomIRModel(r, sym)
		var want []lts.Verdict
		results := map[[2]bool][]*Assertion{} // by (NoSymmetry, NoReduction)
		for k, o := range configs {
			o.Limits = lts.Limits{MaxStates: 1 << 20}
			rep, err := Source(context.Background(), "random.csp", []byte(src), o)
			if err != nil {
				t.Fatalf("case %d: %v\n%s", i, err, src)
			}
			w := o.Workers
			o.Workers = 0
			key := [2]bool{o.NoSymmetry, o.NoReduction}
			one := results[key]
			results[key] = rep.Assertions
			for j, a := range rep.Assertions {
				if w > 1 && (a.Stats.Pairs != one[j].Stats.Pairs || fmt.Sprint(a.Counterexample) != fmt.Sprint(one[j].Counterexample)) {
					t.Fatalf("case %d: %s: %+v: %d pairs, %v; with one worker %d, %v", i, a.Text, o, a.Stats.Pairs, a.Counterexample, one[j].Stats.Pairs, one[j].Counterexample)
				}
				if a.Error != "" {
					t.Fatalf("case %d, %+v: %s: %s\n%s", i, o, a.Text, a.Error, src)
				}
				if k == 0 {
					want = append(want, a.Verdict)
					counts[fmt.Sprintf("sym=%v %v", sym, a.Verdict)]++
					continue
				}
				if a.Verdict != want[j] {
					t.Fatalf("case %d: %s: %+v says %v, unreduced %v\n%s", i, a.Text, o, a.Verdict, want[j], src)
				}
				if a.Verdict == lts.Invalid && len(a.Counterexample.History) == 0 {
					t.Fatalf("case %d: %s: %+v: counterexample without its validated history", i, a.Text, o)
				}
			}
		}
	}
	for _, k := range []string{"sym=true valid", "sym=true invalid", "sym=false valid", "sym=false invalid"} {
		if counts[k] < 5 {
			t.Errorf("only %d cases %s: %v", counts[k], k, counts)
		}
	}
	t.Log(counts)
}

// TestLinearizesSymmetryProved: the random models' threads are proved
// symmetric when they run one process, so the test above exercises the
// pair symmetry (the stats say so).
func TestLinearizesSymmetryProved(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 3))
	for range 10 {
		src := randomIRModel(r, true)
		rep, err := Source(context.Background(), "random.csp", []byte(src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range rep.Assertions {
			if a.Stats.Symmetry != 2 {
				t.Fatalf("%s: symmetry %d, want 2\n%s", a.Text, a.Stats.Symmetry, src)
			}
		}
	}
}
