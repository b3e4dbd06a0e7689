package csp

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// TestCodesConcurrent: goroutines ask for the codes of random (component,
// term) pairs at once, terms shared by several components among them.
// Every pair gets one code whatever the interleaving, each component's
// codes are 0..k-1 without a gap, and term inverts code.
func TestCodesConcurrent(t *testing.T) {
	for _, tc := range []struct{ comps, terms, workers, asks int }{
		{1, 300, 4, 2000}, {3, 50, 4, 2000}, {14, 100, 8, 4000}, {40, 2000, 4, 20000},
	} {
		c := newCodes(tc.comps)
		got := make([]map[[2]uint32]uint32, tc.workers)
		var wg sync.WaitGroup
		for w := range tc.workers {
			got[w] = map[[2]uint32]uint32{}
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				for range tc.asks {
					i := rng.IntN(tc.comps)
					tm := uint32(rng.IntN(tc.terms))
					if rng.IntN(4) == 0 {
						tm = uint32(rng.IntN(8)) // terms every component meets
					}
					k := c.code(i, tm)
					if back := c.term(i, k); back != tm {
						t.Errorf("%v: term(%d, code(%d, %d) = %d) = %d", tc, i, i, tm, k, back)
						return
					}
					got[w][[2]uint32{uint32(i), tm}] = k
				}
			}(w)
		}
		wg.Wait()
		all := map[[2]uint32]uint32{}
		for _, g := range got {
			for key, k := range g {
				if old, ok := all[key]; ok && old != k {
					t.Fatalf("%v: component %d term %d: codes %d and %d", tc, key[0], key[1], old, k)
				}
				all[key] = k
			}
		}
		for i := range tc.comps {
			seen := map[uint32]bool{}
			for key, k := range all {
				if key[0] == uint32(i) {
					seen[k] = true
				}
			}
			n := len(c.terms(i))
			if len(seen) != n {
				t.Fatalf("%v: component %d: %d codes asked, %d given", tc, i, len(seen), n)
			}
			for k := range n {
				if !seen[uint32(k)] {
					t.Fatalf("%v: component %d: code %d given but never returned", tc, i, k)
				}
			}
		}
	}
}

// codesModels are models with more than 127 terms in all: spread over
// several components (each a few dozen, so every code takes one byte,
// while the global term ids of the later terms pass 127 and took two
// bytes before), in one component (more than 127 codes: two bytes from
// the 129th), and split between symmetric threads (the representatives of
// SymmetricProcess, on the canonBytes path of three threads and the
// canonPair path of two).
var codesModels = []struct {
	name, src, proc string
	sym             bool
	wide            bool // one component has more than 127 codes
}{
	{"several", `
var turn = 0;
var x = 0;
C(i, k) = if (k < 50) { [turn == i] t.i.k{turn = (turn + 1) % 3; x = (x + k) % 7} -> C(i, k + 1) } else { Stop };
Sys = ||| i:{0..2} @ C(i, 0);
`, "Sys", false, false},
	{"one wide", `
var y = 0;
W(k) = if (k < 200) { w.k -> W(k + 1) [] u{y = (y + 1) % 3} -> W(k) } else { Stop };
S(b) = if (b < 3) { s.b -> S(b + 1) } else { Stop };
Sys = W(0) ||| S(0);
`, "Sys", false, true},
	{"three threads", `
var r = [0, 0, 0];
P(t) = Q(t, 0);
Q(t, k) = if (k < 40) { a{r[t] = (r[t] + 1) % 2} -> Q(t, k + 1) } else { Stop };
Sys = ||| t:{0..2} @ P(t);
`, "Sys", true, false},
	{"two threads", `
var r = [0, 0];
P(t) = Q(t, 0);
Q(t, k) = if (k < 50) { a{r[t] = (r[t] + 1) % 3} -> Q(t, k + 1) [] b{r[t] = 0} -> Q(t, k) } else { Stop };
Sys = ||| t:{0..1} @ P(t);
`, "Sys", true, false},
}

// TestCodesAgainstTermIDs: the models above explored with component codes
// and with the global term ids as before (codesOff), with one and two
// workers: the same visits (ids, transitions), the same states (by
// Describe), counts, verdicts and counterexamples. With codes every state
// takes one byte per value unless a component has more than 127 codes;
// with term ids some do not (the models do reach past id 127).
func TestCodesAgainstTermIDs(t *testing.T) {
	for _, m := range codesModels {
		mk := func(off bool) func() *Proc {
			return func() *Proc {
				defer func(o bool) { codesOff = o }(codesOff)
				codesOff = off
				p := compileSrc(t, m.src)
				q := &lang.RefProc{Name: &lang.Ident{Name: m.proc}}
				if m.sym {
					red, why, err := p.SymmetricProcess(q)
					if err != nil || why != "" {
						t.Fatalf("%s: %v %s", m.name, err, why)
					}
					return red
				}
				sys, err := p.Process(q)
				if err != nil {
					t.Fatal(err)
				}
				return sys
			}
		}
		ref := recordSearch(t, mk(true), 1, 1<<20)
		for _, w := range []int{1, 2} {
			got := recordSearch(t, mk(false), w, 1<<20)
			sameSearch(t, fmt.Sprintf("%s, %d workers", m.name, w), ref, got, false, false)
		}
		if ref.verdict != lts.Invalid || ref.trace == "" {
			t.Errorf("%s: %v %q: the models end in a deadlock", m.name, ref.verdict, ref.trace)
		}
		// The bytes: the longest state with codes and with term ids.
		for _, off := range []bool{false, true} {
			sys := mk(off)()
			explore(t, sys)
			short := sys.ncomp + sys.nvars
			longest := 0
			for id := range sys.NumStates() {
				longest = max(longest, len(sys.raw(lts.State(id), nil)))
			}
			terms := int(sys.p.terms.count.Load())
			switch {
			case terms <= 127:
				t.Errorf("%s: %d terms: the model must have more than 127", m.name, terms)
			case off && longest == short:
				t.Errorf("%s: term ids: every state is short (%d bytes): the model does not reach the cliff", m.name, short)
			case !off && !m.wide && longest != short:
				t.Errorf("%s: codes: a state takes %d bytes, not %d", m.name, longest, short)
			case !off && m.wide && longest != short+1:
				t.Errorf("%s: codes: the longest state takes %d bytes, not %d", m.name, longest, short+1)
			}
			t.Logf("%s, codesOff %v: %d states, %d terms, states of %d to %d bytes", m.name, off, sys.NumStates(), terms, short, longest)
		}
	}
}
