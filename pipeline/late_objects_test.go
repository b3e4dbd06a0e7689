package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
)

// randomObjectModel is a random invocation/response model of a register,
// a stack or a queue shared by two threads, for the late arguments: the
// operations' shapes read the argument in a block, a guard, a register, a
// process argument passed bare or a second definition, after the response
// or never (the thread stops), and some are wrong (a register written with
// the other value, a read of the initial value after a write, a stack
// popped at the wrong end, a slot reserved before it is written). shape
// names the object and the shapes drawn.
func randomObjectModel(r *rand.Rand, sym bool) (src, shape string) {
	var sb strings.Builder
	pick := func(k int) int { return r.IntN(k) }
	obj := []string{"register", "stack", "queue"}[pick(3)]
	shapes := []string{obj}
	sb.WriteString(`#define T 2;
var x = 0;
var q[2];
var n = 0;
var h[T];
var sr = 0;
var sq[2];
var sn = 0;
Reg() = ([] v:{1..2} @ write.v{sr = v;} -> Reg()) [] ([] v:{0..2} @ [sr == v] read.v -> Reg());
Stack() = ([] v:{1..2} @ ([sn < 2] push.v{sq[sn] = v; sn = sn + 1;} -> Stack()))
       [] ([] v:{1..2} @ ([sn > 0 && sq[sn - 1] == v] pop.v{sn = sn - 1; sq[sn] = 0;} -> Stack()))
       [] ([sn == 0] pop.0 -> Stack());
Queue() = ([] v:{1..2} @ ([sn < 2] enq.v{sq[sn] = v; sn = sn + 1;} -> Queue()))
       [] ([] v:{1..2} @ ([sn > 0 && sq[0] == v] deq.v{sq[0] = sq[1]; sq[1] = 0; sn = sn - 1;} -> Queue()))
       [] ([sn == 0] deq.0 -> Queue());
`)
	threads := []string{"P"}
	if !sym {
		threads = []string{"P0", "P1"}
	}
	extra := func() string {
		if pick(3) == 0 {
			return "tau -> "
		}
		return ""
	}
	for _, p := range threads {
		// put is the operation with an argument, get the one with a result.
		put, get := map[string][2]string{
			"register": {"write", "read"}, "stack": {"push", "pop"}, "queue": {"enq", "deq"},
		}[obj][0], map[string][2]string{
			"register": {"write", "read"}, "stack": {"push", "pop"}, "queue": {"enq", "deq"},
		}[obj][1]
		fmt.Fprintf(&sb, "%s(t) = ([] v:{1..2} @ %s_inv.t.v -> %s%sW(t, v)) [] (%s_inv.t -> %s%sR(t));\n",
			p, put, extra(), p, get, extra(), p)
		res := put + "_res.t"
		// The write: store is the effect on the shared state given the
		// value expression, full the guard that blocks it.
		store, full := "x = %s;", "true"
		if obj != "register" {
			store, full = "q[n] = %s; n = n + 1;", "n < 2"
		}
		k := pick(9)
		shapes = append(shapes, fmt.Sprintf("put%d", k))
		switch k {
		case 0: // atomic
			fmt.Fprintf(&sb, "%sW(t, v) = [%s] tau{%s} -> %s%s -> %s(t);\n", p, full, fmt.Sprintf(store, "v"), extra(), res, p)
		case 1: // a guard reads the value
			fmt.Fprintf(&sb, "%sW(t, v) = ([%s && v == 1] tau{%s} -> %s -> %s(t)) [] ([%s && v != 1] tau{%s} -> %s -> %s(t));\n",
				p, full, fmt.Sprintf(store, "1"), res, p, full, fmt.Sprintf(store, "v"), res, p)
		case 2: // wrong: the other value
			fmt.Fprintf(&sb, "%sW(t, v) = [%s] tau{%s} -> %s -> %s(t);\n", p, full, fmt.Sprintf(store, "3 - v"), res, p)
		case 3: // through a register
			fmt.Fprintf(&sb, "%sW(t, v) = tau{h[t] = v;} -> %s[%s] tau{%s} -> %s -> %s(t);\n", p, extra(), full, fmt.Sprintf(store, "h[t]"), res, p)
		case 4: // wrong: the effect after the response
			fmt.Fprintf(&sb, "%sW(t, v) = %s -> [%s] tau{%s} -> %s(t);\n", p, res, full, fmt.Sprintf(store, "v"), p)
		case 5: // a second definition, the value passed bare
			fmt.Fprintf(&sb, "%sW(t, v) = tau -> %sW2(t, v);\n%sW2(t, v) = [%s] tau{%s} -> %s -> %s(t);\n", p, p, p, full, fmt.Sprintf(store, "v"), res, p)
		case 6: // never returns
			fmt.Fprintf(&sb, "%sW(t, v) = tau -> Stop;\n", p)
		case 7: // a response that carries nothing after a step that does not read the value
			fmt.Fprintf(&sb, "%sW(t, v) = tau{x = x;} -> [%s] tau{%s} -> %s -> %s(t);\n", p, full, fmt.Sprintf(store, "v"), res, p)
		default:
			if obj == "register" {
				// wrong for a register only if two writes race: read-modify-write of nothing.
				fmt.Fprintf(&sb, "%sW(t, v) = tau{h[t] = x;} -> tau{x = v;} -> %s -> %s(t);\n", p, res, p)
			} else { // wrong: the slot reserved, then written (a get may see it empty)
				fmt.Fprintf(&sb, "%sW(t, v) = [n < 2] tau{h[t] = n; n = n + 1;} -> tau{q[h[t]] = v;} -> %s -> %s(t);\n", p, res, p)
			}
		}
		k = pick(3)
		shapes = append(shapes, fmt.Sprintf("get%d", k))
		gres := get + "_res.t"
		switch obj {
		case "register":
			switch k {
			case 0:
				fmt.Fprintf(&sb, "%sR(t) = tau{h[t] = x;} -> %s.h[t] -> %s(t);\n", p, gres, p)
			case 1:
				fmt.Fprintf(&sb, "%sR(t) = %s.x -> %s(t);\n", p, gres, p)
			default: // wrong: may return the initial value
				fmt.Fprintf(&sb, "%sR(t) = (tau{h[t] = x;} -> %s.h[t] -> %s(t)) [] (%s.0 -> %s(t));\n", p, gres, p, gres, p)
			}
		default:
			take := "n = n - 1; h[t] = q[n]; q[n] = 0;" // the top
			if obj == "queue" {
				take = "h[t] = q[0]; q[0] = q[1]; q[1] = 0; n = n - 1;"
			}
			if k == 2 { // wrong: the other end
				take = map[string]string{"stack": "h[t] = q[0]; q[0] = q[1]; q[1] = 0; n = n - 1;", "queue": "n = n - 1; h[t] = q[n]; q[n] = 0;"}[obj]
			}
			if k == 1 { // the response carries the value read in a guard
				fmt.Fprintf(&sb, "%sR(t) = ([] w:{0..2} @ ([n > 0 && %s == w] tau{%s} -> %s.w -> %s(t))) [] ([n == 0] tau -> %s.0 -> %s(t));\n",
					p, map[string]string{"stack": "q[n - 1]", "queue": "q[0]"}[obj], take, gres, p, gres, p)
			} else {
				fmt.Fprintf(&sb, "%sR(t) = ([n > 0] tau{%s} -> %s.h[t] -> %s(t)) [] ([n == 0] tau{h[t] = 0;} -> %s.h[t] -> %s(t));\n",
					p, take, gres, p, gres, p)
			}
		}
	}
	if sym {
		sb.WriteString("Impl() = ||| t:{0..T-1} @ P(t);\n")
	} else {
		sb.WriteString("Impl() = P0(0) ||| P1(1);\n")
	}
	spec := map[string]string{"register": "Reg", "stack": "Stack", "queue": "Queue"}[obj]
	fmt.Fprintf(&sb, "#assert Impl() linearizes %s();\n", spec)
	if obj != "register" {
		get := map[string]string{"stack": "pop", "queue": "deq"}[obj]
		fmt.Fprintf(&sb, "#assert Impl() linearizes<quasi 1 on {%s} barrier {%s.0}> %s();\n", get, get, spec)
	}
	return sb.String(), strings.Join(shapes, " ")
}

