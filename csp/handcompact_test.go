package csp

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/quasar-verify/quasar/internal/budget"
)

// The partitioned search of handpart_test.go with compact partitions: the
// fourth reference point, which asks whether issue 21's speed (5 M states
// a CPU second) and its memory (16 bytes a state) can be had together on
// this machine. hwExplorePart keeps each key in its 8-byte slot (16 to 21
// bytes a state at loads of 3/8 to 3/4, and 2 to 4 more for its buffers);
// the engine keeps 4-byte slots (fingerprint, rank) and its records by
// rank, which a partition cannot keep in its cache. Here a partition keeps
// both: 4-byte slots of a fingerprint and the index of the state's record
// among the partition's own records, which are the partition's keys in the
// order it met them. A probe then reads the slot and the record from the
// same partition, both in the L2 cache while the partition is probed. A
// state's id is its place (partition, index): not the engine's dense BFS
// ranks, which is what this design would change in the engine.
//
// A level is expanded in chunks of hwCompactChunk states (the scatter
// buffers hold one chunk's successors, not the level's).

// hwCTable is a compact partition.
type hwCTable struct {
	slots []uint32 // fingerprint<<lb | index+1; 0 empty
	recs  []uint64 // the partition's keys, in insertion order
	lb    uint     // log2 len(slots)
	pre   uint     // the hash's top bits that chose the partition
	limit int
	max   float64
}

func newHWCTable(lb, pre uint) *hwCTable {
	t := &hwCTable{slots: make([]uint32, 1<<lb), lb: lb, pre: pre}
	t.limit = int(hwMaxLoad * float64(len(t.slots)))
	return t
}

// slot returns k's home slot and its slot's fingerprint (the hash's bits
// below the partition's and the home's, in the top 32-lb bits).
func (t *hwCTable) slot(k uint64) (uint64, uint32) {
	h := k * hwMul << t.pre
	return h >> (64 - t.lb), uint32(h>>(32-t.lb)) &^ (1<<t.lb - 1)
}

// put writes record j's slot (the record is not in the table).
func (t *hwCTable) put(k uint64, j int) {
	mask := uint64(len(t.slots) - 1)
	i, f := t.slot(k)
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = f | uint32(j+1)
}

// grow doubles the slots and rebuilds them from the records.
func (t *hwCTable) grow() {
	t.max = max(t.max, float64(len(t.recs))/float64(len(t.slots)))
	t.lb++
	t.slots = make([]uint32, 1<<t.lb)
	t.limit = int(hwMaxLoad * float64(len(t.slots)))
	for j, k := range t.recs {
		t.put(k, j)
	}
}

// probe inserts the keys (of t's partition) and appends the new ones to
// next.
func (t *hwCTable) probe(keys, next []uint64) []uint64 {
	// The table grows before a group of 64 keys could take it beyond its
	// limit (most keys are found: growing for all of a chunk's would
	// leave the tables emptier).
	for lo := 0; lo < len(keys); lo += 64 {
		group := keys[lo:min(lo+64, len(keys))]
		for len(t.recs)+len(group) > t.limit {
			t.grow()
		}
		slots, recs := t.slots, t.recs
		lm := uint32(1)<<t.lb - 1
		mask := uint64(len(slots) - 1)
		pre, sh, fsh := t.pre, 64-t.lb, 32-t.lb
		for _, k := range group {
			h := k * hwMul << pre
			i, f := h>>sh, uint32(h>>fsh)&^lm
			for {
				v := slots[i]
				if v == 0 {
					recs = append(recs, k)
					slots[i] = f | uint32(len(recs))
					next = append(next, k)
					break
				}
				if v&^lm == f && recs[v&lm-1] == k {
					break
				}
				i = (i + 1) & mask
			}
		}
		t.recs = recs
	}
	return next
}

// hwCompactSet is the compact partitioned visited set.
type hwCompactSet struct {
	bits uint
	tabs []*hwCTable
	lmax uint // a partition beyond 2^lmax slots splits (every partition)
	max  float64
}

// split doubles the partitions while one is beyond 2^lmax slots: each
// splits by the next bit of the hash, its records in their order.
func (ps *hwCompactSet) split() {
	for {
		big := false
		for _, t := range ps.tabs {
			big = big || len(t.slots) > 1<<ps.lmax
		}
		if !big {
			return
		}
		nb := ps.bits + 1
		tabs := make([]*hwCTable, 2*len(ps.tabs))
		for o, t := range ps.tabs {
			ps.max = max(ps.max, t.max, float64(len(t.recs))/float64(len(t.slots)))
			var kids [2]*hwCTable
			for c := range kids {
				kids[c] = newHWCTable(t.lb-1, nb)
				kids[c].recs = make([]uint64, 0, len(t.recs)/2+len(t.recs)/8)
			}
			for _, k := range t.recs {
				u := kids[k*hwMul<<ps.bits>>63]
				u.recs = append(u.recs, k)
			}
			for _, u := range kids {
				for len(u.recs) > u.limit {
					u.lb++
					u.slots = make([]uint32, 1<<u.lb)
					u.limit = int(hwMaxLoad * float64(len(u.slots)))
				}
				for j, k := range u.recs {
					u.put(k, j)
				}
			}
			tabs[2*o], tabs[2*o+1] = kids[0], kids[1]
			ps.tabs[o] = nil
		}
		ps.tabs, ps.bits = tabs, nb
	}
}

