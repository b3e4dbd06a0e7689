package lts

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTauClosedOracle: Closure, Step and Enabled of a TauClosed,
// asked in random order (memo warm or cold), equal a brute-force
// computation on random systems with tau steps.
func TestTauClosedOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	names := []string{"tau", "a", "b", "c"}
	for c := 0; c < 2000; c++ {
		tab := NewEventTable()
		x := NewExplicit(tab)
		n := 1 + rng.IntN(12)
		for i := 0; i < n; i++ {
			x.AddState()
		}
		for k := rng.IntN(3 * n); k > 0; k-- {
			x.Add(State(rng.IntN(n)), names[rng.IntN(4)], State(rng.IntN(n)))
		}
		clo := func(s State) []State {
			seen := map[State]bool{s: true}
			st := []State{s}
			for len(st) > 0 {
				u := st[len(st)-1]
				st = st[:len(st)-1]
				for _, tr := range x.Edges[u] {
					if tr.Event == Tau && !seen[tr.Target] {
						seen[tr.Target] = true
						st = append(st, tr.Target)
					}
				}
			}
			var out []State
			for s := range seen {
				out = append(out, s)
			}
			slices.Sort(out)
			return out
		}
		a := NewTauClosed(x)
		for q := 0; q < 40; q++ {
			s := State(rng.IntN(n))
			switch rng.IntN(3) {
			case 0:
				got, _ := a.Closure(s)
				if !slices.Equal(got, clo(s)) {
					t.Fatalf("closure %v: %v want %v", s, got, clo(s))
				}
			case 1:
				e := tab.InternName(names[1+rng.IntN(3)])
				got, _ := a.Step(s, e, []State{99})
				var want []State
				for _, u := range clo(s) {
					for _, tr := range x.Edges[u] {
						if tr.Event == e {
							want = append(want, tr.Target)
						}
					}
				}
				slices.Sort(want)
				want = slices.Compact(want)
				got2 := slices.Clone(got[1:])
				slices.Sort(got2)
				if got[0] != 99 || !slices.Equal(slices.Compact(got2), want) {
					t.Fatalf("step %v %v: %v want %v", s, e, got, want)
				}
			case 2:
				got, _ := a.Enabled(s, nil)
				var want []Event
				for _, u := range clo(s) {
					for _, tr := range x.Edges[u] {
						if tr.Event != Tau {
							want = append(want, tr.Event)
						}
					}
				}
				slices.Sort(want)
				want = slices.Compact(want)
				g := slices.Clone(got)
				slices.Sort(g)
				if !slices.Equal(slices.Compact(g), want) {
					t.Fatalf("enabled %v: %v want %v", s, got, want)
				}
			}
		}
	}
}
