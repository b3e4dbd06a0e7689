package refine

import (
	"context"
	"fmt"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// counters is the product of two counters mod n driven by events a and b,
// with a tau step on a third of the states, as an Explicit graph.
func counters(tab *lts.EventTable, n int) *lts.Explicit {
	x := lts.NewExplicit(tab)
	id := func(i, j int) lts.State { return lts.State(i*n + j) }
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x.Add(id(i, j), "a", id((i+1)%n, j))
			x.Add(id(i, j), "b", id(i, (j+1)%n))
			if (i+j)%3 == 0 {
				x.Add(id(i, j), "tau", id(i, (j+n-1)%n))
			}
		}
	}
	return x
}

// modSpec counts a-b mod m; with nondet, a may also skip one count, so
// macrostates hold several states.
func modSpec(tab *lts.EventTable, m int, nondet bool) *lts.Explicit {
	x := lts.NewExplicit(tab)
	for k := 0; k < m; k++ {
		x.Add(lts.State(k), "a", lts.State((k+1)%m))
		x.Add(lts.State(k), "b", lts.State((k+m-1)%m))
		if nondet {
			x.Add(lts.State(k), "a", lts.State((k+2)%m))
		}
	}
	return x
}

// benchCheck runs Check on any System and Automaton and reports product
// pairs per second; a model benchmark is a call to it.
func benchCheck(b *testing.B, impl lts.System, spec func() lts.Automaton, opt Options) {
	b.Helper()
	b.ReportAllocs()
	var pairs int64
	var secs float64
	cpu0 := cpuSeconds()
	for b.Loop() {
		res, err := Check(context.Background(), impl, spec(), opt)
		if err != nil {
			b.Fatal(err)
		}
		pairs += res.Stats.Pairs
		secs += res.Stats.Seconds
		b.ReportMetric(float64(res.Stats.Pairs), "pairs")
	}
	b.ReportMetric(float64(pairs)/secs, "pairs/s")
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(pairs)/cpu, "pairs/cpu-s")
	}
}

func BenchmarkCounters(b *testing.B) {
	tab := lts.NewEventTable()
	impl := counters(tab, 256) // 65536 impl states
	det := modSpec(tab, 37, false)
	nondet := modSpec(tab, 37, true)
	for _, bc := range []struct {
		name string
		spec lts.Automaton
		opt  Options
	}{
		{"det", det, Options{}},
		{"det/workers=2", det, Options{Workers: 2}},
		{"nondet", nondet, Options{}},
		{"nondet/noantichain", nondet, Options{NoAntichain: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchCheck(b, impl, func() lts.Automaton { return bc.spec }, bc.opt)
		})
	}
}

// slow is a System whose successor generation costs about as much as a
// compiled model's (a few hundred nanoseconds of work per state).
type slow struct{ *lts.Explicit }

var slowSink uint64

func (s slow) Successors(st lts.State, buf []lts.Transition) ([]lts.Transition, error) {
	h := uint64(st)
	for i := 0; i < 1000; i++ {
		h = h*6364136223846793005 + 1442695040888963407
	}
	if h == 42 {
		slowSink++
	}
	return s.Explicit.Successors(st, buf)
}

func BenchmarkSlowSuccessors(b *testing.B) {
	tab := lts.NewEventTable()
	impl := slow{counters(tab, 256)}
	spec := modSpec(tab, 7, false)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			benchCheck(b, impl, func() lts.Automaton { return spec }, Options{Workers: w})
		})
	}
}