// TestLateArgsObjects: on random models of three objects and shapes the
// random queues of TestLateArgsRandom do not have, the late arguments
// (with and without the thread symmetry, one and two workers) give the
// verdicts of the check with no reduction at all, and their
// counterexamples pass the history engine.
func TestLateArgsObjects(t *testing.T) {
	r := rand.New(rand.NewPCG(*linSeed, 11))
	counts := map[string]int{}
	n := 3 * *linCases
	if testing.Short() {
		n = *linCases / 2
	}
	for i := range n {
		src, shape := randomObjectModel(r, i%2 == 0)
		name := fmt.Sprintf("obj%d.csp", i)
		lim := lts.Limits{MaxStates: 1 << 20}
		want, err := Source(context.Background(), name, []byte(src), Options{NoSymmetry: true, NoReduction: true, NoLateArgs: true, Limits: lim})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		var one *Report // symmetry on, one worker
		for _, o := range []Options{{NoSymmetry: true}, {}, {Workers: 2}} {
			o.Limits = lim
			got, err := Source(context.Background(), name, []byte(src), o)
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, src)
			}
			if o.Workers == 0 && !o.NoSymmetry {
				one = got
			}
			for j, a := range got.Assertions {
				w := want.Assertions[j]
				if o.Workers == 2 && (a.Stats.Pairs != one.Assertions[j].Stats.Pairs || fmt.Sprint(a.Counterexample) != fmt.Sprint(one.Assertions[j].Counterexample)) {
					t.Errorf("%s: %s: two workers: %d pairs, %v; one: %d, %v", name, a.Text, a.Stats.Pairs, a.Counterexample, one.Assertions[j].Stats.Pairs, one.Assertions[j].Counterexample)
				}
				if !a.Stats.LateArgs {
					counts["not applied"]++
					if strings.HasPrefix(a.LateArgsOff, lateRetried) {
						// (No helper answers for a thread here.)
						t.Errorf("%s: %s: %s\n%s", name, a.Text, a.LateArgsOff, src)
					}
				}
				switch {
				case a.Error != "" || w.Error != "":
					t.Fatalf("%s (%s) %+v: %s: %q / %q\n%s", name, shape, o, a.Text, a.Error, w.Error, src)
				case a.Verdict != w.Verdict:
					t.Errorf("%s (%s) %+v: %s: late %v, unreduced %v\n%s", name, shape, o, a.Text, a.Verdict, w.Verdict, src)
				case a.Verdict == lts.Invalid && len(a.Counterexample.History) == 0:
					t.Errorf("%s (%s): %s: counterexample without its validated history", name, shape, a.Text)
				}
				counts[a.Verdict.String()]++
			}
		}
	}
	if counts["valid"] < n/4 || counts["invalid"] < n/4 || counts["not applied"] > n/2 {
		t.Errorf("too few of a kind: %v", counts)
	}
	t.Log(counts)
}

