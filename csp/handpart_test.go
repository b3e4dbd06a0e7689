package csp

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	"github.com/quasar-verify/quasar/internal/budget"
)

// A breadth-first search of the philosophers with a radix-partitioned
// visited set, by hand, the third reference point beside the hashed
// (handwritten_test.go) and sorted (handsorted_test.go) explorers: the
// idea of databases' partitioned hash joins. The visited set is split by
// the top bits of the state's hash into P partitions, each an
// open-addressing table small enough for the L2 cache. A level's
// successors are first scattered into P runs by partition (streaming
// writes), then each partition's run is probed in its own table, which
// stays in the cache while it is used: no random access to memory, and
// no sort of the successors either (one scatter pass, or two of sqrt(P)
// fan-out when P is large, instead of the sort's five).
//
// P grows with the state count: when a table has grown beyond 2^lmax
// slots at the end of a level, every partition splits in two by the next
// bit of the hash (P doubles), each half in a table of half the size.

// hwPartSet is the partitioned visited set.
type hwPartSet struct {
	bits   uint       // log2 of the number of partitions
	tabs   []*hwTable // tabs[o]: the states whose hash has o in its top bits
	lmax   int        // a table beyond 2^lmax slots makes every partition split
	max    float64    // the highest load a table reached
	splits int
}

func newHWPartSet(lmax int) *hwPartSet {
	return &hwPartSet{tabs: []*hwTable{newHWTable(10, false)}, lmax: lmax}
}

// hwPartOf is the partition of the hash h with bits top bits (0 when
// bits is 0: Go shifts an unsigned word by 64 to 0).
func hwPartOf(h uint64, bits uint) uint64 { return h >> (64 - bits) }

