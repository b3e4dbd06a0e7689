package csp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/quasar-verify/quasar/lts"
)

// TestExpandIsolated (issue 21, docs/engine-log.md "Two workers, the expansion
// isolated"): explores the philosophers with one worker, then times the
// parallel search's expand phase (parSearch.expand: AppendGet, expandRaw,
// hashStrings into a worker's scratch) over every stored state, by one
// goroutine and by two goroutines at once on the two halves, each with its
// own parWorker and scratch, in rounds of parRound states. It reports the
// CPU time of each goroutine's thread; it is an experiment, run only with
// QUASAR_ISO=N (the philosophers' count), and checks nothing but that both
// ways make the same successors.
func TestExpandIsolated(t *testing.T) {
	n := os.Getenv("QUASAR_ISO")
	if n == "" {
		t.Skip("QUASAR_ISO not set")
	}
	src, err := os.ReadFile("../bench/philosophers/philosophers.csp")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "#define N 12;", "#define N "+n+";", 1)
	p := compileSrc(t, text)
	sys, err := p.ProcessByName("College")
	if err != nil {
		t.Fatal(err)
	}
	x := newBFS(context.Background(), sys, Options{Workers: 1})
	x.run(func(lts.State, []lts.Transition) bool { return false })
	res := x.finish(&Result{Verdict: lts.Valid})
	ns := int(res.Stats.States)
	t.Logf("N = %s: %d states", n, ns)
	states := make([]lts.State, ns)
	for i := range states {
		states[i] = lts.State(i)
	}
	reps := 5
	if v := os.Getenv("QUASAR_ISO_REPS"); v != "" {
		fmt.Sscan(v, &reps)
	}
	modes := strings.Split(os.Getenv("QUASAR_ISO_MODES"), ",")
	if modes[0] == "" {
		modes = []string{"one", "two", "pair"}
	}
	res2 := map[string][]float64{}
	for rep := 0; rep < reps; rep++ {
		for _, mode := range modes {
			cpu, wall, succ := isoRun(sys, states, mode)
			per := float64(cpu) / float64(ns)
			res2[mode] = append(res2[mode], per)
			t.Logf("rep %d %-5s: CPU %.3f s (%.1f ns/state), wall %.3f s, %d successors, ping-pong %.0f ns",
				rep, mode, float64(cpu)/1e9, per, wall.Seconds(), succ, pingPong())
		}
	}
	for _, mode := range modes {
		v := res2[mode]
		sort.Float64s(v)
		t.Logf("%-5s median %.1f ns/state (min %.1f, max %.1f)", mode, v[len(v)/2], v[0], v[len(v)-1])
	}
}

// isoRun expands states by mode: "one" (one goroutine, all states), "two"
// (two goroutines at once, a half each), "pair" (the two halves one after
// the other on two goroutines: the same work as "two", not overlapping),
// "oneT" (one goroutine rewriting each round's records before expanding
// it); the modes of isoCross otherwise. It returns the CPU nanoseconds of
// the expanding threads, the wall time and the successors made (0 when
// not counted).
func isoRun(sys *Proc, states []lts.State, mode string) (int64, time.Duration, int) {
	W := 1
	if mode != "one" && mode != "oneT" {
		W = 2
	}
	if strings.HasPrefix(mode, "twoK") || mode == "twoX" || mode == "twoS" || mode == "twoT" || mode == "twoR" || mode == "twoRs" || mode == "twoW" || mode == "twoWs" || mode == "twoRP" || mode == "twoRF" || mode == "twoRG" {
		return isoCross(sys, states, mode)
	}
	r := newParSearch(sys, W)
	defer r.close()
	half := len(states) / 2
	ranges := [][2]int{{0, len(states)}}
	if W == 2 {
		ranges = [][2]int{{0, half}, {half, len(states)}}
	}
	var cpu atomic.Int64
	succ := make([]int, W)
	run := func(w int) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c0 := threadCPU()
		// Each goroutine its own parSearch view (lo, states) over its
		// own worker record, as the expand phase sees it.
		rw := &parSearch{p: r.p, s: r.s, W: W, P: r.P, pbits: r.pbits, ws: r.ws,
			lo: make([]int, W+1)}
		lo, hi := ranges[w][0], ranges[w][1]
		for a := lo; a < hi; a += parRound {
			b := min(a+parRound, hi)
			rw.states = states[a:b]
			for i := range rw.lo {
				rw.lo[i] = 0
			}
			for i := w + 1; i <= W; i++ {
				rw.lo[i] = b - a
			}
			rw.expand(w)
			succ[w] += len(r.ws[w].x.ends)
		}
		cpu.Add(threadCPU() - c0)
	}
	t0 := time.Now()
	switch mode {
	case "one":
		run(0)
	case "oneT":
		// As twoT with one goroutine: it rewrites the records of each
		// round itself before expanding it (the expansion's CPU only).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var c int64
		x := isoWorker(r, 0, 1)
		for a := 0; a < len(states); a += parRound {
			b := min(a+parRound, len(states))
			isoTouch(r.s, states[a:b], 0, 1)
			c0 := threadCPU()
			x(states[a:b])
			c += threadCPU() - c0
		}
		return c, time.Since(t0), 0
	case "two":
		var wg sync.WaitGroup
		for w := range W {
			wg.Add(1)
			go func() { defer wg.Done(); run(w) }()
		}
		wg.Wait()
	case "pair":
		for w := range W {
			done := make(chan struct{})
			go func() { defer close(done); run(w) }()
			<-done
		}
	}
	wall := time.Since(t0)
	total := 0
	for _, s := range succ {
		total += s
	}
	return cpu.Load(), wall, total
}