// TestLateArgsObjectsMutants: two of the hand mutants of the late
// arguments change verdicts of the random object models. (The other three,
// of TestLateArgsMutants, need its hand-made models: in random ones a
// violation the coverage test would see before a choice is seen again at
// the choice.)
func TestLateArgsObjectsMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, m := range []struct {
		name            string
		rewrite, object int
	}{
		{"the object forgets a value", 0, 2},
		{"the split forgets a value", 2, 0},
	} {
		r := rand.New(rand.NewPCG(*linSeed, 11))
		caught, n := 0, 3**linCases
		for i := range n {
			src, _ := randomObjectModel(r, i%2 == 0)
			lim := lts.Limits{MaxStates: 1 << 20}
			want, err := Source(context.Background(), "m.csp", []byte(src), Options{NoSymmetry: true, NoReduction: true, NoLateArgs: true, Limits: lim})
			if err != nil {
				t.Fatal(err)
			}
			restore := linearize.SetTagMutant(m.object)
			got, err := Source(context.Background(), "m.csp", []byte(src), Options{NoSymmetry: true, lateMutant: m.rewrite, Limits: lim})
			restore()
			if err != nil {
				t.Fatal(err)
			}
			for j, a := range got.Assertions {
				// (A counterexample the mutant makes up is rejected, and
				// the assertion checked again without the option.)
				if a.Verdict != want.Assertions[j].Verdict || a.Error != "" || strings.HasPrefix(a.LateArgsOff, lateRetried) {
					caught++
					break
				}
			}
		}
		t.Logf("mutant %q: %d of %d models", m.name, caught, n)
		if caught == 0 {
			t.Errorf("mutant %q not caught", m.name)
		}
	}
}
