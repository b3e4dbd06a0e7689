package csp

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// TestTreePathOracle: the path that the parent tree gives to each state
// (its states, and its events found again by expansion) is the path of a
// plain breadth-first search that records, for each new state, the state
// and the transition that first reached it, with one worker and two, with
// and without the thread symmetry.
func TestTreePathOracle(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	srcs := []string{`
var a[5];
P(i) = [] k:{0..4} @ ([a[k] < 2] s.i.k{a[k] = a[k] + 1} -> P(i)) [] ([a[i] == 2] tau{a[i] = 0} -> P(i));
Sys = ||| i:{0..2} @ P(i);
`, `
var x = 0;
P(i) = (a.i{x = (x + i) % 3} -> P(i)) [] (b -> P(i)) [] ([x == 1] a.i -> P(i)) [] (b -> Q(i));
Q(i) = [x < 2] c.i{x = x + 1} -> P(i);
Sys = ||| i:{0..2} @ P(i);
`, `
var x = 0;
var r[4];
P(i) = a{r[i] = 1} -> Q(i);
Q(i) = ([x < 3] b{x = x + 1; r[i] = 2} -> P(i)) [] (c{r[i] = 0} -> R(i)) [] (c -> P(i));
R(i) = [x > 0] d{x = x - 1} -> P(i);
Sys = ||| i:{0..3} @ P(i);
`, philosophersSrc(t, 7)}
	for k, src := range srcs {
		for _, sym := range []bool{false, true} {
			for _, w := range []int{1, 2} {
				p := compileSrc(t, src)
				name := "Sys"
				if k == 3 {
					name = "College"
				}
				var sys *Proc
				var err error
				if sym {
					var why string
					sys, why, err = p.SymmetricProcess(&lang.RefProc{Name: &lang.Ident{Name: name}})
					if k == 2 && (err != nil || sys.Symmetry() != 4) {
						t.Fatalf("source %d: not symmetric: %v %s", k, err, why)
					}
				} else {
					sys, err = p.ProcessByName(name)
				}
				if err != nil || sys == nil {
					t.Fatalf("%d: %v", k, err)
				}
				x := newBFS(context.Background(), sys, Options{Workers: w})
				x.run(func(lts.State, []lts.Transition) bool { return false })
				if x.err != nil {
					t.Fatal(x.err)
				}
				up, ev := oracleTree(t, sys)
				t.Logf("source %d symmetry %v workers %d: %d states", k, sym, w, len(up))
				if int64(len(up)) != x.seen {
					t.Fatalf("%d: %d states, the oracle %d", k, x.seen, len(up))
				}
				for s := range lts.State(len(up)) {
					ss, es, err := x.path(s)
					if err != nil {
						t.Fatal(err)
					}
					var want []string
					for c := s; ; c = up[c] {
						want = append(want, fmt.Sprint(c, ev[c]))
						if c == sys.Initial() {
							break
						}
					}
					slices.Reverse(want)
					var got []string
					for i := range ss {
						got = append(got, fmt.Sprint(ss[i], es[i]))
					}
					if !slices.Equal(got, want) {
						t.Fatalf("source %d, symmetry %v, %d workers: path to %d: %v, the oracle %v", k, sym, w, s, got, want)
					}
				}
			}
		}
	}
}

// oracleTree is a plain breadth-first search of sys: each state's
// predecessor and event, from the first transition that reached it.
func oracleTree(t *testing.T, sys lts.System) (up []lts.State, ev []lts.Event) {
	init := sys.Initial()
	seen := map[lts.State]bool{init: true}
	parent := map[lts.State]lts.State{init: init}
	event := map[lts.State]lts.Event{init: lts.Tau}
	level := []lts.State{init}
	for len(level) > 0 {
		var next []lts.State
		for _, s := range level {
			ts, err := sys.Successors(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range ts {
				if !seen[tr.Target] {
					seen[tr.Target] = true
					parent[tr.Target], event[tr.Target] = s, tr.Event
					next = append(next, tr.Target)
				}
			}
		}
		level = next
	}
	up, ev = make([]lts.State, len(seen)), make([]lts.Event, len(seen))
	for s := range seen {
		if int(s) >= len(seen) {
			t.Fatalf("state %d of %d: ids not dense", s, len(seen))
		}
		up[s], ev[s] = parent[s], event[s]
	}
	return up, ev
}
