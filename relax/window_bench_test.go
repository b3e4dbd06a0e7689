package relax_test

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/models"
	"github.com/quasar-verify/quasar/pipeline"
)

// BenchmarkModelWindow checks the window-mode rows of the paper
// reproduction (docs/paper-results.md, Table 4) as `quasar check` does
// (thread symmetry, one worker): `refines<quasi QF window>` of the
// segmented queue against Queue() and of the segmented priority queue
// against PQ() (the library's segpq model asserts no window check; the
// assertion is added, as the paper reproduction does). It reports the CPU
// time of the check (user + system, of the process: on a shared machine it
// spreads far less than wall time), the pairs and the verdict, which must
// be the model's expected one where it states one. QUASAR_WINDOW_TIMEOUT
// (a duration, default 2m) bounds each check; a check that hits it reports
// verdict 0 (unknown).
func BenchmarkModelWindow(b *testing.B) {
	timeout := 2 * time.Minute
	if s := os.Getenv("QUASAR_WINDOW_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		timeout = d
	}
	rows := []struct {
		model   string
		qf, seg int
		want    lts.Verdict // lts.Unknown: no expectation
	}{
		{"segqueue", 3, 1, lts.Valid},
		{"segqueue", 3, 2, lts.Invalid},
		{"segpq", 3, 1, lts.Unknown},
		{"segpq", 3, 2, lts.Unknown},
		{"segqueue", 2, 1, lts.Valid},
		{"segqueue", 2, 2, lts.Invalid},
		{"segqueue", 2, 3, lts.Invalid},
		{"segpq", 2, 1, lts.Unknown},
		{"segpq", 2, 2, lts.Unknown},
		{"segpq", 2, 3, lts.Unknown},
	}
	for _, row := range rows {
		b.Run(fmt.Sprintf("%s/qf=%d/seg=%d", row.model, row.qf, row.seg), func(b *testing.B) {
			name, src, err := models.Generate(row.model, map[string]int{"qf": row.qf, "seg": row.seg})
			if err != nil {
				b.Fatal(err)
			}
			spec := "Queue"
			if row.model == "segpq" {
				spec = "PQ"
			}
			text := fmt.Sprintf("refines<quasi %d window> %s()", row.qf, spec)
			if row.model == "segpq" {
				src = append(src, fmt.Sprintf("\n#assert Impl() %s;\n", text)...)
			}
			var a *pipeline.Assertion
			var cpu []float64
			for b.Loop() {
				start := cpuSeconds()
				rep, err := pipeline.Source(context.Background(), name, src, pipeline.Options{
					Limits: lts.Limits{Timeout: timeout, MaxBytes: 4 << 30}, Workers: 1, Assert: text, Collect: true})
				cpu = append(cpu, cpuSeconds()-start)
				if err != nil {
					b.Fatal(err)
				}
				if len(rep.Assertions) != 1 {
					b.Fatalf("%d assertions match %q", len(rep.Assertions), text)
				}
				a = rep.Assertions[0]
				if row.want != lts.Unknown && a.Verdict != lts.Unknown && a.Verdict != row.want {
					b.Fatalf("verdict %v, want %v", a.Verdict, row.want)
				}
			}
			var sum float64
			for _, c := range cpu {
				sum += c
			}
			b.ReportMetric(sum/float64(len(cpu)), "cpu-s")
			b.ReportMetric(float64(a.Stats.Pairs), "pairs")
			b.ReportMetric(float64(a.Stats.SpecStates), "macrostates")
			b.ReportMetric(float64(a.Verdict), "verdict")
			b.ReportMetric(float64(a.Stats.PeakBytes)/(1<<20), "peak-MiB")

		})
	}
}

// cpuSeconds is the user+system CPU time of the process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
