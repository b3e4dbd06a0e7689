package csp

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/quasar-verify/quasar/internal/budget"
)

// A hand-written explorer of bench/philosophers/philosophers.csp (issue
// 21's benchmark), the reference point for the engine: how fast Go code
// written for exactly this model explores it on this machine
// (docs/engine-log.md, "A hand-written explorer: what the machine can do").
//
// A state is the CSP model's: philosopher i's control state (0: about to
// take its first fork, 1: its second, 2: about to put down its first, 3:
// its second) in bits 2i and 2i+1, fork j's variable in bit 2N+j; N <= 16
// fits in a uint64. Every move of a philosopher takes its control state
// from pc to pc+1 mod 4, which flips the pc bits 01 or 11, and sets or
// clears one fork, which flips its bit: a successor is s XOR a constant of
// (i, pc). The first two moves are guarded by their fork being free.
//
// The visited set is an open-addressing table of uint64 (key+1, 0 empty),
// linear probing, Fibonacci hashing, doubled when a batch could take it
// beyond hwMaxLoad. The level is expanded in batches: the successors of a
// batch of states are generated, their slots hashed and prefetched, and
// probed one batch later (while the next batch's lines arrive), as the
// engine's windows do.

// hwPhil holds the model's moves at N philosophers.
type hwPhil struct {
	n     int
	delta [64]uint64 // delta[4i+pc]: the bits philosopher i's move at pc flips
	need  [64]uint64 // need[4i+pc]: the fork bit that must be 0 for it (0: none)
}

// Hand mutants of the model for the test: a wrong rule each.
const (
	hwRight       = iota // the model
	hwSymmetric          // the last philosopher takes its left fork first too
	hwPutSwapped         // a philosopher puts down its second fork first
	hwNoSecondReq        // the second fork's guard is missing for philosopher 0
)

func newHWPhil(n, mutant int) *hwPhil {
	if n < 2 || n > 16 {
		panic("hwPhil: N out of 2..16")
	}
	p := &hwPhil{n: n}
	fork := func(j int) uint64 { return 1 << (2*n + j) }
	for i := 0; i < n; i++ {
		first, second := i, (i+1)%n
		if i == n-1 && mutant != hwSymmetric { // PhilR: its right fork first
			first, second = second, first
		}
		forks := [4]int{first, second, first, second}
		if mutant == hwPutSwapped {
			forks[2], forks[3] = second, first
		}
		pc := [4]uint64{1, 3, 1, 3} // 0->1, 1->2, 2->3, 3->0 as XOR
		for c := 0; c < 4; c++ {
			p.delta[4*i+c] = pc[c]<<(2*i) | fork(forks[c])
		}
		p.need[4*i] = fork(first)
		if !(mutant == hwNoSecondReq && i == 0) {
			p.need[4*i+1] = fork(second)
		}
	}
	return p
}

// succ writes the successors of s to out (which has room for n more than
// it returns) and returns how many.
func (p *hwPhil) succ(s uint64, out []uint64) int {
	out = out[:p.n]
	k := 0
	for i := range out {
		j := (4*i + int(s>>(2*i)&3)) & 63
		out[k] = s ^ p.delta[j]
		if s&p.need[j] == 0 {
			k++
		}
	}
	return k
}

const (
	hwMaxLoad = 0.75 // the table doubles before a batch could take it beyond this load
	hwRound   = 1 << 14
	hwMul     = 0x9E3779B97F4A7C15
)

// hwBatch is the number of states expanded per batch (about 300
// successors at N = 14). 8 to 512 states made no measurable difference at
// N = 14 (1.18 to 1.47 CPU s, within the machine's noise).
const hwBatch = 32

// hwStats is what an exploration found.
type hwStats struct {
	states, transitions int
	slots               int     // the table's size at the end
	maxLoad             float64 // the highest load the table reached
	levels              int
	check               uint64 // the sum of the ids found (ids variant), so that reading them is not optimised out
}

// hwTable is the visited set of the sequential explorer.
type hwTable struct {
	slots []uint64 // key+1, 0 empty
	ids   []uint32 // the id of each slot's state (ids variant), else nil
	shift uint     // slot of k: (k*hwMul << pre) >> shift
	pre   uint     // the hash's top bits that chose the table (the deterministic explorer's partitions), else 0
	n     int
	limit int
	max   float64
}

func newHWTable(logSize int, ids bool) *hwTable {
	t := &hwTable{slots: make([]uint64, 1<<logSize), shift: uint(64 - logSize)}
	if ids {
		t.ids = make([]uint32, 1<<logSize)
	}
	t.limit = int(hwMaxLoad * float64(len(t.slots)))
	return t
}

