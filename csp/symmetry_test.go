package csp

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// symmetricProcs are the processes of the test models that findSymmetry
// proves symmetric.
func symmetricProcs(t *testing.T) (out []*Proc) {
	for _, am := range assertedModels(t, "../models/testdata/*.csp", "../models/lib/*.csp", "../testdata/pipeline/*.csp", "../testdata/sym/*.csp", "../testdata/lts/bench/*.csp") {
		p, err := Compile(am.checked)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range am.procs {
			red, why, err := p.SymmetricProcess(q)
			if err != nil {
				t.Fatalf("%s %s: %v", am.path, am.texts[i], err)
			}
			if red.Symmetry() == 0 {
				t.Logf("%s %s: no symmetry: %s", am.path, am.texts[i], why)
				continue
			}
			out = append(out, red)
		}
	}
	return out
}

// reachable explores sys breadth-first (at most limit states).
func reachable(t *testing.T, sys *Proc, limit int) []lts.State {
	seen := map[lts.State]bool{sys.Initial(): true}
	queue := []lts.State{sys.Initial()}
	for i := 0; i < len(queue) && len(queue) < limit; i++ {
		ts, err := sys.Successors(queue[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range ts {
			if !seen[tr.Target] {
				seen[tr.Target] = true
				queue = append(queue, tr.Target)
			}
		}
	}
	return queue
}

// canonOf is the representative's encoding of the state encoded as b.
func canonOf(red *Proc, b []byte) string {
	x := red.getScratch()
	defer red.pool.Put(x)
	x.enc, x.ends = append(x.enc[:0], b...), append(x.ends[:0], len(b))
	red.canonAll(x)
	return string(x.enc)
}

// TestSymmetryOrbits checks the reduction against its definition: the
// reduced system's states are exactly the representatives of the orbits of
// the unreduced system's states (counted by brute force), and each is the
// representative of its own orbit.
func TestSymmetryOrbits(t *testing.T) {
	procs := symmetricProcs(t)
	if len(procs) == 0 {
		t.Fatal("no test model is symmetric") // the segmented queues must be
	}
	for _, red := range procs {
		checkOrbits(t, red, true)
	}
}

// checkOrbits explores red and its unreduced system (up to 200,000
// states; with skipLarge a larger system is skipped, otherwise a failure)
// and checks that every reduced state is an orbit representative and
// that there is one per orbit.
func checkOrbits(t *testing.T, red *Proc, skipLarge bool) {
	t.Helper()
	plain := red.Unreduced()
	full := reachable(t, plain, 200000)
	if len(full) >= 200000 && skipLarge {
		return
	}
	orbits := map[string]bool{}
	for _, s := range full {
		orbits[canonOf(red, plain.raw(s, nil))] = true
	}
	states := reachable(t, red, 200000)
	for _, s := range states {
		if !orbits[string(red.raw(s, nil))] {
			t.Fatalf("%s: reduced state %s is not an orbit representative", red.Name(), red.Describe(s))
		}
	}
	if len(states) != len(orbits) {
		t.Errorf("%s: %d reduced states, %d orbits of the %d states", red.Name(), len(states), len(orbits), len(full))
	}
	t.Logf("%s: %d states, %d orbits", red.Name(), len(full), len(orbits))
}

// TestSymmetryRejects checks that findSymmetry rejects what would break the
// automorphism, and accepts a per-thread run like the segmented queue's.
func TestSymmetryRejects(t *testing.T) {
	const head = `var r = [0, 0]; var g = 0;
`
	for _, tc := range []struct {
		name, body, why string // why "" means symmetric; "events: ..." types as SymmetricEventsProcess
	}{
		{"own register", `P(t) = a{r[t] = g} -> b.r[t] -> P(t); Sys = ||| t:{0..1} @ P(t);`, ""},
		{"per-thread run", `P(t) = a{r[t] = g; g = g + 1; if (r[0] > 0) { r[0] = r[0] - 1; } if (r[1] > 0) { r[1] = r[1] - 1; }} -> P(t); Sys = ||| t:{0..1} @ P(t);`, ""},
		{"id compare", `P(t) = Q(t, 1); Q(t, x) = [t == t] a.x{r[t] = x} -> Q(t, x); Sys = ||| t:{0..1} @ P(t);`, ""},
		{"id as event data", `P(t) = a.t -> P(t); Sys = ||| t:{0..1} @ P(t);`, "used as a value"},
		{"id arithmetic", `P(t) = a{g = t + 1} -> P(t); Sys = ||| t:{0..1} @ P(t);`, "used as a value"},
		{"other thread's register", `P(t) = a{r[(t + 1) % 2] = 1} -> P(t); Sys = ||| t:{0..1} @ P(t);`, "used as a value"},
		{"constant entry in a guard", `P(t) = [r[0] == 0] a{r[t] = 1} -> P(t); Sys = ||| t:{0..1} @ P(t);`, "indexed by something other"},
		{"one-sided run", `P(t) = a{r[t] = 1; r[0] = 0} -> P(t); Sys = ||| t:{0..1} @ P(t);`, "differ between threads"},
		{"run reads a global", `P(t) = a{r[t] = 1; r[0] = g; r[1] = g} -> P(t); Sys = ||| t:{0..1} @ P(t);`, "indexed by something other"},
		{"constant thread", `P(t) = a{r[t] = 1} -> P(0); Sys = ||| t:{0..1} @ P(t);`, "takes the thread id at one call"},
		{"id into a shared array", `var s[3]; P(t) = a{s[t] = 1} -> P(t); Sys = ||| t:{0..1} @ P(t);`, "not one entry per thread"},
		{"asymmetric start", `var q = [0, 1]; P(t) = a{q[t] = 1} -> P(t); Sys = ||| t:{0..1} @ P(t);`, "start different"},
		{"explicit copies", `P(t) = a{r[t] = 1} -> P(t); Sys = P(0) ||| P(1);`, ""},
		{"copies differ", `P(t, x) = a.x{r[t] = 1} -> P(t, x); Sys = P(0, 1) ||| P(1, 2);`, "differ in an argument"},
		{"copies out of order", `P(t) = a{r[t] = 1} -> P(t); Sys = P(1) ||| P(0);`, "differ in an argument"},
		{"not an interleaving", `P(t) = a{r[t] = 1} -> P(t); Sys = P(0) [] P(1);`, "not an interleaving"},
		// Events that name the thread (invocation/response models).
		{"events: id first", `P(t) = a_inv.t.3 -> tau{r[t] = g} -> a_res.t.r[t] -> P(t); Sys = ||| t:{0..1} @ P(t);`, ""},
		{"events: no thread array", `P(t) = a_inv.t -> a_res.t.g -> P(t); Sys = ||| t:{0..1} @ P(t);`, ""},
		{"events: id not first", `P(t) = a_inv.3.t -> P(t); Sys = ||| t:{0..1} @ P(t);`, "does not name the thread id"},
		{"events: constant thread", `P(t) = a_inv.0 -> P(t); Sys = ||| t:{0..1} @ P(t);`, "does not name the thread id"},
		{"events: no data", `P(t) = a{r[t] = 1} -> P(t); Sys = ||| t:{0..1} @ P(t);`, "does not name the thread id"},
		{"events: id twice", `P(t) = a_inv.t.t -> P(t); Sys = ||| t:{0..1} @ P(t);`, "used as a value"},
		{"events: id arithmetic", `P(t) = a_inv.(t + 1) -> P(t); Sys = ||| t:{0..1} @ P(t);`, "does not name the thread id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compileSrc(t, head+tc.body)
			sym, why := p.findSymmetry(&lang.RefProc{Name: &lang.Ident{Name: "Sys"}}, strings.HasPrefix(tc.name, "events:"))
			switch {
			case tc.why == "" && sym == nil:
				t.Fatalf("rejected: %s", why)
			case tc.why != "" && sym != nil:
				t.Fatalf("accepted, want %q", tc.why)
			case tc.why != "" && !strings.Contains(why, tc.why):
				t.Fatalf("rejected for %q, want %q", why, tc.why)
			}
		})
	}
}

// TestSymmetryDeterministic checks that the representatives do not depend
// on the order in which a program numbers its nodes and terms (it depends
// on map iteration): separately compiled programs explore the same states
// in the same order.
func TestSymmetryDeterministic(t *testing.T) {
	src, err := os.ReadFile("../models/testdata/linqueue.csp")
	if err != nil {
		t.Fatal(err)
	}
	var prev []string
	for run := 0; run < 6; run++ {
		p := compileSrc(t, string(src))
		red, why, err := p.SymmetricProcess(&lang.RefProc{Name: &lang.Ident{Name: "Impl"}})
		if err != nil || red.Symmetry() == 0 {
			t.Fatalf("Impl: %v %s", err, why)
		}
		var out []string
		for _, s := range reachable(t, red, 100000) {
			out = append(out, fmt.Sprint(red.Describe(s)))
		}
		if prev != nil && !slices.Equal(out, prev) {
			t.Fatalf("run %d explores other states or another order", run)
		}
		prev = out
	}
}

// TestSymmetryFileNameFree: the representatives, and so the order of a
// search and the pairs a refinement check's antichains keep, do not depend
// on the model's file name (a user who renames a file gets the same
// figures).
func TestSymmetryFileNameFree(t *testing.T) {
	src, err := os.ReadFile("../models/testdata/linqueue.csp")
	if err != nil {
		t.Fatal(err)
	}
	var prev []string
	for _, name := range []string{"a.csp", "x.csp", "ccc.csp", "some/dir/seg_q2_s4.csp", "<stdin>"} {
		m, err := lang.Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		c, err := lang.Check(m)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(c)
		if err != nil {
			t.Fatal(err)
		}
		red, why, err := p.SymmetricProcess(&lang.RefProc{Name: &lang.Ident{Name: "Impl"}})
		if err != nil || red.Symmetry() == 0 {
			t.Fatalf("Impl: %v %s", err, why)
		}
		var out []string
		for _, s := range reachable(t, red, 100000) {
			out = append(out, fmt.Sprint(red.Describe(s)))
		}
		if prev != nil && !slices.Equal(out, prev) {
			t.Fatalf("as %s: other representatives or another order than as a.csp", name)
		}
		prev = out
	}
}

// TestCanonPairMemo: the representative of every state of the unreduced
// two-thread systems, computed by canonAll in place with one scratch whose
// pair memo warms up from state to state, equals the one computed into a
// second buffer (canonBytes, canonVars) with a fresh scratch per state
// (every comparison made anew), with the same renaming and ties.
func TestCanonPairMemo(t *testing.T) {
	canon := func(red *Proc, x *scratch, b []byte) string {
		x.enc, x.ends = append(x.enc[:0], b...), append(x.ends[:0], len(b))
		red.canonAll(x)
		return fmt.Sprintf("%q %v %v", x.enc, x.sym.perms, x.sym.tiesOf)
	}
	compared, swapped := 0, 0
	for _, red := range symmetricProcs(t) {
		if red.sym.n != 2 {
			continue
		}
		plain := red.Unreduced()
		warm := &scratch{m: machine{locals: make([]int64, int(red.p.maxLocals.Load())+1)}}
		for _, s := range reachable(t, plain, 20000) {
			b := plain.raw(s, nil)
			fresh := &scratch{m: machine{locals: make([]int64, int(red.p.maxLocals.Load())+1)}}
			var out []byte
			if !red.canonBytes(fresh, b, &out) {
				out = red.canonVars(fresh, b, out)
			}
			fresh.sym.perms, fresh.sym.tiesOf = []lts.Perm{fresh.sym.perm}, []uint64{fresh.sym.tie}
			w, f := canon(red, warm, b), fmt.Sprintf("%q %v %v", out, fresh.sym.perms, fresh.sym.tiesOf)
			if w != f {
				t.Fatalf("%s: state %s: memoised %s, computed %s", red.Name(), plain.Describe(s), w, f)
			}
			compared++
			if fresh.sym.perms[0] != 0 {
				swapped++
			}
		}
	}
	t.Logf("%d states compared, %d swapped", compared, swapped)
	if compared < 1000 || swapped < 100 {
		t.Errorf("%d states compared, %d swapped: too few", compared, swapped)
	}
}