// pingPong is BenchmarkPingPong's round trip (internal/gang) over 200,000
// exchanges, in ns: the cross-core latency of the moment.
func pingPong() float64 {
	type line struct {
		_ [128]byte
		v atomic.Int64
		_ [128]byte
	}
	var ping, pong line
	const n = 200000
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := int64(1); i <= n; i++ {
			for ping.v.Load() != i {
			}
			pong.v.Store(i)
		}
		close(done)
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := time.Now()
	for i := int64(1); i <= n; i++ {
		ping.v.Store(i)
		for pong.v.Load() != i {
		}
	}
	<-done
	return float64(time.Since(t0).Nanoseconds()) / n
}

var isoZero byte

// isoTouch rewrites (with their own bytes) the index entries and dense
// records of the states whose id%m == j, as a partition's owner writes
// them when it gives them their ids.
func isoTouch(s *store, sts []lts.State, j, m int) {
	z := isoZero
	for _, id := range sts {
		if int(id)%m != j {
			continue
		}
		k := uint32(id)
		if s.width >= 0 {
			e := &s.index[id>>refBits][id&(refBlock-1)]
			*e ^= uint32(z)
			k = *e >> 1
		}
		if s.side.recLen >= 0 {
			b := s.side.denseAt(uint64(k))
			b[0] ^= z
		}
	}
}

// isoWorker returns a function expanding states as worker w of W does.
func isoWorker(r *parSearch, w, W int) func([]lts.State) {
	rw := &parSearch{p: r.p, s: r.s, W: W, P: r.P, pbits: r.pbits, ws: r.ws,
		lo: make([]int, W+1)}
	return func(sts []lts.State) {
		rw.states = sts
		for i := range rw.lo {
			rw.lo[i] = 0
		}
		for i := w + 1; i <= W; i++ {
			rw.lo[i] = len(sts)
		}
		rw.expand(w)
	}
}