func (t *hwTable) load() {
	t.max = max(t.max, float64(t.n)/float64(len(t.slots)))
}

// grow doubles the table.
func (t *hwTable) grow() {
	t.load()
	old, oldIDs := t.slots, t.ids
	u := newHWTable(65-int(t.shift), oldIDs != nil)
	u.pre = t.pre
	mask := uint64(len(u.slots) - 1)
	for j, v := range old {
		if v == 0 {
			continue
		}
		i := ((v - 1) * hwMul << u.pre) >> u.shift
		for u.slots[i] != 0 {
			i = (i + 1) & mask
		}
		u.slots[i] = v
		if oldIDs != nil {
			u.ids[i] = oldIDs[j]
		}
	}
	u.n, u.max = t.n, t.max
	*t = *u
}

// hwLevelSeq expands the states cur with one goroutine, appends the new
// ones to next (and returns it) and adds the transitions to st. With ids,
// the table gives a new state the id base+len(new states so far) and the
// ids of the states found are summed into st.check.
func hwLevelSeq(p *hwPhil, t *hwTable, cur, next []uint64, st *hwStats, base int) []uint64 {
	var (
		succ  [2][]uint64
		idx   [2][]uint32
		m     [2]int
		addrs = make([]uintptr, 0, 2*hwBatch*p.n)
	)
	for b := range succ {
		succ[b] = make([]uint64, hwBatch*p.n+p.n)
		idx[b] = make([]uint32, hwBatch*p.n)
	}
	hash := func(b int) {
		addrs = addrs[:0]
		s, x := succ[b][:m[b]], idx[b][:m[b]]
		for j, k := range s {
			i := (k * hwMul) >> t.shift
			x[j] = uint32(i)
			addrs = append(addrs, uintptr(unsafe.Pointer(&t.slots[i])))
			if t.ids != nil {
				addrs = append(addrs, uintptr(unsafe.Pointer(&t.ids[i])))
			}
		}
		prefetch(addrs)
	}
	lo := 0
	gen := func(b int) {
		hi := min(lo+hwBatch, len(cur))
		k := 0
		for _, s := range cur[lo:hi] {
			k += p.succ(s, succ[b][k:])
		}
		m[b] = k
		st.transitions += k
		lo = hi
	}
	gen(0)
	hash(0)
	for b := 0; m[b] > 0 || lo < len(cur); b ^= 1 {
		m[b^1] = 0
		if lo < len(cur) {
			gen(b ^ 1)
			hash(b ^ 1)
		}
		if t.n+m[b] > t.limit {
			t.grow()
			hash(b)
			hash(b ^ 1)
		}
		slots, ids := t.slots, t.ids
		mask := uint32(len(slots) - 1)
		for j, k := range succ[b][:m[b]] {
			i := idx[b][j]
			for {
				v := slots[i]
				if v == 0 {
					slots[i] = k + 1
					if ids != nil {
						ids[i] = uint32(base + len(next))
					}
					next = append(next, k)
					t.n++
					break
				}
				if v == k+1 {
					if ids != nil {
						st.check += uint64(ids[i])
					}
					break
				}
				i = (i + 1) & mask
			}
		}
	}
	return next
}

// hwExploreSeq explores the model breadth-first with one goroutine. With
// ids, the table keeps each state's id (its rank in BFS order) in an
// array beside the slots, and the states stay in one slice indexed by id,
// as the engine keeps them; without, only two levels are kept.
func hwExploreSeq(p *hwPhil, ids bool) hwStats {
	st, _, _ := hwExploreSeqAll(p, ids)
	return st
}

// hwExploreSeqAll is hwExploreSeq that also returns its table and, with
// ids, the states in BFS order.
func hwExploreSeqAll(p *hwPhil, ids bool) (hwStats, *hwTable, []uint64) {
	var st hwStats
	var all []uint64
	t := newHWTable(10, ids)
	t.slots[0] = 1 // the initial state, 0
	t.n = 1
	if ids {
		all = []uint64{0}
		for lo := 0; lo < len(all); st.levels++ {
			hi := len(all)
			all = hwLevelSeq(p, t, all[lo:hi], all, &st, 0)
			lo = hi
		}
	} else {
		cur, next := []uint64{0}, []uint64(nil)
		for ; len(cur) > 0; st.levels++ {
			next = hwLevelSeq(p, t, cur, next[:0], &st, 0)
			cur, next = next, cur
		}
	}
	t.load()
	st.states, st.slots, st.maxLoad = t.n, len(t.slots), t.max
	return st, t, all
}

// hwWideSlot is a slot of the ids-inline table: the state and its id in
// 16 bytes, one cache line for both.
type hwWideSlot struct {
	key uint64 // key+1, 0 empty
	id  uint32
	_   uint32
}