// add inserts the key k (not in t) in t, doubling t first if full.
func (t *hwTable) add(k uint64) {
	if t.n >= t.limit {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	i := (k * hwMul << t.pre) >> t.shift
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = k + 1
	t.n++
}

// hwPartTouch says how a partition's table is brought into the cache
// before its successors are probed (when there are at least a quarter as
// many as its cache lines): 0 not (the probes miss at random), 1 by
// reading a word of each line in order (the hardware prefetcher streams
// them), 2 by a PREFETCHW of each line.
var hwPartTouch = 1

var hwPartSink uint64

// touch brings t's slots into the cache, as hwPartTouch says.
func (t *hwTable) touch(probes int) {
	if probes*4*8 < len(t.slots) {
		return
	}
	switch hwPartTouch {
	case 1:
		s := uint64(0)
		for i := 0; i < len(t.slots); i += 8 {
			s += t.slots[i]
		}
		hwPartSink += s
	case 2:
		prefetchw(unsafe.Pointer(&t.slots[0]), uintptr(8*len(t.slots)))
	}
}

// hwPartGroup is the number of keys whose slots probe loads ahead (0:
// none, the keys one by one): the loads of a group are issued back to back, so that their
// latencies (the L2 cache's, or memory's) overlap, before the keys are
// inserted one by one with their branches.
var hwPartGroup = 32

// hwPartFilter: probe first keeps, without a branch, the keys of a group
// not found in their home slot, and probes only those with the branchy
// loop.
var hwPartFilter = true

var hwPartRest [256]uint64

// probe inserts the keys in t (of its partition, in order) and appends
// the new ones to next.
func (t *hwTable) probe(keys, next []uint64) []uint64 {
	t.touch(len(keys))
	g := min(hwPartGroup, len(hwPartRest))
	if g == 0 {
		g = 1
	}
	rest := &hwPartRest
	for lo := 0; lo < len(keys); lo += g {
		group := keys[lo:min(lo+g, len(keys))]
		for t.n+len(group) > t.limit {
			t.grow()
		}
		slots, shift, pre := t.slots, t.shift, t.pre
		mask := uint64(len(slots) - 1)
		if hwPartFilter && hwPartGroup > 0 {
			// Without a branch, keep the keys not found in their home
			// slot (a slot, once set, keeps its key: a key found there
			// is done).
			m := 0
			for _, k := range group {
				rest[m] = k
				x := slots[(k*hwMul<<pre)>>shift] ^ (k + 1)
				m += int((x | -x) >> 63)
			}
			group = rest[:m]
		} else if hwPartGroup > 0 {
			s := uint64(0)
			for _, k := range group {
				s += slots[(k*hwMul<<pre)>>shift]
			}
			hwPartSink += s
		}
		for _, k := range group {
			i := (k * hwMul << pre) >> shift
			for {
				v := slots[i]
				if v == 0 {
					slots[i] = k + 1
					t.n++
					next = append(next, k)
					break
				}
				if v == k+1 {
					break
				}
				i = (i + 1) & mask
			}
		}
	}
	return next
}

// split doubles the partitions while a table is beyond 2^lmax slots.
func (ps *hwPartSet) split() {
	for {
		big := false
		for _, t := range ps.tabs {
			big = big || len(t.slots) > 1<<ps.lmax
		}
		if !big {
			return
		}
		nb := ps.bits + 1
		tabs := make([]*hwTable, 2*len(ps.tabs))
		for o, t := range ps.tabs {
			t.load()
			ps.max = max(ps.max, t.max)
			logSize := 10
			for 1<<(logSize+1) < len(t.slots) {
				logSize++
			}
			for c := range 2 {
				u := newHWTable(logSize, false)
				u.pre = nb
				tabs[2*o+c] = u
			}
			for _, v := range t.slots {
				if v != 0 {
					tabs[2*o+int((v-1)*hwMul>>(63-ps.bits)&1)].add(v - 1)
				}
			}
			ps.tabs[o] = nil
		}
		ps.tabs, ps.bits = tabs, nb
		ps.splits++
	}
}

// hwPartScatterFanout is the largest fan-out of one scatter pass; with
// more partitions, the successors are scattered in two passes.
const hwPartScatterFanout = 64

// hwExplorePart explores the model breadth-first with a partitioned
// visited set (tables of at most 2^lmax slots but during a level). With
// fused, a state's successors go straight to their partitions' buffers
// as they are made (one pass); without, a level's successors are first
// written to one array and counted by partition, then scattered (one or
// two counting passes) into one array ordered by partition.
func hwExplorePart(p *hwPhil, lmax int, fused bool) hwStats {
	st, _ := hwExplorePartAll(p, lmax, fused, 0)
	return st
}

// hwExplorePartAll is hwExplorePart that also returns the visited set.
// With bound > 0, it starts with enough partitions of 2^lmax slots for
// bound states at a load of 3/4 (no split and no doubling then if bound
// is right: P picked from a bound, as a search with a state limit could).
func hwExplorePartAll(p *hwPhil, lmax int, fused bool, bound int) (hwStats, *hwPartSet) {
	var st hwStats
	ps := newHWPartSet(lmax)
	if bound > 0 {
		for bound > (1<<ps.bits)*(1<<lmax)*3/4 {
			ps.bits++
		}
		ps.tabs = make([]*hwTable, 1<<ps.bits)
		for o := range ps.tabs {
			ps.tabs[o] = newHWTable(lmax, false)
			ps.tabs[o].pre = ps.bits
		}
	}
	ps.tabs[hwPartOf(0, ps.bits)].add(0)
	cur, next := []uint64{0}, []uint64(nil)
	var (
		succ, tmp, out []uint64
		count, start   []int
		bufs           [][]uint64
		one            [16]uint64
	)
	for ; len(cur) > 0; st.levels++ {
		P := len(ps.tabs)
		bits := ps.bits
		next = next[:0]
		if fused {
			// Room for the level's successors: at most N a state,
			// spread evenly, with a margin (append grows a buffer
			// beyond it).
			if room := len(cur) * p.n / P * 9 / 8; len(bufs) != P || cap(bufs[0]) < room {
				bufs = make([][]uint64, P)
				for o := range bufs {
					bufs[o] = make([]uint64, 0, room+64)
				}
			}
			for o := range bufs {
				bufs[o] = bufs[o][:0]
			}
			for _, s := range cur {
				k := p.succ(s, one[:])
				st.transitions += k
				for _, u := range one[:k] {
					o := hwPartOf(u*hwMul, bits)
					bufs[o] = append(bufs[o], u)
				}
			}
			for o, t := range ps.tabs {
				next = t.probe(bufs[o], next)
			}
		} else {
			if len(count) != P {
				count, start = make([]int, P), make([]int, P+1)
			}
			clear(count)
			succ = succ[:0]
			for _, s := range cur {
				if cap(succ)-len(succ) < p.n {
					succ = append(succ, make([]uint64, p.n)...)[:len(succ)]
				}
				k := p.succ(s, succ[len(succ):len(succ)+p.n])
				for _, u := range succ[len(succ) : len(succ)+k] {
					count[hwPartOf(u*hwMul, bits)]++
				}
				succ = succ[:len(succ)+k]
			}
			st.transitions += len(succ)
			sum := 0
			for o, c := range count {
				start[o] = sum
				sum += c
			}
			start[P] = sum
			if cap(out) < len(succ) {
				out = make([]uint64, len(succ), cap(succ))
			}
			out = out[:len(succ)]
			if P <= hwPartScatterFanout {
				hwScatter(succ, out, start[:P], bits, 0)
			} else {
				// Two passes: by the top a bits into tmp, then each of
				// those groups by all the bits into out.
				if cap(tmp) < len(succ) {
					tmp = make([]uint64, len(succ), cap(succ))
				}
				tmp = tmp[:len(succ)]
				a := bits / 2
				sub := 1 << (bits - a)
				gstart := make([]int, 1<<a)
				for g := range gstart {
					gstart[g] = start[g*sub]
				}
				hwScatter(succ, tmp, gstart, a, 0)
				for g := range gstart {
					hwScatter(tmp[start[g*sub]:start[(g+1)*sub]], out, start[g*sub:(g+1)*sub], bits, g*sub)
				}
			}
			for o, t := range ps.tabs {
				next = t.probe(out[start[o]:start[o+1]], next)
			}
		}
		ps.split()
		cur, next = next, cur
	}
	for _, t := range ps.tabs {
		t.load()
		ps.max = max(ps.max, t.max)
		st.states += t.n
		st.slots += len(t.slots)
	}
	st.maxLoad = ps.max
	return st, ps
}

// hwScatter writes the keys in to out by their partition (the top bits
// bits of the hash, less base): the keys of partition base+j go from
// pos[j] on, in order. It copies pos first.
func hwScatter(in, out []uint64, pos []int, bits uint, base int) {
	off := make([]int, len(pos))
	copy(off, pos)
	for _, u := range in {
		j := int(hwPartOf(u*hwMul, bits)) - base
		out[off[j]] = u
		off[j]++
	}
}

func TestHandWrittenPartitioned(t *testing.T) {
	type run struct {
		name   string
		lmax   int
		fused  bool
		bound  bool
		filter bool
	}
	// Small tables so that the partitions split often at these sizes (N =
	// 11: 177,147 states, up to 256 partitions at lmax 10), and the
	// benchmark's.
	var runs []run
	for _, l := range []int{10, 12, 16} {
		for _, f := range []bool{false, true} {
			runs = append(runs, run{fmt.Sprintf("lmax=%d/fused=%v", l, f), l, f, false, false})
		}
		runs = append(runs, run{fmt.Sprintf("lmax=%d/bound", l), l, true, true, false})
		runs = append(runs, run{fmt.Sprintf("lmax=%d/fused=true/filter", l), l, true, false, true})
	}
	defer func(f bool) { hwPartFilter = f }(hwPartFilter)
	explore := func(r run, p *hwPhil) hwStats {
		hwPartFilter = r.filter
		bound := 0
		if r.bound {
			bound = pow3(p.n)
		}
		st, _ := hwExplorePartAll(p, r.lmax, r.fused, bound)
		return st
	}
	oracle := map[int][2]int{}
	for n := 2; n <= 11; n++ {
		s, tr := hwMapBFS(n)
		oracle[n] = [2]int{s, tr}
		for _, r := range runs {
			st := explore(r, newHWPhil(n, hwRight))
			if st.states != s || st.transitions != tr || st.levels != 3*n-1 {
				t.Errorf("N = %d, %s: %d states, %d transitions, %d levels; the oracle %d, %d, %d", n, r.name, st.states, st.transitions, st.levels, s, tr, 3*n-1)
			}
			if st.maxLoad > hwMaxLoad {
				t.Errorf("N = %d, %s: load %.3f beyond %.2f", n, r.name, st.maxLoad, hwMaxLoad)
			}
		}
	}
	// The splits happened (so that the test covers them): at N = 11 with
	// lmax 10, more partitions than one scatter pass takes.
	if _, ps := hwExplorePartAll(newHWPhil(11, hwRight), 10, false, 0); len(ps.tabs) <= hwPartScatterFanout {
		t.Errorf("N = 11, lmax 10: %d partitions, not more than %d", len(ps.tabs), hwPartScatterFanout)
	}
	for _, mu := range []int{hwSymmetric, hwPutSwapped, hwNoSecondReq} {
		for _, r := range runs {
			caught := 0
			for n := 2; n <= 11; n++ {
				st := explore(r, newHWPhil(n, mu))
				if st.states != oracle[n][0] || st.transitions != oracle[n][1] {
					caught++
				}
			}
			if caught == 0 {
				t.Errorf("mutant %d not caught by %s", mu, r.name)
			}
			t.Logf("mutant %d, %s: differs at %d of 10 sizes", mu, r.name, caught)
		}
	}
}

// BenchmarkHandWrittenPartitioned runs the partitioned search (both
// variants) beside the hashed plain and the sorted ones, at N = 12, 14,
// 16 (QUASAR_HW_N=n: that N only), and reports states per CPU second and
// the CPU seconds (cpuSeconds: the process's).
func BenchmarkHandWrittenPartitioned(b *testing.B) {
	defer budget.TuneGC(0)()
	ns := []int{12, 14, 16}
	if v := os.Getenv("QUASAR_HW_N"); v != "" {
		n, _ := strconv.Atoi(v)
		ns = []int{n}
	}
	lmax := 16
	boundMul := 1 // bound: boundMul * 3^N (2: tables at most 3/8 full)
	if v := os.Getenv("QUASAR_HW_BOUNDMUL"); v != "" {
		boundMul, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("QUASAR_HW_GROUP"); v != "" {
		hwPartGroup, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("QUASAR_HW_FILTER"); v != "" {
		hwPartFilter = v == "1"
	}
	if v := os.Getenv("QUASAR_HW_TOUCH"); v != "" {
		hwPartTouch, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("QUASAR_HW_LMAX"); v != "" {
		lmax, _ = strconv.Atoi(v)
	}
	for _, n := range ns {
		for _, v := range []struct {
			name string
			f    func(p *hwPhil) hwStats
		}{
			{"plain", func(p *hwPhil) hwStats { return hwExploreSeq(p, false) }},
			{"sorted", hwExploreSorted},
			{"part", func(p *hwPhil) hwStats { return hwExplorePart(p, lmax, false) }},
			{"part-fused", func(p *hwPhil) hwStats { return hwExplorePart(p, lmax, true) }},
			{"part-fused-bound", func(p *hwPhil) hwStats { st, _ := hwExplorePartAll(p, lmax, true, boundMul*pow3(p.n)); return st }},
		} {
			b.Run(fmt.Sprintf("N=%d/%s", n, v.name), func(b *testing.B) {
				p := newHWPhil(n, hwRight)
				var cpu float64
				var st hwStats
				for i := 0; i < b.N; i++ {
					runtime.GC()
					c0 := cpuSeconds()
					st = v.f(p)
					cpu += cpuSeconds() - c0
					if st.states != pow3(n) {
						b.Fatalf("%d states, not 3^N", st.states)
					}
				}
				b.ReportMetric(float64(st.states)*float64(b.N)/cpu, "states/cpu-s")
				b.ReportMetric(cpu/float64(b.N), "cpu-s")
			})
		}
	}
}
