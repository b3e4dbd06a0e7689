package csp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/quasar-verify/quasar/lts"
)

// cpuSeconds is the CPU time (user + system) of the process so far; rates
// per CPU second are meaningful on a shared machine where wall time is not.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// BenchmarkExploreSegQueue explores testdata/lts/bench/segqueue.csp (the
// model of bench/spin/segqueue.pml) and reports the states, states per
// second (wall and CPU) and bytes per stored state (the state store plus
// the BFS parent tree).
func BenchmarkExploreSegQueue(b *testing.B) { benchSegQueue(b, 1) }

// BenchmarkExploreSegQueueParallel is the same with one worker per CPU.
func BenchmarkExploreSegQueueParallel(b *testing.B) { benchSegQueue(b, runtime.GOMAXPROCS(0)) }

func benchSegQueue(b *testing.B, workers int) {
	src, err := os.ReadFile("../testdata/lts/bench/segqueue.csp")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var states int64
	var secs, cpu float64
	for i := 0; i < b.N; i++ {
		p := compileSrc(b, string(src))
		sys, err := p.ProcessByName("Queue")
		if err != nil {
			b.Fatal(err)
		}
		c0 := cpuSeconds()
		r, err := Explore(context.Background(), sys, Options{Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuSeconds() - c0
		states += r.Stats.States
		secs += r.Stats.Seconds
		bytes := sys.Bytes() + 8*r.Stats.States
		b.ReportMetric(float64(r.Stats.States), "states")
		b.ReportMetric(float64(r.Stats.Transitions), "transitions")
		b.ReportMetric(float64(bytes)/float64(r.Stats.States), "bytes/state")
	}
	b.ReportMetric(float64(states)/secs, "states/s")
	b.ReportMetric(float64(states)/cpu, "states/cpu-s")
}

// TestSuccessorsDoNotAllocate: once the templates are memoised and the
// events interned, generating successors allocates nothing.
func TestSuccessorsDoNotAllocate(t *testing.T) {
	if raceOn {
		t.Skip("sync.Pool drops items under the race detector")
	}
	p := compileSrc(t, `
var q[3];
var n = 0;
P(i) = [] v:{1..2} @ ([n < 3] put.i.v{q[n] = v; n = n + 1} -> P(i))
    [] [n > 0] take.i.q[n - 1]{n = n - 1; q[n] = 0} -> P(i);
Sys = (||| i:{0..1} @ P(i)) \ {put};
`)
	sys, err := p.ProcessByName("Sys")
	if err != nil {
		t.Fatal(err)
	}
	explore(t, sys) // memoise templates, intern events and states
	n := sys.NumStates()
	var buf []lts.Transition
	allocs := testing.AllocsPerRun(20, func() {
		for s := 0; s < n; s++ {
			buf, _ = sys.Successors(lts.State(s), buf[:0])
		}
	})
	if perCall := allocs / float64(n); perCall > 0.01 {
		t.Errorf("%.3f allocations per Successors call", perCall)
	}
}

// BenchmarkSuccessors measures successor generation alone on a small
// explored model (its states fit in the caches): the compute part of the
// exploration cost, without the memory latency of a big state set.
func BenchmarkSuccessors(b *testing.B) {
	src, err := os.ReadFile("../testdata/lts/bench/segqueue.csp")
	if err != nil {
		b.Fatal(err)
	}
	p := compileSrc(b, strings.Replace(string(src), "#define T 3;", "#define T 2;", 1))
	sys, err := p.ProcessByName("Queue")
	if err != nil {
		b.Fatal(err)
	}
	explore(b, sys)
	n := sys.NumStates()
	var buf []lts.Transition
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		buf, _ = sys.Successors(lts.State(i%n), buf[:0])
	}
	b.ReportMetric((cpuSeconds()-c0)*1e9/float64(b.N), "cpu-ns/op")
}

// TestSpinTwinConstants: the benchmark model and its SPIN twin
// (bench/spin/segqueue.pml) must use the same constants, or their state
// counts cannot agree.
func TestSpinTwinConstants(t *testing.T) {
	csp, err1 := os.ReadFile("../testdata/lts/bench/segqueue.csp")
	pml, err2 := os.ReadFile("../bench/spin/segqueue.pml")
	if err1 != nil || err2 != nil {
		t.Skip("benchmark files missing")
	}
	defs := func(src string, strip string) map[string]string {
		out := map[string]string{}
		for _, line := range strings.Split(src, "\n") {
			f := strings.Fields(strings.TrimSuffix(strings.SplitN(line, "//", 2)[0], strip))
			if len(f) == 3 && f[0] == "#define" {
				out[f[1]] = strings.TrimSuffix(f[2], ";")
			}
		}
		return out
	}
	c, p := defs(string(csp), ""), defs(string(pml), "")
	for _, k := range []string{"T", "S", "M", "V"} {
		if c[k] == "" || c[k] != p[k] {
			t.Errorf("%s: model %q, SPIN twin %q", k, c[k], p[k])
		}
	}
}

// BenchmarkProcess measures building a system (its store included) for a
// tiny model: refinement checks build two per assertion, so this fixed
// cost must stay at microseconds and kilobytes.
func BenchmarkProcess(b *testing.B) {
	p := compileSrc(b, `
var x = 0;
P = a{x = 1 - x} -> P [] b -> Skip;
`)
	if _, err := p.ProcessByName("P"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.ProcessByName("P"); err != nil {
			b.Fatal(err)
		}
	}
}

// threadCPU is the CPU time of the calling thread (Linux
// CLOCK_THREAD_CPUTIME_ID: exact, where RUSAGE_THREAD counts ticks).
func threadCPU() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// BenchmarkExplorePhilosophers explores bench/philosophers/philosophers.csp
// (3^N states) at N = 12 and 14 with 1 and 2 workers, reporting the
// states per wall and per CPU second and, with 2 workers, figures that do
// not depend on the machine's load, from the CPU time of each thread:
// serial-cpu-s, the CPU seconds of the searching goroutine (the serial
// phases and the walk), work-cpu-s, all the CPU seconds of the search,
// and crit-cpu-s, the serial ones plus, in each parallel phase, those of
// its busiest worker: the time the search would take on free cores.
func BenchmarkExplorePhilosophers(b *testing.B) {
	src, err := os.ReadFile("../bench/philosophers/philosophers.csp")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []string{"12", "14"} {
		for _, w := range []int{1, 2} {
			b.Run("N="+n+"/workers="+string(rune('0'+w)), func(b *testing.B) {
				text := strings.Replace(string(src), "#define N 12;", "#define N "+n+";", 1)
				var states int64
				var secs, cpu, serial, work, crit float64
				if w > 1 {
					parCPU = threadCPU
					defer func() { parCPU = nil }()
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
				}
				for i := 0; i < b.N; i++ {
					p := compileSrc(b, text)
					sys, err := p.ProcessByName("College")
					if err != nil {
						b.Fatal(err)
					}
					c0, t0 := cpuSeconds(), threadCPU()
					x := newBFS(context.Background(), sys, Options{Workers: w})
					x.run(func(lts.State, []lts.Transition) bool { return false })
					r := x.finish(&Result{Verdict: lts.Valid})
					cpu += cpuSeconds() - c0
					states += r.Stats.States
					secs += r.Stats.Seconds
					if w > 1 {
						// The searching goroutine's CPU time, less
						// worker 0's parts, which it runs, and its
						// waits for the other workers (it spins); its
						// wake-ups of the workers stay in it.
						own := float64(threadCPU()-t0-x.parCoord-x.parWait) / 1e9
						serial += own
						work += own + float64(x.parWork)/1e9
						crit += own + float64(x.parCrit)/1e9
						b.Logf("phases (ms wall): expand %d grow %d insert %d ids %d patch %d; rounds %d of %d ms; CPU s: waiting %.3f, waking %.3f, serial %.3f (in the rounds %.3f) work %.3f critical path %.3f",
							x.parPhase[0]/1e6, x.parPhase[1]/1e6, x.parPhase[2]/1e6, x.parPhase[3]/1e6, x.parPhase[4]/1e6, x.parTotal/1e6, int64(r.Stats.Seconds*1e3), float64(x.parWait)/1e9, float64(x.parWake)/1e9,
							own, float64(x.parRound-x.parCoord-x.parWait)/1e9, own+float64(x.parWork)/1e9, own+float64(x.parCrit)/1e9)
					}
				}
				b.ReportMetric(float64(states)/secs, "states/s")
				b.ReportMetric(float64(states)/cpu, "states/cpu-s")
				b.ReportMetric(cpu/float64(b.N), "cpu-s")
				if w > 1 {
					b.ReportMetric(serial/float64(b.N), "serial-cpu-s")
					b.ReportMetric(work/float64(b.N), "work-cpu-s")
					b.ReportMetric(crit/float64(b.N), "crit-cpu-s")
				}
			})
		}
	}
}

// BenchmarkDeepWitness explores the philosophers at N = 12 and 14, then
// finds the path of the last state (the one state of the last level, at
// depth 3N-2), with the whole parent tree (tree=whole) and with the tree
// kept below treeKeep only (tree=lean: the path's states beyond it are
// found by scanning the levels above); it reports the CPU seconds of the
// search and of the path (search-cpu-s, path-cpu-s: the searching
// thread's).
func BenchmarkDeepWitness(b *testing.B) {
	for _, n := range []int{12, 14} {
		for _, tree := range []string{"whole", "lean"} {
			b.Run(fmt.Sprintf("N=%d/tree=%s", n, tree), func(b *testing.B) {
				if tree == "whole" {
					defer func(k lts.State) { treeKeep = k }(treeKeep)
					treeKeep = ^lts.State(0)
				}
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				src := philosophersSrc(b, n)
				var search, path float64
				for i := 0; i < b.N; i++ {
					sys, err := compileSrc(b, src).ProcessByName("College")
					if err != nil {
						b.Fatal(err)
					}
					t0 := threadCPU()
					x := newBFS(context.Background(), sys, Options{})
					x.run(func(lts.State, []lts.Transition) bool { return false })
					t1 := threadCPU()
					ss, _, err := x.path(lts.State(x.seen - 1))
					t2 := threadCPU()
					if err != nil || len(ss) != 3*n-1 {
						b.Fatalf("path of %d steps: %v", len(ss)-1, err)
					}
					search += float64(t1-t0) / 1e9
					path += float64(t2-t1) / 1e9
				}
				b.ReportMetric(search/float64(b.N), "search-cpu-s")
				b.ReportMetric(path/float64(b.N), "path-cpu-s")
			})
		}
	}
}