// hwWideTable is the visited set of the ids-inline variant.
type hwWideTable struct {
	slots []hwWideSlot
	shift uint
	n     int
	limit int
	max   float64
}

func newHWWideTable(logSize int) *hwWideTable {
	t := &hwWideTable{slots: make([]hwWideSlot, 1<<logSize), shift: uint(64 - logSize)}
	t.limit = int(hwMaxLoad * float64(len(t.slots)))
	return t
}

func (t *hwWideTable) grow() {
	t.max = max(t.max, float64(t.n)/float64(len(t.slots)))
	u := newHWWideTable(65 - int(t.shift))
	mask := uint64(len(u.slots) - 1)
	for _, e := range t.slots {
		if e.key == 0 {
			continue
		}
		i := ((e.key - 1) * hwMul) >> u.shift
		for u.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		u.slots[i] = e
	}
	u.n, u.max = t.n, t.max
	*t = *u
}

// hwExploreWide is hwExploreSeq with ids, the ids kept in the slots.
func hwExploreWide(p *hwPhil) (hwStats, *hwWideTable, []uint64) {
	var st hwStats
	t := newHWWideTable(10)
	t.slots[0] = hwWideSlot{key: 1}
	t.n = 1
	all := []uint64{0}
	var (
		succ  [2][]uint64
		idx   [2][]uint32
		m     [2]int
		addrs = make([]uintptr, 0, hwBatch*p.n)
	)
	for b := range succ {
		succ[b] = make([]uint64, hwBatch*p.n+p.n)
		idx[b] = make([]uint32, hwBatch*p.n)
	}
	hash := func(b int) {
		addrs = addrs[:0]
		for j, k := range succ[b][:m[b]] {
			i := (k * hwMul) >> t.shift
			idx[b][j] = uint32(i)
			addrs = append(addrs, uintptr(unsafe.Pointer(&t.slots[i])))
		}
		prefetch(addrs)
	}
	for lo := 0; lo < len(all); st.levels++ {
		cur := all[lo:]
		next := len(all)
		c := 0
		gen := func(b int) {
			hi := min(c+hwBatch, len(cur))
			k := 0
			for _, s := range cur[c:hi] {
				k += p.succ(s, succ[b][k:])
			}
			m[b] = k
			st.transitions += k
			c = hi
		}
		gen(0)
		hash(0)
		for b := 0; m[b] > 0 || c < len(cur); b ^= 1 {
			m[b^1] = 0
			if c < len(cur) {
				gen(b ^ 1)
				hash(b ^ 1)
			}
			if t.n+m[b] > t.limit {
				t.grow()
				hash(b)
				hash(b ^ 1)
			}
			slots := t.slots
			mask := uint32(len(slots) - 1)
			for j, k := range succ[b][:m[b]] {
				for i := idx[b][j]; ; i = (i + 1) & mask {
					e := &slots[i]
					if e.key == 0 {
						e.key, e.id = k+1, uint32(len(all))
						all = append(all, k)
						t.n++
						break
					}
					if e.key == k+1 {
						st.check += uint64(e.id)
						break
					}
				}
			}
		}
		lo = next
	}
	t.max = max(t.max, float64(t.n)/float64(len(t.slots)))
	st.states, st.slots, st.maxLoad = t.n, len(t.slots), t.max
	return st, t, all
}

// hwClock, when the benchmark sets it, adds up the thread CPU time of
// the parallel phases: own, the calling goroutine's part of them, and
// crit, the busiest goroutine's in each. The CPU time of the calling
// thread less own plus crit is the time the search would take on free
// cores (as crit-cpu-s of BenchmarkExplorePhilosophers).
var hwClock *struct{ own, crit int64 }

// hwParallel runs f(0) on the calling goroutine and f(1) ... f(nw-1) on
// new ones, and waits for them.
func hwParallel(nw int, f func(g int)) {
	clk := hwClock
	cpu := make([]int64, nw)
	var wg sync.WaitGroup
	for g := 1; g < nw; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if clk != nil {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				t0 := threadCPU()
				defer func() { cpu[g] = threadCPU() - t0 }()
			}
			f(g)
		}()
	}
	var t0 int64
	if clk != nil {
		t0 = threadCPU()
	}
	f(0)
	if clk != nil {
		cpu[0] = threadCPU() - t0
	}
	wg.Wait()
	if clk != nil {
		clk.own += cpu[0]
		m := int64(0)
		for _, c := range cpu {
			m = max(m, c)
		}
		clk.crit += m
	}
}