// isoCross: two goroutines in rounds with a barrier, as the search's
// rounds; the states of round k are the pair of chunks k of the halves.
// Before expanding round k+1's chunk, its records were rewritten in round k
// by: twoX, the other goroutine (every line last written by the other
// core); twoS, interleaved (ids of one parity by each: lines of both);
// twoT, the goroutine itself (the control). After each round the
// insert phase's reads of the workers' buffers (strings, ends, hashes,
// packed keys, routes) are done by: twoR, the other goroutine; twoRs, the
// goroutine itself (the control); twoW/twoWs, the same with the results
// written; twoRP, as twoR with the worker asking for its buffers' lines
// (prefetchw) before expanding; twoRF, as twoR with the worker flushing
// them (CLFLUSHOPT) first; twoRG, as twoR with the reader flushing what it
// read; twoK<n>, as twoR with n sets of buffers used in turn. Only the
// expansions' CPU is counted.
func isoCross(sys *Proc, states []lts.State, mode string) (int64, time.Duration, int) {
	if (mode == "twoRF" || mode == "twoRG") && !hasCLFLUSHOPT() {
		panic("isoCross: " + mode + " needs CLFLUSHOPT, which this CPU lacks")
	}
	// twoK<n>: as twoR with n sets of buffers used in turn.
	K := 1
	if strings.HasPrefix(mode, "twoK") {
		fmt.Sscan(mode[4:], &K)
		mode = "twoR"
	}
	rs := make([]*parSearch, K)
	xs := make([][2]func([]lts.State), K)
	for i := range rs {
		rs[i] = newParSearch(sys, 2)
		defer rs[i].close()
		for w := range 2 {
			xs[i][w] = isoWorker(rs[i], w, 2)
		}
	}
	r := rs[0]
	half := len(states) / 2
	rounds := (half + parRound - 1) / parRound
	var cpu atomic.Int64
	var bar sync.WaitGroup
	chunk := func(w, k int) []lts.State {
		lo := w*half + k*parRound
		hi := min(lo+parRound, half+w*half)
		if w == 1 {
			hi = min(lo+parRound, len(states))
		}
		if lo >= hi {
			return nil
		}
		return states[lo:hi]
	}
	t0 := time.Now()
	// A simple reusable barrier.
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	arrived, gen := 0, 0
	barrier := func() {
		mu.Lock()
		g := gen
		if arrived++; arrived == 2 {
			arrived, gen = 0, gen+1
			cond.Broadcast()
		} else {
			for g == gen {
				cond.Wait()
			}
		}
		mu.Unlock()
	}
	for w := range 2 {
		bar.Add(1)
		go func() {
			defer bar.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var c int64
			for k := -1; k < rounds; k++ {
				// Rewrite round k+1's records.
				switch mode {
				case "twoX":
					isoTouch(r.s, chunk(1-w, k+1), 0, 1)
				case "twoS":
					isoTouch(r.s, chunk(0, k+1), w, 2)
					isoTouch(r.s, chunk(1, k+1), w, 2)
				case "twoT":
					isoTouch(r.s, chunk(w, k+1), 0, 1)
				}
				barrier()
				if k >= 0 {
					r := rs[k%K]
					x := xs[k%K][w]
					c0 := threadCPU()
					switch mode {
					case "twoRP":
						r.ws[w].own()
					case "twoRF":
						r.ws[w].flush()
					}
					x(chunk(w, k))
					c += threadCPU() - c0
					// The insert phase's reads of the buffers:
					// of the other worker's (twoR) or of its own
					// (twoRs, the control); twoW/twoWs also write
					// into the other's (own) res as the owners do.
					barrier()
					switch mode {
					case "twoR", "twoW", "twoRP", "twoRF":
						isoSink += isoRead(&r.ws[1-w], mode == "twoW")
					case "twoRG":
						// The reader drops what it read.
						isoSink += isoRead(&r.ws[1-w], false)
						r.ws[1-w].flush()
					case "twoRs", "twoWs":
						isoSink += isoRead(&r.ws[w], mode == "twoWs")
					}
					barrier()
				}
			}
			cpu.Add(c)
		}()
	}
	bar.Wait()
	return cpu.Load(), time.Since(t0), 0
}

var isoSink uint64

// isoRead reads a worker's strings, ends, hashes, packed keys and routes,
// as the partitions' owners do in the insert phase, and, with res, writes
// its res.
func isoRead(wk *parWorker, res bool) uint64 {
	var t uint64
	x := wk.x
	for _, b := range x.enc {
		t += uint64(b)
	}
	for _, e := range x.ends {
		t += uint64(e)
	}
	for _, h := range wk.hs {
		t ^= h
	}
	for i := range wk.packs {
		t += wk.packs[i].w0
	}
	for q, l := range wk.route {
		for j, i := range l {
			t += uint64(i)
			if res && j < len(wk.res[q]) {
				wk.res[q][j] = uint32(i)
			}
		}
	}
	return t
}

