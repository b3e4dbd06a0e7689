package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// irEvent matches the invocations and responses randomIRModel writes:
// enq_inv.t.v, enq_res.t, deq_inv.t, deq_res.t.X with X a name, a number,
// h[t] or a parenthesised expression.
var irEvent = regexp.MustCompile(`\b(enq|deq)_(inv|res)\.t(?:\.(\([^)]*\)|h\[t\]|\w+))?`)

// renamings of randomIRModel's events, each with the map that names them
// back: "first" keeps the thread the first datum (the reductions apply),
// "last" moves it last and tells the operations apart by a constant (they
// do not), and names an empty dequeue's response by its own event.
var renamings = []struct {
	name   string
	rename func(op, half, x string) string
	m      string
}{
	{"first", func(op, half, x string) string {
		base := map[string]string{"enq_inv": "put_call", "enq_res": "put_ret", "deq_inv": "take_call", "deq_res": "take_ret"}[op+"_"+half]
		if op == "deq" && half == "res" && x == "0" {
			return "take_empty.t"
		}
		if x != "" {
			return base + ".t." + x
		}
		return base + ".t"
	}, "map {put_call.t.v -> enq_inv.t.v, put_ret.t -> enq_res.t, take_call.t -> deq_inv.t, take_ret.t.r -> deq_res.t.r, take_empty.t -> deq_res.t.0}"},
	{"last", func(op, half, x string) string {
		k := map[string]string{"enq": "0", "deq": "1"}[op]
		if x == "" {
			x = "0"
		}
		return map[string]string{"inv": "begin", "res": "end"}[half] + "." + k + "." + x + ".t"
	}, "map {begin.0.v.t -> enq_inv.t.v, begin.1.0.t -> deq_inv.t, end.0.0.t -> enq_res.t, end.1.r.t -> deq_res.t.r}"},
}

// TestLinearizesMapRandom: a random invocation/response model whose events
// are renamed, checked with a map that names them back, gets the verdicts
// of the conventionally named model, with and without the reductions, and
// counterexamples of the same length, re-validated by the history engine
// through the map. The map only renames, so this follows from the
// definitions.
func TestLinearizesMapRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(*linSeed, 7))
	cases := max(*linCases/4, 8)
	seen := map[string]int{}
	for i := range cases {
		src := randomIRModel(r, i%2 == 0)
		for _, o := range []Options{{}, {NoSymmetry: true, NoReduction: true}} {
			o.Limits = lts.Limits{MaxStates: 1 << 20}
			want, err := Source(context.Background(), "random.csp", []byte(src), o)
			if err != nil {
				t.Fatalf("case %d: %v\n%s", i, err, src)
			}
			for _, rn := range renamings {
				mapped := irEvent.ReplaceAllStringFunc(src, func(s string) string {
					m := irEvent.FindStringSubmatch(s)
					return rn.rename(m[1], m[2], m[3])
				})
				m := rn.m
				if !strings.Contains(mapped, "take_empty.t ->") {
					// An event no process performs is an error in a map.
					m = strings.Replace(m, ", take_empty.t -> deq_res.t.0", "", 1)
				}
				mapped = strings.ReplaceAll(mapped, "Queue();\n", "Queue() "+m+";\n")
				rep, err := Source(context.Background(), "mapped.csp", []byte(mapped), o)
				if err != nil {
					t.Fatalf("case %d, %s: %v\n%s", i, rn.name, err, mapped)
				}
				for j, a := range rep.Assertions {
					w := want.Assertions[j]
					if a.Error != "" || a.Verdict != w.Verdict {
						t.Fatalf("case %d, %s, %+v: %s: %v %s; conventional names: %v\n%s", i, rn.name, o, a.Text, a.Verdict, a.Error, w.Verdict, mapped)
					}
					seen[fmt.Sprintf("%s %v", rn.name, a.Verdict)]++
					if a.Verdict != lts.Invalid {
						continue
					}
					if len(a.Counterexample.Trace) != len(w.Counterexample.Trace) || len(a.Counterexample.History) == 0 {
						t.Fatalf("case %d, %s, %+v: %s: counterexample %v (history %d lines); conventional names: %v",
							i, rn.name, o, a.Text, a.Counterexample.Trace, len(a.Counterexample.History), w.Counterexample.Trace)
					}
				}
				if rn.name == "last" && rep.Assertions[0].Stats.Symmetry != 0 {
					t.Fatalf("case %d: thread last, yet symmetry %d", i, rep.Assertions[0].Stats.Symmetry)
				}
			}
		}
	}
	for _, k := range []string{"first valid", "first invalid", "last valid", "last invalid"} {
		if seen[k] == 0 {
			t.Errorf("no case %s: %v", k, seen)
		}
	}
}
