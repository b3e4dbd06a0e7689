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

// TestCodeCaches: the templates' code caches (Proc.fillCode) hold one
// component's code of a target, of one process's codes. Here the terms are
// shared: by the components of one process, which meet them in different
// orders (so a term's code differs from component to component), and by
// several processes of one program (whose codes differ again), explored
// one after another on the same program with one and two workers. Each
// search is compared with the same process explored with global term ids
// (codesOff) in a program of its own: the same visits, states, counts,
// verdicts and counterexamples.
func TestCodeCaches(t *testing.T) {
	src := `
var n = 0;
X = a{n = (n + 1) % 4} -> Y [] d -> Stop;
Y = b -> Z [] [n == 3] e -> X;
Z = c{n = (n + 3) % 4} -> X;
S1 = X ||| Y ||| Z;
S2 = Z ||| X ||| Y;
S3 = Y ||| Y ||| X;
S4 = X ||| X;
S5 = (X ||| Z) \ {a};
S6 = X \ {a, b};
S7 = Y;
`
	procs := []string{"S1", "S2", "S3", "S4", "S5", "S6", "S7"}
	refs := map[string]searchRecord{}
	for _, name := range procs {
		refs[name] = recordSearch(t, func() *Proc {
			defer func(o bool) { codesOff = o }(codesOff)
			codesOff = true
			sys, err := compileSrc(t, src).Process(&lang.RefProc{Name: &lang.Ident{Name: name}})
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}, 1, 1<<20)
	}
	for _, w := range []int{1, 2} {
		for _, order := range [][]string{procs, {"S7", "S6", "S5", "S4", "S3", "S2", "S1"}} {
			p := compileSrc(t, src)
			for _, name := range order {
				got := recordSearch(t, func() *Proc {
					sys, err := p.Process(&lang.RefProc{Name: &lang.Ident{Name: name}})
					if err != nil {
						t.Fatal(err)
					}
					return sys
				}, w, 1<<20)
				sameSearch(t, fmt.Sprintf("%s after %v, %d workers", name, order, w), refs[name], got, false, false)
			}
		}
	}
	// Every entry of every cache, against the codes: an entry of a process
	// holds the code of its target in its component, and only a one-byte
	// one.
	wide := codesModels[1]
	for _, m := range []struct{ src, proc string }{{src, "S1"}, {src, "S3"}, {wide.src, wide.proc}} {
		p := compileSrc(t, m.src)
		sys, err := p.Process(&lang.RefProc{Name: &lang.Ident{Name: m.proc}})
		if err != nil {
			t.Fatal(err)
		}
		explore(t, sys)
		checked := 0
		for id := range uint32(p.terms.count.Load()) {
			ts := p.term(id).edges.Load()
			if ts == nil {
				continue
			}
			for j := range ts.codes {
				v := ts.codes[j].Load()
				if v == 0 || v>>32 != sys.ckey>>32 {
					continue
				}
				i := int(v >> 8 & (cacheComps - 1))
				want := sys.cd.code(i, sys.stripHides(ts.es[j].target))
				if got := uint32(v & 0xff); got != want || want >= 0x80 {
					t.Errorf("%s: term %d edge %d, component %d: cached code %d, code %d", m.proc, id, j, i, got, want)
				}
				checked++
			}
		}
		if checked < 3 {
			t.Errorf("%s: %d cache entries: the caches are not used", m.proc, checked)
		}
		t.Logf("%s: %d cache entries checked", m.proc, checked)
	}
	for _, name := range procs {
		if r := refs[name]; len(r.visits) < 4 {
			t.Errorf("%s: %d states: the model is too small to test anything", name, len(r.visits))
		}
	}
}