// hwShared is the visited set of the two-goroutine explorer: Laarman's
// lockless table (a slot is claimed by a compare-and-swap of 0 to key+1),
// grown between rounds, when no goroutine probes it.
type hwShared struct {
	slots []uint64
	shift uint
	n     int
	max   float64
}

// growPar doubles the table with w goroutines, each moving a part of the
// old slots.
func (t *hwShared) growPar(w int) {
	t.max = max(t.max, float64(t.n)/float64(len(t.slots)))
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	t.shift--
	mask := uint64(len(t.slots) - 1)
	part := (len(old) + w - 1) / w
	hwParallel(w, func(g int) {
		for _, v := range old[min(g*part, len(old)):min((g+1)*part, len(old))] {
			if v == 0 {
				continue
			}
			for i := ((v - 1) * hwMul) >> t.shift; ; i = (i + 1) & mask {
				if atomic.CompareAndSwapUint64(&t.slots[i], 0, v) {
					break
				}
			}
		}
	})
}

// hwWorker is one goroutine's part of a round: it claims batches of the
// states cur from cursor, expands them and probes their
// successors with compare-and-swap, appending the states it inserts to
// next.
type hwWorker struct {
	succ  [2][]uint64
	idx   [2][]uint32
	addrs []uintptr
	next  []uint64
	trans int
	added int
}

func newHWWorker(n int) *hwWorker {
	w := &hwWorker{addrs: make([]uintptr, 0, hwBatch*n)}
	for b := range w.succ {
		w.succ[b] = make([]uint64, hwBatch*n+n)
		w.idx[b] = make([]uint32, hwBatch*n)
	}
	return w
}

func (w *hwWorker) round(p *hwPhil, t *hwShared, cur []uint64) {
	var m [2]int
	next := 0 // the first state of cur not expanded yet
	slots, shift := t.slots, t.shift
	mask := uint32(len(slots) - 1)
	gen := func(b int) bool {
		lo := next
		next += hwBatch
		if lo >= len(cur) {
			return false
		}
		k := 0
		for _, s := range cur[lo:min(lo+hwBatch, len(cur))] {
			k += p.succ(s, w.succ[b][k:])
		}
		m[b] = k
		w.trans += k
		w.addrs = w.addrs[:0]
		for j, s := range w.succ[b][:k] {
			i := (s * hwMul) >> shift
			w.idx[b][j] = uint32(i)
			w.addrs = append(w.addrs, uintptr(unsafe.Pointer(&slots[i])))
		}
		prefetch(w.addrs)
		return true
	}
	b := 0
	for more := gen(0); more; b ^= 1 {
		more = gen(b ^ 1)
		for j, k := range w.succ[b][:m[b]] {
			i := w.idx[b][j]
			for {
				v := atomic.LoadUint64(&slots[i])
				if v == 0 {
					if !atomic.CompareAndSwapUint64(&slots[i], 0, k+1) {
						continue // taken meanwhile: read it again
					}
					w.next = append(w.next, k)
					w.added++
					break
				}
				if v == k+1 {
					break
				}
				i = (i + 1) & mask
			}
		}
	}
}

// hwExplorePar explores the model breadth-first with nw goroutines on a
// shared lockless table. A level is expanded in rounds of at most hwRound
// states (fewer when the table is nearly full: a round adds at most N
// states per state), which the goroutines share in equal parts; the table
// grows between rounds. The order of the states in a level depends on
// the schedule; the counts do not.
func hwExplorePar(p *hwPhil, nw int) hwStats {
	var st hwStats
	t := &hwShared{slots: make([]uint64, 1<<10), shift: 64 - 10}
	t.slots[0] = 1
	t.n = 1
	ws := make([]*hwWorker, nw)
	for g := range ws {
		ws[g] = newHWWorker(p.n)
	}
	cur := []uint64{0}
	var next []uint64
	for ; len(cur) > 0; st.levels++ {
		next = next[:0]
		for lo := 0; lo < len(cur); {
			free := int(hwMaxLoad*float64(len(t.slots))) - t.n
			if free < hwBatch*p.n*nw*4 {
				t.growPar(nw)
				continue
			}
			hi := min(lo+hwRound, len(cur), lo+free/p.n)
			hwParallel(nw, func(g int) {
				// A fixed share each: with batches claimed from one
				// cursor, the busiest goroutine's CPU time would depend
				// on the machine's load (whichever runs takes the work).
				ws[g].round(p, t, cur[lo+(hi-lo)*g/nw:lo+(hi-lo)*(g+1)/nw])
			})
			for _, w := range ws {
				t.n += w.added
				w.added = 0
				next = append(next, w.next...)
				w.next = w.next[:0]
			}
			lo = hi
		}
		cur, next = next, cur
	}
	for _, w := range ws {
		st.transitions += w.trans
	}
	t.max = max(t.max, float64(t.n)/float64(len(t.slots)))
	st.states, st.slots, st.maxLoad = t.n, len(t.slots), t.max
	return st
}

