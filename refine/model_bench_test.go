package refine

import (
	"context"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/internal/modeltest"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// libraryAssertion compiles a model of the library and returns its
// assertion whose text starts with text (after "#assert ").
func libraryAssertion(b *testing.B, name string, params map[string]int, text string) (*csp.Program, *lang.AssertDecl) {
	b.Helper()
	prog, c, src := modeltest.Compile(b, name, params)
	for _, a := range c.Info.Asserts {
		at := string(src[a.Pos().Offset:a.End().Offset])
		if strings.HasPrefix(strings.TrimPrefix(at, "#assert "), text) {
			return prog, a
		}
	}
	b.Fatalf("%s: no assertion %q", name, text)
	return nil, nil
}

// libraryCheck checks the refinement assertion a of prog with fresh
// systems.
func libraryCheck(b *testing.B, prog *csp.Program, a *lang.AssertDecl, opt Options) *Result {
	b.Helper()
	impl, err := prog.Process(a.Left)
	if err != nil {
		b.Fatal(err)
	}
	spec, err := prog.Process(a.Right)
	if err != nil {
		b.Fatal(err)
	}
	res, err := Check(context.Background(), impl, lts.NewTauClosed(spec), opt)
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// BenchmarkModel checks standard refinement on the model library's
// linearizable queue and segmented queue and reports product pairs per
// second. Each iteration builds fresh systems, so state interning is
// measured too.
func BenchmarkModel(b *testing.B) {
	for _, bc := range []struct {
		name, model string
		params      map[string]int
		assert      string
		want        lts.Verdict
	}{
		{"tiny", "segqueue", map[string]int{"qf": 1, "seg": 1}, "Impl() refines ClusterSpec()", lts.Valid},
		{"segqueue/cluster-seg2-track", "segqueue", map[string]int{"qf": 1, "seg": 2, "track": 1}, "Impl() refines ClusterSpec()", lts.Valid},
		{"segqueue/cluster-seg3-track", "segqueue", map[string]int{"qf": 1, "seg": 3, "track": 1}, "Impl() refines ClusterSpec()", lts.Valid},
		{"segqueue/cluster-seg6-track", "segqueue", map[string]int{"qf": 1, "seg": 6, "track": 1}, "Impl() refines ClusterSpec()", lts.Valid},
		{"linqueue/ops", "linqueue", map[string]int{"cap": 3, "vals": 2}, "Impl() refines Queue()", lts.Valid},
		{"linqueue/inv-res", "linqueue", map[string]int{"cap": 2, "vals": 2}, "ImplIR() refines SpecIR()", lts.Valid},
		{"segqueue/cluster-seg2", "segqueue", map[string]int{"qf": 1, "seg": 2}, "Impl() refines ClusterSpec()", lts.Valid},
		{"segqueue/cluster-seg3", "segqueue", map[string]int{"qf": 1, "seg": 3}, "Impl() refines ClusterSpec()", lts.Valid},
		{"segqueue/cluster-qf2-seg3", "segqueue", map[string]int{"qf": 2, "seg": 3}, "Impl() refines ClusterSpec()", lts.Valid},
		{"segqueue/cluster-seg4-vals3", "segqueue", map[string]int{"qf": 1, "seg": 4, "vals": 3}, "Impl() refines ClusterSpec()", lts.Valid},
	} {
		b.Run(bc.name, func(b *testing.B) {
			prog, a := libraryAssertion(b, bc.model, bc.params, bc.assert)
			var pairs int64
			var secs float64
			b.ReportAllocs()
			cpu0 := cpuSeconds()
			for b.Loop() {
				res := libraryCheck(b, prog, a, Options{})
				if res.Verdict != bc.want {
					b.Fatalf("verdict %v, want %v", res.Verdict, bc.want)
				}
				pairs += res.Stats.Pairs
				secs += res.Stats.Seconds
				b.ReportMetric(float64(res.Stats.Pairs), "pairs")
				b.ReportMetric(float64(res.Stats.ImplStates), "impl-states")
			}
			b.ReportMetric(float64(pairs)/secs, "pairs/s")
			// The machine is shared: CPU time is the steadier measure.
			if cpu := cpuSeconds() - cpu0; cpu > 0 {
				b.ReportMetric(float64(pairs)/cpu, "pairs/cpu-s")
			}
		})
	}
}

// BenchmarkFailures checks stable-failures and failures-divergences
// refinement of a library model by itself (valid by definition; the
// product pairs every impl state with the normal-form node of its traces)
// and on the explicit counters graph (a million states, against a
// deterministic spec), and reports product pairs per second. (The library's
// own refinement assertions fail in F at once: a thread in the middle of an
// operation refuses what the sequential specification offers.)
func BenchmarkFailures(b *testing.B) {
	for _, bc := range []struct {
		name, model string
		params      map[string]int
	}{
		{"segqueue-seg3-self", "segqueue", map[string]int{"qf": 1, "seg": 3}},
		{"segqueue-seg4-vals3-self", "segqueue", map[string]int{"qf": 1, "seg": 4, "vals": 3}},
	} {
		for _, c := range []struct {
			model   Model
			workers int
		}{{StableFailures, 1}, {StableFailures, 2}, {FailuresDivergences, 1}} {
			name := bc.name + "/" + c.model.String()
			if c.workers > 1 {
				name += "/workers=2"
			}
			b.Run(name, func(b *testing.B) {
				prog, a := libraryAssertion(b, bc.model, bc.params, "Impl() refines ClusterSpec()")
				benchFailures(b, func() (lts.System, lts.System) {
					impl, err := prog.Process(a.Left)
					if err != nil {
						b.Fatal(err)
					}
					spec, err := prog.Process(a.Left)
					if err != nil {
						b.Fatal(err)
					}
					return impl, spec
				}, c.model, c.workers)
			})
		}
	}
	for _, model := range []Model{StableFailures, FailuresDivergences} {
		b.Run("counters-1024/"+model.String(), func(b *testing.B) {
			tab := lts.NewEventTable()
			impl, spec := counters(tab, 1024), modSpec(tab, 7, false)
			benchFailures(b, func() (lts.System, lts.System) { return impl, spec }, model, 1)
		})
	}
}

func benchFailures(b *testing.B, sides func() (lts.System, lts.System), model Model, workers int) {
	b.ReportAllocs()
	var pairs int64
	var secs float64
	cpu0 := cpuSeconds()
	for b.Loop() {
		impl, spec := sides()
		res, err := CheckFailures(context.Background(), impl, spec, model, Options{Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		if res.Verdict != lts.Valid {
			b.Fatalf("verdict %v: %+v", res.Verdict, res.Counterexample)
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

// BenchmarkWorkers checks standard refinement on the largest of
// BenchmarkModel's instances with one worker and with two, the workers
// either calling impl.Successors concurrently and leaving the walk and
// the store to the search (an Expander: what a system without Rounds
// gets) or storing the successors themselves in *csp.Proc's parallel
// rounds (the default for a Proc), side by side. It reports the pairs per
// wall second and the CPU seconds per check.
//
//	go test ./refine -run '^$' -bench Workers -count 6
func BenchmarkWorkers(b *testing.B) {
	for _, bc := range []struct {
		name, model string
		params      map[string]int
		assert      string
	}{
		{"cluster-qf2-seg3", "segqueue", map[string]int{"qf": 2, "seg": 3}, "Impl() refines ClusterSpec()"},
		{"cluster-seg4-vals3", "segqueue", map[string]int{"qf": 1, "seg": 4, "vals": 3}, "Impl() refines ClusterSpec()"},
	} {
		for _, c := range []struct {
			name string
			opt  Options
		}{
			{"workers=1", Options{}},
			{"workers=2/expander", Options{Workers: 2, noRounds: true}},
			{"workers=2/rounds", Options{Workers: 2}},
			// A callback, as the CLI's progress line sets: its
			// figures are held while a walk runs in a round.
			{"workers=2/rounds/progress", Options{Workers: 2, Progress: func(Stats) {}}},
		} {
			b.Run(bc.name+"/"+c.name, func(b *testing.B) {
				prog, a := libraryAssertion(b, bc.model, bc.params, bc.assert)
				var pairs int64
				var secs float64
				cpu0 := cpuSeconds()
				for b.Loop() {
					res := libraryCheck(b, prog, a, c.opt)
					if res.Verdict != lts.Valid {
						b.Fatalf("verdict %v", res.Verdict)
					}
					pairs += res.Stats.Pairs
					secs += res.Stats.Seconds
				}
				b.ReportMetric(float64(pairs)/secs, "pairs/s")
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s")
			})
		}
	}
}