// hwCompactChunk is the number of states whose successors are scattered
// to the partitions before they are probed.
var hwCompactChunk = 1 << 16

// hwExploreCompact explores the model breadth-first with the compact
// partitioned set (partitions of at most 2^lmax slots at the end of a
// chunk).
//
// With bound > 0 it starts with enough partitions of 2^lmax slots for
// bound states at a load of 3/4, their records' room allocated (as
// hwExplorePartAll's bound).
func hwExploreCompact(p *hwPhil, lmax uint, bound int) (hwStats, *hwCompactSet) {
	var st hwStats
	ps := &hwCompactSet{tabs: []*hwCTable{newHWCTable(10, 0)}, lmax: lmax}
	if bound > 0 {
		for bound > (1<<ps.bits)*(1<<lmax)*3/4 {
			ps.bits++
		}
		ps.tabs = make([]*hwCTable, 1<<ps.bits)
		for o := range ps.tabs {
			t := newHWCTable(lmax, ps.bits)
			t.recs = make([]uint64, 0, t.limit)
			ps.tabs[o] = t
		}
	}
	ps.tabs[hwPartOf(0, ps.bits)].probe([]uint64{0}, nil)
	cur, next := []uint64{0}, []uint64(nil)
	var bufs [][]uint64
	var one [16]uint64
	for ; len(cur) > 0; st.levels++ {
		next = next[:0]
		for lo := 0; lo < len(cur); lo += hwCompactChunk {
			chunk := cur[lo:min(lo+hwCompactChunk, len(cur))]
			P, bits := len(ps.tabs), ps.bits
			if len(bufs) != P {
				bufs = make([][]uint64, P)
				room := min(hwCompactChunk, len(cur)) * p.n / P * 9 / 8
				for o := range bufs {
					bufs[o] = make([]uint64, 0, room+64)
				}
			}
			for o := range bufs {
				bufs[o] = bufs[o][:0]
			}
			for _, s := range chunk {
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
			ps.split()
		}
		cur, next = next, cur
	}
	for _, t := range ps.tabs {
		ps.max = max(ps.max, t.max, float64(len(t.recs))/float64(len(t.slots)))
		st.states += len(t.recs)
		st.slots += len(t.slots)
	}
	st.maxLoad = ps.max
	return st, ps
}

func TestHandWrittenCompact(t *testing.T) {
	defer func(c int) { hwCompactChunk = c }(hwCompactChunk)
	for _, c := range []int{7, 1 << 16} {
		hwCompactChunk = c
		for _, lmax := range []uint{10, 16} {
			for n := 2; n <= 11; n++ {
				s, tr := hwMapBFS(n)
				bound := 0
				if n%2 == 0 {
					bound = pow3(n)
				}
				st, ps := hwExploreCompact(newHWPhil(n, hwRight), lmax, bound)
				if st.states != s || st.transitions != tr || st.levels != 3*n-1 {
					t.Errorf("chunk %d, lmax %d, N = %d: %d states, %d transitions, %d levels; the oracle %d, %d, %d", c, lmax, n, st.states, st.transitions, st.levels, s, tr, 3*n-1)
				}
				if st.maxLoad > hwMaxLoad {
					t.Errorf("chunk %d, lmax %d, N = %d: load %.3f beyond %.2f", c, lmax, n, st.maxLoad, hwMaxLoad)
				}
				// Every record is found again in its own partition, at
				// its own index, and in no other.
				seen := 0
				for o, tab := range ps.tabs {
					for j, k := range tab.recs {
						if hwPartOf(k*hwMul, ps.bits) != uint64(o) {
							t.Fatalf("chunk %d, lmax %d, N = %d: key %#x in partition %d", c, lmax, n, k, o)
						}
						if got := tab.find(k); got != j {
							t.Fatalf("chunk %d, lmax %d, N = %d: key %#x found at %d, not %d", c, lmax, n, k, got, j)
						}
						seen++
					}
				}
				if seen != s {
					t.Errorf("chunk %d, lmax %d, N = %d: %d records", c, lmax, n, seen)
				}
			}
		}
	}
	// The splits happened: at N = 11 with lmax 10, many partitions.
	if _, ps := hwExploreCompact(newHWPhil(11, hwRight), 10, 0); len(ps.tabs) < 64 {
		t.Errorf("N = 11, lmax 10: %d partitions", len(ps.tabs))
	}
	for _, mu := range []int{hwSymmetric, hwPutSwapped, hwNoSecondReq} {
		caught := 0
		for n := 2; n <= 11; n++ {
			s, tr := hwMapBFS(n)
			st, _ := hwExploreCompact(newHWPhil(n, mu), 10, 0)
			if st.states != s || st.transitions != tr {
				caught++
			}
		}
		if caught == 0 {
			t.Errorf("mutant %d not caught", mu)
		}
	}
}

// find returns the index of k's record, or -1.
func (t *hwCTable) find(k uint64) int {
	lm := uint32(1)<<t.lb - 1
	mask := uint64(len(t.slots) - 1)
	i, f := t.slot(k)
	for {
		v := t.slots[i]
		if v == 0 {
			return -1
		}
		if v&^lm == f && t.recs[v&lm-1] == k {
			return int(v&lm - 1)
		}
		i = (i + 1) & mask
	}
}

// BenchmarkHandWrittenCompact runs the compact partitioned search beside
// the plain hashed one and the partitioned one with keys in the slots (N
// = 12, 14, 16; QUASAR_HW_N=n: that N only; QUASAR_HW_VARIANT=name: that
// variant only, for its peak RSS; QUASAR_HW_LMAX, QUASAR_HW_CHUNK).
// The bound variants start with their partitions sized for 3^N states
// (hwExplorePartAll's bound): docs/engine-log.md, "Compact partitions".
//
//	QUASAR_HW_N=14 QUASAR_HW_CHUNK=4194304 go test ./csp -run '^$' -bench HandWrittenCompact -benchtime 1x
func BenchmarkHandWrittenCompact(b *testing.B) {
	defer budget.TuneGC(0)()
	ns := []int{12, 14, 16}
	if v := os.Getenv("QUASAR_HW_N"); v != "" {
		n, _ := strconv.Atoi(v)
		ns = []int{n}
	}
	lmax := uint(16)
	if v := os.Getenv("QUASAR_HW_LMAX"); v != "" {
		l, _ := strconv.Atoi(v)
		lmax = uint(l)
	}
	if v := os.Getenv("QUASAR_HW_CHUNK"); v != "" {
		hwCompactChunk, _ = strconv.Atoi(v)
	}
	only := os.Getenv("QUASAR_HW_VARIANT")
	for _, n := range ns {
		for _, v := range []struct {
			name string
			f    func(p *hwPhil) hwStats
		}{
			{"plain", func(p *hwPhil) hwStats { return hwExploreSeq(p, false) }},
			{"part-fused", func(p *hwPhil) hwStats { return hwExplorePart(p, 16, true) }},
			{"part-fused-bound", func(p *hwPhil) hwStats { st, _ := hwExplorePartAll(p, 16, true, pow3(p.n)); return st }},
			{"compact", func(p *hwPhil) hwStats { st, _ := hwExploreCompact(p, lmax, 0); return st }},
			{"compact-bound", func(p *hwPhil) hwStats { st, _ := hwExploreCompact(p, lmax, pow3(p.n)); return st }},
		} {
			if only != "" && only != v.name {
				continue
			}
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
				b.ReportMetric(st.maxLoad, "max-load")
			})
		}
	}
}

// TestHWCTableCollisions puts keys whose hashes differ only in their low
// 32 bits (the same home and fingerprint) into one partition: they are
// told apart by their records.
func TestHWCTableCollisions(t *testing.T) {
	// inv is hwMul's inverse mod 2^64 (Newton's iteration), so that
	// (k + c*inv)*hwMul = k*hwMul + c.
	inv := uint64(hwMul)
	for range 6 {
		inv *= 2 - hwMul*inv
	}
	if inv*hwMul != 1 {
		t.Fatal("no inverse")
	}
	tab := newHWCTable(10, 0)
	var keys []uint64
	for base := range uint64(40) {
		k := base * 0x1234567
		for c := range uint64(5) {
			keys = append(keys, k+c*inv)
		}
	}
	next := tab.probe(keys, nil)
	next = tab.probe(keys, next) // all found the second time
	if len(next) != len(keys) || len(tab.recs) != len(keys) {
		t.Fatalf("%d new, %d records, want %d", len(next), len(tab.recs), len(keys))
	}
	for j, k := range keys {
		if got := tab.find(k); got != j {
			t.Fatalf("key %d found at %d", j, got)
		}
	}
}