// hwSucc is a successor in the deterministic explorer: the state and its
// place in the one-goroutine search's order (the parent's id times 16
// plus the successor's index).
type hwSucc struct{ key, seq uint64 }

// hwDetWorker is a goroutine of the deterministic explorer: it expands a
// part of each chunk of the level and owns one partition of the visited
// set (the states whose hash has its number in the top bits).
type hwDetWorker struct {
	out   [][]hwSucc // out[o]: the successors it made that o owns, in order
	fresh []hwSucc   // the new states of its partition, in order
	tab   *hwTable
	trans int
	buf   []uint64
	idx   [2][]uint32
	addrs []uintptr
}

// insert probes the successors in list, in order, into w's partition,
// prefetching a batch ahead, and appends the new ones to w.fresh.
func (w *hwDetWorker) insert(list []hwSucc) {
	const batch = 256
	t := w.tab
	hash := func(b int, part []hwSucc) {
		w.addrs = w.addrs[:0]
		for j, e := range part {
			i := (e.key * hwMul << t.pre) >> t.shift
			w.idx[b][j] = uint32(i)
			w.addrs = append(w.addrs, uintptr(unsafe.Pointer(&t.slots[i])))
		}
		prefetch(w.addrs)
	}
	hash(0, list[:min(batch, len(list))])
	for lo, b := 0, 0; lo < len(list); lo, b = lo+batch, b^1 {
		part := list[lo:min(lo+batch, len(list))]
		if t.n+len(part) > t.limit {
			t.grow()
			hash(b, part)
		}
		if lo+batch < len(list) {
			hash(b^1, list[lo+batch:min(lo+2*batch, len(list))])
		}
		slots := t.slots
		mask := uint32(len(slots) - 1)
		for j, e := range part {
			k := e.key
			for i := w.idx[b][j]; ; i = (i + 1) & mask {
				v := slots[i]
				if v == 0 {
					slots[i] = k + 1
					t.n++
					w.fresh = append(w.fresh, e)
					break
				}
				if v == k+1 {
					break
				}
			}
		}
	}
}

// hwExploreDet explores the model breadth-first with nw goroutines (a
// power of two) and no shared writes: a level is taken in chunks; in a
// chunk each goroutine expands a contiguous part and sends each successor
// to the partition that owns it (the top bits of its hash); then each
// goroutine probes its partition with the successors sent to it, in the
// order of the one-goroutine search; then the new states of the
// partitions are merged in that order. The states of each level come out
// in the order of hwExploreSeq's, whatever nw and the schedule, so ids
// (the positions) are the same; it returns them.
func hwExploreDet(p *hwPhil, nw int) (hwStats, []uint64) {
	var st hwStats
	bits := uint(0)
	for 1<<bits < nw {
		bits++
	}
	if 1<<bits != nw {
		panic("hwExploreDet: workers not a power of two")
	}
	ws := make([]*hwDetWorker, nw)
	for g := range ws {
		w := &hwDetWorker{out: make([][]hwSucc, nw), tab: newHWTable(10, false), buf: make([]uint64, p.n)}
		w.tab.pre = bits
		w.idx = [2][]uint32{make([]uint32, 256), make([]uint32, 256)}
		ws[g] = w
	}
	owner := func(k uint64) uint64 { return (k * hwMul) >> (64 - bits) } // 0 if bits == 0
	{
		w := ws[owner(0)]
		w.tab.slots[(0*hwMul<<bits)>>w.tab.shift] = 1
		w.tab.n = 1
	}
	all := []uint64{0}
	parallel := func(f func(g int)) { hwParallel(nw, f) }
	const chunk = 1 << 16
	for lo := 0; lo < len(all); st.levels++ {
		hi := len(all)
		for c := lo; c < hi; c += chunk {
			ce := min(c+chunk, hi)
			parallel(func(g int) { // expand
				w := ws[g]
				a, b := c+(ce-c)*g/nw, c+(ce-c)*(g+1)/nw
				for o := range w.out {
					w.out[o] = w.out[o][:0]
				}
				for pi := a; pi < b; pi++ {
					k := p.succ(all[pi], w.buf)
					w.trans += k
					for j, u := range w.buf[:k] {
						o := owner(u)
						w.out[o] = append(w.out[o], hwSucc{u, uint64(pi)<<4 | uint64(j)})
					}
				}
			})
			parallel(func(o int) { // probe the partition o owns
				w := ws[o]
				w.fresh = w.fresh[:0]
				for g := range ws {
					w.insert(ws[g].out[o])
				}
			})
			// merge the partitions' new states in the one-goroutine order
			pos := make([]int, nw)
			for {
				best := -1
				for o, w := range ws {
					if pos[o] < len(w.fresh) && (best < 0 || w.fresh[pos[o]].seq < ws[best].fresh[pos[best]].seq) {
						best = o
					}
				}
				if best < 0 {
					break
				}
				all = append(all, ws[best].fresh[pos[best]].key)
				pos[best]++
			}
		}
		lo = hi
	}
	slots := 0
	for _, w := range ws {
		st.transitions += w.trans
		st.states += w.tab.n
		w.tab.load()
		st.maxLoad = max(st.maxLoad, w.tab.max)
		slots += len(w.tab.slots)
	}
	st.slots = slots
	return st, all
}