// BenchmarkParPhases explores the philosophers (N = 12, 13, 14, or the
// list in $QUASAR_PHASES_N) in the parallel rounds with one worker
// (parForce) and with two, and with one worker in runBatched (workers=0:
// no rounds; 0wide, 2wide: with the side set's 8-byte slots), and reports
// each phase's CPU nanoseconds per stored state (the workers' threads in
// the parallel part of the phase): expand-ns, grow-ns, insert-ns, ids-ns,
// patch-ns; total-ns is the process's CPU per state. Issue 21,
// docs/engine-log.md "Two workers, the expansion isolated".
func BenchmarkParPhases(b *testing.B) {
	src, err := os.ReadFile("../bench/philosophers/philosophers.csp")
	if err != nil {
		b.Fatal(err)
	}
	ns := []string{"12", "13", "14"}
	if v := os.Getenv("QUASAR_PHASES_N"); v != "" {
		ns = strings.Split(v, ",") // e.g. 16: about 1 GB, a minute a run
	}
	for _, n := range ns {
		for _, v := range []struct {
			name         string
			w            int
			rounds, wide bool
		}{{"0", 1, false, false}, {"0wide", 1, false, true}, {"1", 1, true, false}, {"2", 2, true, false}, {"2wide", 2, true, true}} {
			// workers=0: one worker in runBatched (no rounds), the
			// search of --workers 1; 0wide, 2wide: with the side set's
			// 8-byte slots (widen: the rounds had only those before the
			// twelfth session).
			b.Run("N="+n+"/workers="+v.name, func(b *testing.B) {
				text := strings.Replace(string(src), "#define N 12;", "#define N "+n+";", 1)
				parCPU, parForce = threadCPU, v.rounds
				w := v.w
				defer func() { parCPU, parForce = nil, false }()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				var states int64
				var cpu float64
				var ph [5]int64
				for i := 0; i < b.N; i++ {
					p := compileSrc(b, text)
					sys, err := p.ProcessByName("College")
					if err != nil {
						b.Fatal(err)
					}
					if v.wide {
						sys.mu.Lock()
						sys.store.side.widen()
						sys.mu.Unlock()
					}
					c0 := cpuSeconds()
					x := newBFS(context.Background(), sys, Options{Workers: w})
					x.run(func(lts.State, []lts.Transition) bool { return false })
					r := x.finish(&Result{Verdict: lts.Valid})
					cpu += cpuSeconds() - c0
					states += r.Stats.States
					for j := range ph {
						ph[j] += x.parPhaseCPU[j]
					}
				}
				for j, name := range []string{"expand", "grow", "insert", "ids", "patch"} {
					b.ReportMetric(float64(ph[j])/float64(states), name+"-ns")
				}
				b.ReportMetric(cpu*1e9/float64(states), "total-ns")
			})
		}
	}
}

// own asks for the lines of the worker's buffers that its last round
// filled, in the exclusive state (prefetchw): the partitions' owners read
// them in the insert phase, so on another core they are shared, and each
// write of the next expansion would wait for the other core to drop its
// copy, one line after another.
func (wk *parWorker) own() { wk.lines(prefetchw) }

// flush drops the lines of the worker's buffers from every cache.
func (wk *parWorker) flush() { wk.lines(flushLines) }

func (wk *parWorker) lines(f func(unsafe.Pointer, uintptr)) {
	x := wk.x
	if x == nil {
		return
	}
	pw := func(p unsafe.Pointer, n uintptr) {
		if n > 0 {
			f(p, n)
		}
	}
	pw(unsafe.Pointer(unsafe.SliceData(x.enc)), uintptr(len(x.enc)))
	pw(unsafe.Pointer(unsafe.SliceData(x.ends)), uintptr(len(x.ends))*8)
	pw(unsafe.Pointer(unsafe.SliceData(x.evs)), uintptr(len(x.evs))*unsafe.Sizeof(lts.Event(0)))
	pw(unsafe.Pointer(unsafe.SliceData(wk.hs)), uintptr(len(wk.hs))*8)
	pw(unsafe.Pointer(unsafe.SliceData(wk.packs)), uintptr(len(wk.packs))*unsafe.Sizeof(packedKey{}))
	for _, l := range wk.route {
		pw(unsafe.Pointer(unsafe.SliceData(l)), uintptr(len(l))*4)
	}
}

// hasCLFLUSHOPT reports whether /proc/cpuinfo lists the instruction.
func hasCLFLUSHOPT() bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	return err == nil && strings.Contains(string(b), " clflushopt")
}
