package csp

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/quasar-verify/quasar/lang"
)

// wideSymModels are two-thread symmetric models whose states are in
// part not one byte per value (values of 64 and more), so that canonAll's
// in-place path falls back within a batch.
var wideSymModels = []string{
	`var r = [0, 0]; var g = 0;
P(t) = a{r[t] = g; g = (g + 7) % 150} -> b{r[t] = (r[t] + 61) % 140} -> P(t);
Sys = ||| t:{0..1} @ P(t);`,
	`var r = [0, 0]; var s = [0, 0]; var g = 0;
P(t) = [r[t] < 2] a{r[t] = r[t] + 1; g = (g + 33) % 99} -> P(t)
  [] [r[t] >= 2] b{s[t] = (s[t] + g) % 9 * 10; r[t] = 0} -> Q(t);
Q(t) = c{g = (g + 1) % 99} -> P(t);
Sys = ||| t:{0..1} @ P(t);`,
}

// TestCanonBatches: canonAll over batches of several states (the
// in-place two-thread path, with a fallback inside a batch) gives, state by
// state, the representative, renaming and ties computed with a fresh
// scratch per state by canonBytes/canonVars.
func TestCanonBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(qseed(9), 9))
	var procs []*Proc
	procs = append(procs, symmetricProcs(t)...)
	for _, src := range wideSymModels {
		p := compileSrc(t, src)
		red, why, err := p.SymmetricProcess(&lang.RefProc{Name: &lang.Ident{Name: "Sys"}})
		if err != nil || red.Symmetry() != 2 {
			t.Fatalf("not symmetric: %v %s", err, why)
		}
		procs = append(procs, red)
	}
	compared, fallbacks := 0, 0
	for _, red := range procs {
		if red.sym.n != 2 {
			continue
		}
		plain := red.Unreduced()
		states := reachable(t, plain, 20000)
		warm := &scratch{m: machine{locals: make([]int64, int(red.p.maxLocals.Load())+1)}}
		for i := 0; i < len(states); {
			k := 1 + rng.IntN(8)
			var raws [][]byte
			x := warm
			x.enc, x.ends = x.enc[:0], x.ends[:0]
			for j := 0; j < k && i < len(states); j++ {
				b := plain.raw(states[rng.IntN(len(states))], nil)
				raws = append(raws, b)
				x.enc = append(x.enc, b...)
				x.ends = append(x.ends, len(x.enc))
				i++
			}
			red.canonAll(x)
			start := 0
			for j, b := range raws {
				fresh := &scratch{m: machine{locals: make([]int64, int(red.p.maxLocals.Load())+1)}}
				var out []byte
				if !red.canonBytes(fresh, b, &out) {
					out = red.canonVars(fresh, b, out)
					fallbacks++
				}
				got := fmt.Sprintf("%q %v %v", x.enc[start:x.ends[j]], x.sym.perms[j], x.sym.tiesOf[j])
				want := fmt.Sprintf("%q %v %v", out, fresh.sym.perm, fresh.sym.tie)
				if got != want {
					t.Fatalf("%s: batch state %d of %d: got %s, want %s", red.Name(), j, len(raws), got, want)
				}
				start = x.ends[j]
				compared++
			}
		}
	}
	t.Logf("%d compared, %d fallbacks", compared, fallbacks)
	if fallbacks == 0 {
		t.Errorf("no fallback exercised")
	}
}

// TestSymmetryOrbitsWideValues: TestSymmetryOrbits on wideSymModels.
func TestSymmetryOrbitsWideValues(t *testing.T) {
	for _, src := range wideSymModels {
		p := compileSrc(t, src)
		red, _, err := p.SymmetricProcess(&lang.RefProc{Name: &lang.Ident{Name: "Sys"}})
		if err != nil || red.Symmetry() != 2 {
			t.Fatal("not symmetric")
		}
		checkOrbits(t, red, false)
	}
}