// hwMapBFS is the plain oracle: the rules of philosophers.m (first(i),
// second(i), one rule per event) over a struct state, a Go map as the
// visited set.
func hwMapBFS(n int) (states, transitions int) {
	type state struct {
		pc   [16]int8
		fork [16]bool
	}
	first := func(i int) int {
		if i == n-1 {
			return 0
		}
		return i
	}
	second := func(i int) int {
		if i == n-1 {
			return n - 1
		}
		return i + 1
	}
	seen := map[state]bool{{}: true}
	queue := []state{{}}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for i := 0; i < n; i++ {
			u, ok := s, false
			switch s.pc[i] {
			case 0:
				ok = !s.fork[first(i)]
				u.fork[first(i)], u.pc[i] = true, 1
			case 1:
				ok = !s.fork[second(i)]
				u.fork[second(i)], u.pc[i] = true, 2
			case 2:
				ok = true
				u.fork[first(i)], u.pc[i] = false, 3
			case 3:
				ok = true
				u.fork[second(i)], u.pc[i] = false, 0
			}
			if !ok {
				continue
			}
			transitions++
			if !seen[u] {
				seen[u] = true
				queue = append(queue, u)
			}
		}
	}
	return len(seen), transitions
}

// hwDepth is the BFS depth of a state of the model: the moves made since
// the initial state, pc 0 to 3 each (in this model every state's control
// states are reached by one number of moves: each move advances one pc).
func hwDepth(s uint64, n int) int {
	d := 0
	for i := 0; i < n; i++ {
		d += int(s >> (2 * i) & 3)
	}
	return d
}

func pow3(n int) int {
	r := 1
	for range n {
		r *= 3
	}
	return r
}

