package ltl

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

// TestHolds: the lasso evaluator on hand-computed cases. Words are written
// one letter per position as the set of atoms true there; "|" marks the
// start of the loop.
func TestHolds(t *testing.T) {
	tests := []struct {
		f, word string
		want    bool
	}{
		{"a", "a b", true},
		{"a", "b a", false},
		{"X a", "b | a", true},
		{"X X a", "b | a b", false},
		{"[]<> a", "b | b a", true},
		{"[]<> a", "a a | b", false},
		{"<>[] b", "a a | b", true},
		{"a U b", "a a b | c", true},
		{"a U b", "a a | a", false}, // b never comes: strong until
		{"a R b", "b b | b", true},  // b forever releases nothing
		{"a R b", "b ab | c", true},
		{"a R b", "b c | b", false},
		{"[] (a -> X b)", "a b | c", true},
		{"[] (a -> X b)", "| a c", false},
		{"a <-> X a", "a a | c", true},
		{"!(a && b) || c", "ab c", false},
		{"true U false", "| a", false},
	}
	for _, tc := range tests {
		p, err := Parse("", 0, 0, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		idx := map[string]int{}
		for i, a := range p.Atoms {
			idx[a.Name] = i
		}
		var w [][]bool
		loop := -1
		for _, tok := range strings.Fields(tc.word) {
			if tok == "|" {
				loop = len(w)
				continue
			}
			l := make([]bool, len(p.Atoms))
			for _, r := range tok {
				if i, ok := idx[string(r)]; ok {
					l[i] = true
				}
			}
			w = append(w, l)
		}
		if loop < 0 {
			loop = len(w) - 1
		}
		if got := Holds(p.Root, w, loop); got != tc.want {
			t.Errorf("%s on %s: %v, want %v", tc.f, tc.word, got, tc.want)
		}
	}
}

func explicit(edges [][3]any, final ...int) *lts.Explicit {
	x := lts.NewExplicit(nil)
	for _, e := range edges {
		x.Add(lts.State(e[0].(int)), e[1].(string), lts.State(e[2].(int)))
	}
	x.Final = make([]bool, len(x.Edges))
	for _, f := range final {
		x.Final[f] = true
	}
	return x
}

// TestSteps: the semantics of tau, deadlock and termination steps.
func TestSteps(t *testing.T) {
	skip := explicit([][3]any{{0, "a", 1}}, 1) // a -> Skip
	stop := explicit([][3]any{{0, "a", 1}})    // a -> Stop
	hidden := explicit([][3]any{{0, "tau", 1}, {1, "a", 0}})
	tests := []struct {
		sys  *lts.Explicit
		f    string
		want lts.Verdict
	}{
		{skip, "a && X terminate", lts.Valid},
		// Skip terminates once, then behaves as Stop.
		{skip, "X terminate && X X [] !terminate", lts.Valid},
		{skip, "<>[] terminate", lts.Invalid},
		{stop, "X [] !terminate && X [] !a", lts.Valid},
		{stop, "<> terminate", lts.Invalid},
		{hidden, "[]<> a", lts.Valid},
		{hidden, "a", lts.Invalid}, // the first step is tau: no event atom holds
		{hidden, "[] (tau_never -> a)", lts.Valid},
	}
	for _, tc := range tests {
		p, err := Parse("", 0, 0, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var atoms []Atom
		for _, a := range p.Atoms {
			atoms = append(atoms, Atom{Name: a.Name})
		}
		res, err := Check(context.Background(), tc.sys, p, atoms, Options{})
		if err != nil || res.Verdict != tc.want {
			t.Errorf("%s: %v %v, want %v", tc.f, res.Verdict, err, tc.want)
		}
	}
}

// TestLimits: a hit limit is Unknown with the stats so far; a cancelled
// context too.
func TestLimits(t *testing.T) {
	x := lts.NewExplicit(nil)
	const n = 100000
	for i := range n {
		x.Add(lts.State(i), "a", lts.State((i+1)%n))
	}
	p, _ := Parse("", 0, 0, "[]<> a")
	atoms := []Atom{{Name: "a"}}
	res, err := Check(context.Background(), x, p, atoms, Options{Limits: lts.Limits{MaxStates: 10000}})
	if err != nil || res.Verdict != lts.Unknown || !strings.HasPrefix(res.Reason, "state limit") || res.Stats.States < 10000 {
		t.Errorf("state limit: %+v %v", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = Check(ctx, x, p, atoms, Options{Limits: lts.Limits{Timeout: time.Minute}})
	if err != nil || res.Verdict != lts.Unknown || res.Reason != "cancelled" {
		t.Errorf("cancelled: %+v %v", res, err)
	}
	res, err = Check(context.Background(), x, p, atoms, Options{})
	if err != nil || res.Verdict != lts.Valid || res.Stats.States < n {
		t.Errorf("no limit: %+v %v", res, err)
	}
}

// TestDeterministic: the same check gives the same counterexample.
func TestDeterministic(t *testing.T) {
	x := explicit([][3]any{{0, "a", 1}, {0, "b", 2}, {1, "b", 0}, {2, "c", 2}, {2, "a", 0}, {1, "c", 3}, {3, "a", 3}})
	p, _ := Parse("", 0, 0, "[]<> b")
	atoms := []Atom{{Name: "b"}}
	var first *Lasso
	for range 20 {
		for _, f := range []Fairness{NoFairness, Weak, Strong, Global} {
			res, err := Check(context.Background(), x, p, atoms, Options{Fairness: f})
			if err != nil || res.Verdict != lts.Invalid {
				t.Fatalf("%v: %+v %v", f, res, err)
			}
			if f == NoFairness {
				if first == nil {
					first = res.Counterexample
				} else if !reflect.DeepEqual(first, res.Counterexample) {
					t.Fatalf("%v then %v", first, res.Counterexample)
				}
			}
		}
	}
}

// TestBadAtoms: errors, not panics.
func TestBadAtoms(t *testing.T) {
	p, _ := Parse("", 0, 0, "a && b")
	if _, err := Check(context.Background(), lts.NewExplicit(nil), p, []Atom{{Name: "a"}}, Options{}); err == nil {
		t.Error("missing atom accepted")
	}
	if _, err := Check(context.Background(), nil, p, nil, Options{}); err == nil {
		t.Error("nil system accepted")
	}
	if _, err := ParseFairness("fair"); err == nil {
		t.Error("bad fairness accepted")
	}
}