// TestHandWrittenPhilosophers: the hand-written explorers (one goroutine
// with and without ids, two and three goroutines) find 3^N states and the
// transitions of the map-based oracle (N = 2..11) and of the engine (N =
// 8..10); each hand mutant (a wrong rule) is caught.
func TestHandWrittenPhilosophers(t *testing.T) {
	type run struct {
		name string
		f    func(p *hwPhil) hwStats
	}
	runs := []run{
		{"seq", func(p *hwPhil) hwStats { return hwExploreSeq(p, false) }},
		{"seq-ids", func(p *hwPhil) hwStats { return hwExploreSeq(p, true) }},
		{"par2", func(p *hwPhil) hwStats { return hwExplorePar(p, 2) }},
		{"par3", func(p *hwPhil) hwStats { return hwExplorePar(p, 3) }},
		{"seq-ids-inline", func(p *hwPhil) hwStats { st, _, _ := hwExploreWide(p); return st }},
		{"det1", func(p *hwPhil) hwStats { st, _ := hwExploreDet(p, 1); return st }},
		{"det2", func(p *hwPhil) hwStats { st, _ := hwExploreDet(p, 2); return st }},
		{"det4", func(p *hwPhil) hwStats { st, _ := hwExploreDet(p, 4); return st }},
	}
	top := 11
	if testing.Short() {
		top = 9
	}
	oracle := map[int][2]int{}
	for n := 2; n <= top; n++ {
		s, tr := hwMapBFS(n)
		if s != pow3(n) {
			t.Fatalf("N = %d: the map oracle finds %d states, not 3^N = %d", n, s, pow3(n))
		}
		oracle[n] = [2]int{s, tr}
		for _, r := range runs {
			st := r.f(newHWPhil(n, hwRight))
			if st.states != s || st.transitions != tr || st.levels != 3*n-1 {
				t.Errorf("N = %d, %s: %d states, %d transitions, %d levels; the oracle %d, %d, %d", n, r.name, st.states, st.transitions, st.levels, s, tr, 3*n-1)
			}
			if st.maxLoad > hwMaxLoad {
				t.Errorf("N = %d, %s: load %.3f beyond %.2f", n, r.name, st.maxLoad, hwMaxLoad)
			}
		}
	}
	// The ids variant's table gives each state its rank in BFS order.
	st, tab, all := hwExploreSeqAll(newHWPhil(top, hwRight), true)
	if len(all) != st.states {
		t.Fatalf("ids: %d states kept of %d", len(all), st.states)
	}
	for i, v := range tab.slots {
		if v != 0 && (int(tab.ids[i]) >= len(all) || all[tab.ids[i]] != v-1) {
			t.Fatalf("ids: slot %d holds %#x with id %d", i, v-1, tab.ids[i])
		}
	}
	for i := 1; i < len(all); i++ {
		if hwDepth(all[i], top) < hwDepth(all[i-1], top) {
			t.Fatalf("ids: state %d (%#x) is shallower than state %d", i, all[i], i-1)
		}
	}
	// So does the ids-inline variant's, and its levels are the same.
	{
		st, tab, wall := hwExploreWide(newHWPhil(top, hwRight))
		if len(wall) != st.states || len(wall) != len(all) {
			t.Fatalf("ids-inline: %d states kept of %d", len(wall), st.states)
		}
		for i, e := range tab.slots {
			if e.key != 0 && (int(e.id) >= len(all) || all[e.id] != e.key-1) {
				t.Fatalf("ids-inline: slot %d holds %#x with id %d", i, e.key-1, e.id)
			}
		}
		for i := range wall {
			if wall[i] != all[i] {
				t.Fatalf("ids-inline: state %d is %#x, seq's %#x", i, wall[i], all[i])
			}
		}
	}
	// The deterministic explorer's levels come out in the one-goroutine
	// order, whatever the number of goroutines.
	for _, nw := range []int{1, 2, 4} {
		_, det := hwExploreDet(newHWPhil(top, hwRight), nw)
		if len(det) != len(all) {
			t.Fatalf("det%d: %d states, seq %d", nw, len(det), len(all))
		}
		for i := range det {
			if det[i] != all[i] {
				t.Fatalf("det%d: state %d is %#x, seq's %#x", nw, i, det[i], all[i])
			}
		}
	}
	// The engine's counts (the deadlock check's exploration, one worker).
	for n := 8; n <= 10; n++ {
		sys, err := compileSrc(t, philosophersSrc(t, n)).ProcessByName("College")
		if err != nil {
			t.Fatal(err)
		}
		r, err := Explore(context.Background(), sys, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		st := hwExploreSeq(newHWPhil(n, hwRight), false)
		if r.Stats.States != int64(st.states) || r.Stats.Transitions != int64(st.transitions) {
			t.Errorf("N = %d: the engine %d states, %d transitions; by hand %d, %d", n, r.Stats.States, r.Stats.Transitions, st.states, st.transitions)
		}
	}
	// Each mutant differs from the oracle at some N in 2..top, in every
	// explorer.
	for _, mu := range []int{hwSymmetric, hwPutSwapped, hwNoSecondReq} {
		for _, r := range runs {
			caught := 0
			for n := 2; n <= top; n++ {
				st := r.f(newHWPhil(n, mu))
				if st.states != oracle[n][0] || st.transitions != oracle[n][1] {
					caught++
				}
			}
			if caught == 0 {
				t.Errorf("mutant %d not caught by %s", mu, r.name)
			}
			t.Logf("mutant %d, %s: differs at %d of %d sizes", mu, r.name, caught, top-1)
		}
	}
}

// TestHandWrittenDeterministic: the two-goroutine explorer's counts do
// not depend on the schedule (many runs at N = 10).
func TestHandWrittenDeterministic(t *testing.T) {
	want := hwExploreSeq(newHWPhil(10, hwRight), false)
	for range 20 {
		st := hwExplorePar(newHWPhil(10, hwRight), 2)
		if st.states != want.states || st.transitions != want.transitions {
			t.Fatalf("par2: %d states, %d transitions; seq %d, %d", st.states, st.transitions, want.states, want.transitions)
		}
	}
}

// BenchmarkHandWrittenPhilosophers explores the philosophers by hand at N
// = 12, 14, 16 (QUASAR_HW_N=n: that N only): with one goroutine,
// variant=plain (two levels kept), variant=ids (ids in an array beside
// the table, all states kept), variant=ids-inline (ids in 16-byte slots);
// with two, variant=lockless (the shared table); with one and two,
// variant=partitioned (deterministic). It reports states per wall and per
// CPU second of the process, the CPU seconds, with two goroutines
// crit-cpu-s (see hwClock), the transitions, the table's final size and
// its highest load. It runs from a collected heap with the collector
// tuned as for a search (budget.TuneGC).
func BenchmarkHandWrittenPhilosophers(b *testing.B) {
	defer budget.TuneGC(0)()
	ns := []int{12, 14, 16}
	if v := os.Getenv("QUASAR_HW_N"); v != "" { // one N only
		n, _ := strconv.Atoi(v)
		ns = []int{n}
	}
	for _, n := range ns {
		for _, v := range []struct {
			name    string
			workers int
			f       func(p *hwPhil) hwStats
		}{
			{"workers=1/variant=plain", 1, func(p *hwPhil) hwStats { return hwExploreSeq(p, false) }},
			{"workers=1/variant=ids", 1, func(p *hwPhil) hwStats { return hwExploreSeq(p, true) }},
			{"workers=1/variant=ids-inline", 1, func(p *hwPhil) hwStats { st, _, _ := hwExploreWide(p); return st }},
			{"workers=2/variant=lockless", 2, func(p *hwPhil) hwStats { return hwExplorePar(p, 2) }},
			{"workers=1/variant=partitioned", 1, func(p *hwPhil) hwStats { st, _ := hwExploreDet(p, 1); return st }},
			{"workers=2/variant=partitioned", 2, func(p *hwPhil) hwStats { st, _ := hwExploreDet(p, 2); return st }},
		} {
			b.Run(fmt.Sprintf("N=%d/%s", n, v.name), func(b *testing.B) {
				if v.workers > runtime.GOMAXPROCS(0) {
					b.Skip("fewer CPUs than workers")
				}
				p := newHWPhil(n, hwRight)
				var cpu, wall, crit float64
				if v.workers > 1 {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
				}
				var st hwStats
				for i := 0; i < b.N; i++ {
					runtime.GC()
					clk := &struct{ own, crit int64 }{}
					if v.workers > 1 {
						hwClock = clk
					}
					c0, t0, m0 := cpuSeconds(), time.Now(), threadCPU()
					st = v.f(p)
					wall += time.Since(t0).Seconds()
					cpu += cpuSeconds() - c0
					crit += float64(threadCPU()-m0-clk.own+clk.crit) / 1e9
					hwClock = nil
					if st.states != pow3(n) {
						b.Fatalf("%d states, not 3^N", st.states)
					}
				}
				b.ReportMetric(float64(st.states)*float64(b.N)/wall, "states/s")
				b.ReportMetric(float64(st.states)*float64(b.N)/cpu, "states/cpu-s")
				b.ReportMetric(cpu/float64(b.N), "cpu-s")
				if v.workers > 1 {
					b.ReportMetric(crit/float64(b.N), "crit-cpu-s")
				}
				b.ReportMetric(float64(st.transitions), "transitions")
				b.ReportMetric(float64(bits.Len(uint(st.slots))-1), "log2-slots")
				b.ReportMetric(st.maxLoad, "max-load")
			})
		}
	}
}

// BenchmarkHandWrittenRandomReads measures the machine's floor for the
// visited set: random 8-byte reads of a table of 2^L uint64 (8 MiB: in
// L3; 64 MiB: the philosophers' table at N = 14; 512 MiB: at N = 16),
// the addresses hashed from a counter and prefetched a batch of 64 ahead
// as the explorer does (prefetch=true) or not (the reads are independent,
// so the core overlaps some of them by itself). It reports ns per read
// (CPU time).
func BenchmarkHandWrittenRandomReads(b *testing.B) {
	for _, l := range []int{20, 23, 26} {
		for _, pre := range []bool{true, false} {
			b.Run(fmt.Sprintf("MiB=%d/prefetch=%v", 8<<(l-20), pre), func(b *testing.B) {
				tab := make([]uint64, 1<<l)
				for i := range tab {
					tab[i] = uint64(i)
				}
				const batch, reads = 64, 1 << 24
				var idx [2][batch]uint32
				addrs := make([]uintptr, batch)
				shift := uint(64 - l)
				fill := func(x *[batch]uint32, c uint64) {
					for j := range x {
						i := ((c + uint64(j)) * hwMul) >> shift
						x[j] = uint32(i)
						addrs[j] = uintptr(unsafe.Pointer(&tab[i]))
					}
					if pre {
						prefetch(addrs)
					}
				}
				var sum uint64
				var cpu float64
				for range b.N {
					c0 := cpuSeconds()
					fill(&idx[0], 0)
					for c := uint64(0); c < reads; c += batch {
						cur := (c / batch) & 1
						fill(&idx[cur^1], c+batch)
						for _, i := range idx[cur] {
							sum += tab[i]
						}
					}
					cpu += cpuSeconds() - c0
				}
				if sum == 1 {
					b.Log(sum)
				}
				b.ReportMetric(cpu/float64(b.N)/reads*1e9, "ns/read")
			})
		}
	}
}
