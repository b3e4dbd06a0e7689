package csp

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"github.com/quasar-verify/quasar/internal/frontier"
	"github.com/quasar-verify/quasar/internal/gang"
	"github.com/quasar-verify/quasar/lts"
)

// Parallel interning with deterministic ids (issue 21).
//
// A parallel BFS of a Proc hands the states of a level to parSearch in
// rounds of a few thousand states per worker. A round has five phases:
//
//  1. expand (parallel): worker w computes the successors of its
//     contiguous chunk of the round's states (no store access but Get, and
//     nobody writes the store meanwhile), hashes them and routes each to
//     the partition of the top bits of its hash;
//  2. grow (serial, the moves parallel): the tables grow, as the
//     sequential store would, so that they hold every successor of the
//     round without passing their load (inlineFits: the inline table's
//     may reach 3/4 just before the move; a side table of 4-byte slots is
//     rebuilt from the records: growSide4);
//  3. insert (parallel): partition p owns the slots [p, p+1)·slots/P of
//     the inline table and of the side set's table, where exactly the
//     homes of its strings lie (both tables place a string by the top bits
//     of its hash). The worker that owns p looks its strings up and
//     inserts the new ones in its slots only, with no lock: a probe run
//     that would leave the range is deferred. A new state gets a
//     provisional id n0 + key, where n0 is the store's size at the start
//     of the round and key the position of the string among the round's
//     successors (the states of the round in order, each state's
//     successors in order). A partition reads its strings in key order, so
//     the string that inserts a state is the first to meet it; its bytes
//     are written in the slot (inline) or left in the worker's buffer
//     (side: the slot holds the fingerprint, a provisional bit and the
//     new state's index in its partition's news, or with provDef in the
//     deferred strings' news: provTag, provNew; in a table of 4-byte
//     slots, the fingerprint and a rank field above every rank of the
//     round's start: prov4, provNew4);
//  4. deferred and ids: the deferred strings are looked up in key order
//     over the whole table (serial); then the new states get the next
//     dense ids in key order (their records are appended to the arena, or
//     written at their side ranks, in that order). Key order is the order
//     in which the sequential search interns them, so every id is the
//     one-worker id. Each partition has marked its new states' keys in a
//     bitmap of its own (markNews); or-ed and counted (combine), they give
//     a new state's rank in O(1) (rank). When every new state of the round
//     is inline, or every one a side state with a dense record (byKey),
//     the partitions point their slots at the ranks' ids in parallel
//     (assignBits); otherwise each partition merges the others' lists
//     (assignPar), or the searching goroutine numbers them (assign);
//  5. patch (parallel): each worker writes the final ids into its
//     transitions (byKey: the ranks of the provisional keys) and, byKey,
//     the records, index entries and tree links of the new states its own
//     strings found (patchOwn: consecutive ids, so the two workers do not
//     write the same cache lines).
//
// A store whose states are all side states with dense records at 2 bits a
// byte (the philosophers from 13 on) takes insertFolded in phase 3: a
// string is looked up by its hash and its folded word alone, and a new
// state's word is kept in its parNew, so that a provisional slot is
// compared through it and the record is that word.
//
// The side set keeps the slot format of the one-worker search: 4-byte slots
// (fingerprint, rank+1) while its records are dense and its table within
// slot4Max, else 8-byte ones; every phase has a loop for each. (Not
// the slots' positions: a rebuild leaves the records whose probe run
// crosses a partition to a serial pass, and the partitions depend on the
// worker count. Lookups and ids do not depend on positions.)
//
// The ids, hence the parent tree, the traces and the counterexamples, do
// not depend on the number of workers.
type parSearch struct {
	p      *Proc
	s      *store
	W, P   int
	pbits  uint
	ws     []parWorker
	parts  []parPart
	states []lts.State
	lo     []int // worker w expands states[lo[w]:lo[w+1]]
	base   []int // key of worker w's first string (len W+1)
	// final[key] is the id of the new state of key (assign, assignPar;
	// not allocated on the bitmap path, byKey).
	final []uint32
	n0    uint32
	dpart parPart // the new states of the deferred strings
	// newKeys[k] is the key of the string that found new state n0+k
	// (filled by assign and assignPar: not on the bitmap path, byKey,
	// whose patchOwn finds the keys in comb).
	newKeys []uint32
	// If set, growTree(n) is called before the patch phase with the
	// store's size, and onNew(id, pos, ev) by the workers in the patch
	// phase for every new state: pos is the position in the round of the
	// state whose successor (by event ev) found it first.
	growTree func(n int)
	onNew    func(id lts.State, pos int, ev lts.Event)
	// treeN0 is the store's size for which growTree and onNew were set:
	// if the store holds more states when the round takes the lock
	// (another goroutine interned some), they are dropped.
	treeN0 uint32
	// The doubled tables, allocated ahead by a worker (wantIn, wantSide:
	// their sizes, to allocate in this round's expansion).
	nextIn           []byte
	nextSide         []uint64
	wantIn, wantSide int
	nextChunk        []byte
	wantChunk        int
	// prepareIDs: the first id and side rank of the round, and its
	// arena region.
	idBase   uint32
	rankBase int
	region   uint64
	// patched: the ids phase wrote the slots (assignPar, assignBits);
	// false: assign numbered the states, and the patch phase writes the
	// partitions' slots and records (patchNew). byKey implies patched
	// (patchOwn writes the records).
	patched bool
	// byKey: the ids were numbered from the bitmaps (assignBits), and
	// the patch phase writes the new states' records, index entries and
	// tree links by the worker whose string found them (patchOwn).
	byKey bool
	// comb: the round's new states by key (the partitions' bits or'ed),
	// cum[w]: those in the words before w (newBelow).
	comb  []uint64
	cum   []uint32
	heads []int // merge cursors
	lists [][]parNew
	gang  *gang.Gang
	// pre, if set, is run by worker 0 in the expand phase before its
	// share0 states (rounds.ExpandWalking); preNs is its wall time.
	pre    func()
	share0 int
	preNs  int64
	// Time spent in the serial phases and in all phases (wall), for the
	// measurement of the serial fraction (docs/engine-log.md).
	serial, total int64
	par           int64 // in the parallel phases
	deferred      int   // strings looked up after the insert phase
	// The rounds by path (tests): insert phase by insertFolded, ids by
	// bits (assignBits), by the merge walk (assignPar), serially (assign).
	nFolded, nByKey, nMerge, nSerial int
	// The rounds whose insert phase ran on the side set's 4-byte slots,
	// the side tables of 4-byte slots rebuilt by the workers (growSide4)
	// and the records those left to the serial pass (tests).
	nSlot4, nGrow4, nLeft4 int
	// The workers' expansions with words in and out (expandWords), and
	// those whose successors the round unpacked to strings (unpackWords;
	// tests).
	nWords, nUnpack int
	// growSide4's hashes of chunks of records (two: one is written while
	// the other is read), and the chunk of the running call (rebuildPart).
	rh [2][]uint64
	rc int
	// pbase is the side set's size at the insert phase: with 4-byte
	// slots, a slot whose rank field is above it is provisional (prov4).
	pbase uint32
	// With parCPU set: the CPU nanoseconds of the workers in the
	// parallel phases, in all (cpuWork) and along the critical path (the
	// busiest worker of each phase: cpuCrit).
	cpu              []int64
	cpuWork, cpuCrit int64
	cpuCoord         int64 // worker 0's part, run by the searching goroutine
	cpuWait          int64 // the searching goroutine waiting for the workers
	cpuWake          int64 // the searching goroutine waking them (in the serial time)
	cpuRound         int64 // the searching goroutine in the rounds
	// phase[i]: wall nanoseconds of expand, grow (its serial part),
	// insert, ids, patch; with parCPU set, phaseCPU[i] the workers' CPU
	// nanoseconds in the parallel part of phase i (cur: the phase of the
	// running parallel call).
	phase    [5]int64
	phaseCPU [5]int64
	cur      int
}

// parWorker is a worker's expansion of its chunk of a round.
type parWorker struct {
	x      *scratch
	hs     []uint64
	trans  []lts.Transition
	counts []int
	route  [][]int32 // per partition: the indices of this worker's strings
	owner  []int32   // per string: the index of its state in the chunk
	// res[q][j] is the id (or provisional id) of string route[q][j],
	// written by q's owner: writing the transitions themselves from
	// several partitions made their cache lines bounce between the cores.
	res   [][]uint32
	addrs []uintptr
	nIn   int // strings of the store's width
	nSide int
	mark  int // len(x.ends) before the state being expanded
	// wn is the states' length if the worker's last expansion took the
	// words in and out (expandWords): a successor whose string is empty
	// is then packs[i] (the words), of length wn; 0 otherwise.
	wn    int
	wenc  []byte // unpackWords' other buffer
	err   error
	errAt int   // index in the round of the failing state
	expNs int64 // wall time of its last expand phase
	// The least and greatest lengths of the strings not of the store's
	// width (sideLo > sideHi: none), and the or of their words (sideHashOr).
	sideLo, sideHi int
	sideOr         uint64
	// packs[i]: string i packed (pack32), for the side set's packed
	// compares, as hashStrings packed it for its hash.
	packs []packedKey
	// The workers' records are one array and their hot loops write their
	// slice headers: the padding keeps two workers' fields off a shared
	// cache line (the padding of scratch says why).
	_ [cacheLinePad]byte
}

// parPart is a partition's result of the insert phase.
type parPart struct {
	news     []parNew // new states, in key order
	deferred []parDef // strings whose probe run left the range
	left     []uint64 // growing: old slots (inline) or entries (side) moved after the partitions
	nside    int      // side states in news
	nbytes   int      // the bytes of their records
	addrs    []uintptr
	cands    []uint32           // insertFolded4: insRecords' first record (rank+1) of each string
	bits     []uint64           // the keys of news (markNews)
	_        [cacheLinePad]byte // as parWorker's
}

// cacheLinePad separates the records of workers and partitions by more
// than a cache line (two, for the adjacent-line prefetcher).
const cacheLinePad = 128

// parDef is a deferred string: its key, and its position in its route.
type parDef struct{ key, j uint32 }

// parNew is a new state of a round: its key (|parSide for a side state),
// its slot, and off: for an inline state its h32, for a side state its
// length, then its arena offset once assigned. x is a side state's record
// when the records are dense at 2 bits a byte (one word: fold2), which
// the insert phase compares with and the ids phase writes as it is
// (its plen low bytes: setRec2).
type parNew struct {
	key  uint32
	xok  bool // x is set
	slot uint64
	off  uint64
	x    uint64
}

// parRound is the number of states per worker in a round: the tables are
// grown for every successor of a round, so its size bounds how early they
// grow; a round's strings should stay in the caches. (A variable: the
// tests make rounds tiny.)
var parRound = 2048

const (
	parSide = 1 << 31
	// provBit marks a side slot whose record is not written yet: the low
	// bits are the index of its new state in the news of the partition
	// that owns the slot, or with provDef in the deferred strings' news
	// (provNew).
	provBit = 1 << (offBits - 1)
	provDef = provBit >> 1
	// parMaxParts bounds the partitions (the side set's table starts
	// with 16 slots).
	parMaxParts = 16
)

func newParSearch(p *Proc, workers int) *parSearch {
	P, pbits := 1, uint(0)
	for P < workers && P < parMaxParts {
		P, pbits = P*2, pbits+1
	}
	r := &parSearch{p: p, s: p.store, W: workers, P: P, pbits: pbits,
		ws: make([]parWorker, workers), parts: make([]parPart, P),
		lo: make([]int, workers+1), base: make([]int, workers+1),
		heads: make([]int, P+1), cpu: make([]int64, workers)}
	for w := range r.ws {
		r.ws[w].route = make([][]int32, P)
		r.ws[w].res = make([][]uint32, P)
	}
	return r
}

// close stops the workers and returns their scratch to the Proc's pool.
func (r *parSearch) close() {
	if r.gang != nil {
		r.gang.Close()
		r.gang = nil
	}
	for w := range r.ws {
		if x := r.ws[w].x; x != nil {
			r.ws[w].x = nil
			r.p.pool.Put(x)
		}
	}
}

// parallel runs f(w) for every worker and waits; a worker's panic is
// raised again here. The workers are a gang's (started on first use,
// stopped by close): a phase's hand-off takes microseconds.
func (r *parSearch) parallel(f func(w int)) {
	t0 := nanotime()
	defer func() { r.par += nanotime() - t0 }()
	if r.gang == nil {
		var init func(int)
		if parCPU != nil {
			init = func(int) { runtime.LockOSThread() }
		}
		r.gang = gang.New(r.W, init)
	}
	if parCPU == nil {
		r.gang.Run(f)
		return
	}
	// The caller's CPU time in Run beyond worker 0's part is the
	// hand-off, which wakes the workers before f(0) (serial work: on
	// free cores it would still be on the critical path), and the wait
	// for them after f(0) (it spins: not serial work).
	c0 := parCPU()
	var s0, e0 int64
	r.gang.Run(func(w int) {
		c := parCPU()
		if w == 0 {
			s0 = c
		}
		defer func() {
			e := parCPU()
			r.cpu[w] = e - c
			if w == 0 {
				e0 = e
			}
		}()
		f(w)
	})
	r.cpuWake += s0 - c0
	r.cpuWait += parCPU() - e0
	m := int64(0)
	for _, c := range r.cpu {
		m = max(m, c)
		r.cpuWork += c
		r.phaseCPU[r.cur] += c
	}
	r.cpuCrit += m
	r.cpuCoord += r.cpu[0]
}

// round expands states, interns their successors and returns the index of
// the first state whose expansion failed (-1: none) with its error. The
// results of the states before it are then read with result.
func (r *parSearch) round(states []lts.State) (errAt int, err error) {
	p := r.p
	p.mu.Lock()
	t0 := nanotime()
	p0 := r.par
	if parCPU != nil {
		c0 := parCPU()
		defer func() { r.cpuRound += parCPU() - c0 }()
	}
	defer func() {
		d := nanotime() - t0
		r.total += d
		r.serial += d - (r.par - p0)
		p.mu.Unlock()
	}()
	defer func() {
		// A panic leaves the store half updated (provisional slots,
		// ids not given): the process is broken for every later step.
		if e := recover(); e != nil {
			p.breaks(e)
			panic(e)
		}
	}()
	if err := p.brokenErr(); err != nil {
		return 0, err
	}
	s := r.s
	// Before the expansion, which routes strings by the store's width.
	if s.maybeSide(); s.width < 0 {
		r.nextIn = nil
	}
	r.states = states
	r.n0 = uint32(s.n)
	if r.n0 != r.treeN0 {
		r.growTree, r.onNew = nil, nil
	}
	chunk := (len(states) + r.W - 1) / r.W
	for w := range r.W + 1 {
		r.lo[w] = min(w*chunk, len(states))
	}
	if r.pre != nil {
		// Worker 0 runs pre first: it expands share0 states, the others
		// share the rest.
		n0 := min(max(r.share0, 0), len(states))
		rest := len(states) - n0
		for w := 1; w <= r.W; w++ {
			r.lo[w] = n0 + (w-1)*rest/(r.W-1)
		}
	}
	// A table past a load of 3/8 will double soon: the last worker
	// allocates the doubled table during the expansion, so that Go's
	// zeroing of it (12 ms at N = 12 on the benchmark) is not serial.
	r.wantIn, r.wantSide = 0, 0
	// (Not from a table of 2*sideFrom slots or more: inlineFits lets it
	// fill up to 3/4 in the round that reaches sideFrom, and the store
	// moves before the next; only a round of more than sideFrom/2 new
	// inline states would double it, serially.)
	if s.width >= 0 && r.nextIn == nil && uint64(s.inline)*8 > s.slots*3 && s.slots < 2*uint64(sideFrom) {
		r.wantIn = int(s.slots*growNum/growDen) * s.slot
	}
	// (Not a table of 4-byte slots: growSide4 rebuilds it from the
	// records, after freeing the old one.)
	if d := &s.side; d.t4 == nil && r.nextSide == nil && uint64(d.n)*8 > uint64(len(d.table))*3 {
		r.wantSide = 2 * len(d.table)
	}
	// So is the arena's (or the dense array's) next chunk, once the last
	// one is half full.
	r.wantChunk = 0
	if d := &s.side; r.nextChunk == nil && d.recLen >= 0 && len(d.dense) > 0 {
		if c := d.denseChunk(); 2*len(d.dense[len(d.dense)-1]) > c {
			r.wantChunk = d.denseCap()
		}
	} else if r.nextChunk == nil && len(d.chunks) > 0 {
		n := len(d.chunks)
		if last := d.chunks[n-1]; 2*len(last) > cap(last) {
			c := storeChunk
			if n < storeChunkBits && minStoreChunk<<n < storeChunk {
				c = minStoreChunk << n
			}
			r.wantChunk = c
		}
	}
	r.cur = 0
	r.parallel(r.expand)
	r.cur = 1 // growInline, growSide

	ts := nanotime()
	r.phase[0] += ts - t0
	pg := r.par
	errAt = -1
	for w := range r.W {
		wk := &r.ws[w]
		if errAt >= 0 {
			// After the first failing state nothing is interned.
			wk.x.enc, wk.x.ends, wk.hs, wk.trans, wk.counts = wk.x.enc[:0], wk.x.ends[:0], wk.hs[:0], wk.trans[:0], wk.counts[:0]
			wk.packs = wk.packs[:0]
			for q := range wk.route {
				wk.route[q] = wk.route[q][:0]
			}
			wk.nIn, wk.nSide, wk.wn = 0, 0, 0
			continue
		}
		if wk.err != nil {
			errAt, err = wk.errAt, wk.err
		}
	}
	nIn, nSide := 0, 0
	sideLo, sideHi := math.MaxInt, -1
	var sideOr uint64
	for w := range r.W {
		r.base[w+1] = r.base[w] + len(r.ws[w].x.ends)
		nIn += r.ws[w].nIn
		nSide += r.ws[w].nSide
		if r.ws[w].nSide > 0 {
			sideLo, sideHi = min(sideLo, r.ws[w].sideLo), max(sideHi, r.ws[w].sideHi)
			sideOr |= r.ws[w].sideOr
		}
	}
	if nSide > 0 {
		// The side set takes the round's lengths and bytes now, while no
		// slot is provisional: a dense set moves to the arena if they
		// differ, packed records are unpacked if a byte is 16 or more.
		s.side.fit(sideLo, sideHi, sideOr)
	}
	for w := range r.W {
		if wk := &r.ws[w]; wk.wn > 0 {
			r.nWords++
			if !s.wordsDense(wk.wn) {
				// The store left 2-bit dense records (fit: a value
				// of 4 or more): the insert phase reads the word
				// successors as strings.
				r.unpackWords(wk)
				r.nUnpack++
			}
		}
	}
	if s.width < 0 && nIn > 0 {
		panic("internal error: inline strings in a round of a store without a width")
	}
	total := r.base[r.W]
	if total >= parSide || uint64(r.n0)+uint64(total) >= math.MaxUint32-1 {
		panic("lts: more than 2^32-2 states")
	}
	// The tables hold every string of the round within their load
	// (inlineFits).
	if s.width >= 0 {
		slots := s.slots
		for !s.inlineFits(s.inline+nIn, slots, true) {
			slots *= growNum / growDen
		}
		if slots != s.slots {
			r.growInline(slots)
		}
	}
	d := &s.side
	bits := 64 - d.shift
	// With 4-byte slots, the provisional slots' values lie above every
	// rank of the round's start (d.n) and hold a new state's index in its
	// partition's news, which has the inline new states too: the rank
	// field must hold d.n+1+2*total (prov4).
	for uint64(d.n+nSide)*4 > uint64(1)<<bits*3 || 1<<bits < r.P ||
		d.t4 != nil && nSide > 0 && bits <= slot4Max && uint64(d.n)+2*uint64(total)+2 > uint64(1)<<bits {
		bits++
	}
	if bits != 64-d.shift {
		if d.t4 != nil {
			r.growSide4(bits)
		} else {
			r.growSide(bits)
		}
	}
	r.pbase = uint32(d.n)
	t1 := nanotime()
	r.phase[1] += t1 - ts - (r.par - pg)

	r.cur = 2
	if s.width < 0 && d.recLen >= 0 && d.pbits == 2 {
		r.nFolded++
	}
	if d.t4 != nil {
		r.nSlot4++
	}
	r.parallel(r.insert)

	ts = nanotime()
	r.phase[2] += ts - t1
	r.lookupDeferred()
	r.markNews(&r.dpart)
	r.combine()
	pa := r.par
	r.patched = r.prepareIDs()
	if !r.byKey {
		// The ids by key, for assign and assignPar (the bitmap path
		// ranks the keys instead: rank).
		if cap(r.final) < total {
			r.final = make([]uint32, total)
		}
		r.final = r.final[:total]
	}
	if r.byKey {
		r.nByKey++
		r.cur = 3
		r.parallel(r.assignBits)
	} else if r.patched {
		r.nMerge++
		r.cur = 3
		r.parallel(r.assignPar)
	} else {
		r.nSerial++
		r.assign()
		for i := range r.dpart.news {
			r.patchNew(&r.dpart.news[i])
		}
	}
	t1 = nanotime()
	r.phase[3] += t1 - ts - (r.par - pa)

	if r.growTree != nil {
		r.growTree(s.n)
	}
	r.cur = 4
	r.parallel(r.patch)
	r.phase[4] += nanotime() - t1
	return errAt, err
}

// expand is worker w's phase 1.
func (r *parSearch) expand(w int) {
	p, s := r.p, r.s
	wk := &r.ws[w]
	if w == r.W-1 {
		if r.wantIn > 0 {
			r.nextIn = make([]byte, r.wantIn)
		}
		if r.wantSide > 0 {
			freeBefore(8 * r.wantSide)
			r.nextSide = make([]uint64, r.wantSide)
		}
		if r.wantChunk > 0 {
			r.nextChunk = make([]byte, 0, r.wantChunk)
		}
	}
	if w == 0 && r.pre != nil {
		t0 := nanotime()
		r.pre()
		r.preNs = nanotime() - t0
	}
	t0 := nanotime()
	defer func() { wk.expNs = nanotime() - t0 }()
	if wk.x == nil {
		wk.x = p.getScratch()
	}
	x := wk.x
	x.enc, x.ends, x.evs, x.who = x.enc[:0], x.ends[:0], x.evs[:0], x.who[:0]
	wk.counts, wk.err, wk.mark = wk.counts[:0], nil, 0
	wk.hs, wk.owner, wk.nIn = wk.hs[:0], wk.owner[:0], 0
	wk.packs = wk.packs[:0]
	wk.sideLo, wk.sideHi, wk.sideOr = math.MaxInt, -1, 0
	wk.wn = 0
	for q := range wk.route {
		wk.route[q] = wk.route[q][:0]
	}
	sts := r.states[r.lo[w]:r.lo[w+1]]
	if n := p.ncomp + p.nvars; p.wordsProc(x) && s.wordsDense(n) {
		// Words in and out: the parents' records are read as words,
		// the successors stay words (hashWords).
		wk.wn = n
		r.expandWords(wk, sts, w)
	} else {
		r.expandBytes(wk, sts, w)
	}
	if p.sym != nil {
		p.canonAll(x)
	}
	if wk.wn > 0 {
		r.hashWords(wk)
	} else {
		r.hashStrings(wk)
	}
	ns := len(x.ends)
	if r.onNew != nil {
		if cap(wk.owner) < ns {
			wk.owner = make([]int32, ns, ns+ns/4)
		}
		owner := wk.owner[:ns]
		i := 0
		for k, c := range wk.counts {
			for range c {
				owner[i] = int32(k)
				i++
			}
		}
		wk.owner = owner
	}
	if cap(wk.trans) < ns {
		wk.trans = make([]lts.Transition, 0, ns+ns/4)
	}
	wk.trans = wk.trans[:ns]
	wk.nSide = ns - wk.nIn
	for q, l := range wk.route {
		if cap(wk.res[q]) < len(l) {
			wk.res[q] = make([]uint32, len(l), len(l)+len(l)/4)
		}
		wk.res[q] = wk.res[q][:len(l)]
	}
}

// expandBytes is expand's loop for the parents sts of worker w: read as
// strings, expanded by expandRaw (and its word path inside expandPlain).
func (r *parSearch) expandBytes(wk *parWorker, sts []lts.State, w int) {
	p, s, x := r.p, r.s, wk.x
	defer func() {
		if e := recover(); e != nil {
			wk.err = fmt.Errorf("lts: internal error: %v", e)
			wk.errAt = r.lo[w] + len(wk.counts)
			r.truncate(x, wk.mark)
		}
	}()
	for k := 0; k < len(sts); k += frontier.BatchSize {
		batch := sts[k:min(k+frontier.BatchSize, len(sts))]
		wk.addrs = s.getAddrs(batch, wk.addrs[:0])
		prefetch(wk.addrs)
		x.raws, x.rawEnd = x.raws[:0], x.rawEnd[:0]
		for _, t := range batch {
			x.raws = s.AppendGet(x.raws, uint32(t))
			x.rawEnd = append(x.rawEnd, len(x.raws))
		}
		start := 0
		for _, end := range x.rawEnd {
			wk.mark = len(x.ends)
			if e := p.expandRaw(x.raws[start:end], x); e != nil {
				r.truncate(x, wk.mark)
				wk.err, wk.errAt = e, r.lo[w]+len(wk.counts)
				return
			}
			start = end
			wk.counts = append(wk.counts, len(x.ends)-wk.mark)
		}
		if p.sym == nil {
			// While the batch's strings are in the cache.
			r.hashStrings(wk)
		}
	}
}

// expandWords is expand's loop when the store keeps 2-bit dense records of
// the states' length (wordsDense): the parents are read as their records'
// words, expanded by Proc.expandWords (x.wmode: the successors are words
// in x.words, with empty strings), and hashed as words (hashWords); a
// state the words cannot expand takes expandRaw, unpacked, and gives
// strings (with zero words), as SuccessorsBatch's expandWordBatch.
func (r *parSearch) expandWords(wk *parWorker, sts []lts.State, w int) {
	p, s, x := r.p, r.s, wk.x
	n := wk.wn
	x.wmode = true
	x.words = x.words[:0]
	nw := 0
	defer func() {
		x.wmode = false
		if wordsHook != nil {
			wordsHook(nw)
		}
		if e := recover(); e != nil {
			wk.err = fmt.Errorf("lts: internal error: %v", e)
			wk.errAt = r.lo[w] + len(wk.counts)
			r.truncate(x, wk.mark)
		}
	}()
	p.wordCacheFor(x)
	for k := 0; k < len(sts); k += frontier.BatchSize {
		batch := sts[k:min(k+frontier.BatchSize, len(sts))]
		s.readDense(batch, x)
		for j := range batch {
			wk.mark = len(x.ends)
			wv := [2]uint64{x.pw[2*j], x.pw[2*j+1]}
			if p.expandWords(wv, x) {
				nw++
				wk.counts = append(wk.counts, len(x.ends)-wk.mark)
				continue
			}
			x.raw = unpack32(x.raw[:0], wv[0], wv[1], n)
			if e := p.expandRaw(x.raw, x); e != nil {
				r.truncate(x, wk.mark)
				wk.err, wk.errAt = e, r.lo[w]+len(wk.counts)
				return
			}
			for len(x.words) < 2*len(x.ends) {
				x.words = append(x.words, 0)
			}
			wk.counts = append(wk.counts, len(x.ends)-wk.mark)
		}
		// While the batch's words are in the cache.
		r.hashWords(wk)
	}
}

// hashWords is hashStrings for a worker on the word path (wk.wn): a
// successor of empty string is x.words' two words, hashed as the store
// hashes its packed string (hash2) and kept as its packs entry; the
// others (the byte path's) are hashed as hashStrings does. The store has
// no width (wordsDense): every successor is a side string.
func (r *parSearch) hashWords(wk *parWorker) {
	s, x := r.s, wk.x
	var rs [parMaxParts][]int32
	copy(rs[:], wk.route)
	hs, packs := wk.hs, wk.packs
	d := &s.side
	shift := 64 - r.pbits
	n := wk.wn
	lo, hi, or := wk.sideLo, wk.sideHi, wk.sideOr
	i := len(hs)
	start := 0
	if i > 0 {
		start = x.ends[i-1]
	}
	words := x.words
	for ; i < len(x.ends); i++ {
		end := x.ends[i]
		var h uint64
		var pk packedKey
		if end == start {
			pk.w0, pk.w1, pk.ok = words[2*i], words[2*i+1], true
			h = d.hash2(pk.w0, pk.w1, n)
			or |= ge4(pk.w0 | pk.w1)
			lo, hi = min(lo, n), max(hi, n)
		} else {
			b := x.enc[start:end]
			start = end
			if m := len(b); m >= packMin && m <= 32 {
				pk.w0, pk.w1, pk.ok = pack32(b)
			}
			if pk.ok {
				h = d.hash2(pk.w0, pk.w1, len(b))
				or |= ge4(pk.w0 | pk.w1)
			} else {
				var o uint64
				h, o = d.sideHashOr(b)
				or |= o
			}
			lo, hi = min(lo, len(b)), max(hi, len(b))
		}
		packs = append(packs, pk)
		q := uint64(0)
		if r.pbits > 0 {
			q = h >> shift
		}
		hs = append(hs, h)
		rs[q&(parMaxParts-1)] = append(rs[q&(parMaxParts-1)], int32(i))
	}
	copy(wk.route, rs[:])
	wk.hs, wk.packs = hs, packs
	wk.sideLo, wk.sideHi, wk.sideOr = lo, hi, or
}

// unpackWords writes the word successors of worker wk as strings into
// x.enc (a round on the word path whose store left 2-bit dense records in
// fit: its insert phase reads the strings).
func (r *parSearch) unpackWords(wk *parWorker) {
	x := wk.x
	n := wk.wn
	enc := wk.wenc[:0]
	start := 0
	for i, end := range x.ends {
		if end == start {
			enc = unpack32(enc, x.words[2*i], x.words[2*i+1], n)
		} else {
			enc = append(enc, x.enc[start:end]...)
		}
		start = end
		x.ends[i] = len(enc)
	}
	x.enc, wk.wenc = enc, x.enc
	wk.wn = 0
}

// wordBytes is string i of worker wk: its bytes, or unpacked from its
// words (a fresh slice) if it is a word successor.
func (r *parSearch) wordBytes(wk *parWorker, i int) []byte {
	x := wk.x
	start, end := r.strBounds(x, i)
	if end == start && wk.wn > 0 {
		return unpack32(nil, wk.packs[i].w0, wk.packs[i].w1, wk.wn)
	}
	return x.enc[start:end]
}

// hashStrings hashes the worker's strings not hashed yet (from len(wk.hs)
// on) and routes them to their partitions.
func (r *parSearch) hashStrings(wk *parWorker) {
	s, x := r.s, wk.x
	var rs [parMaxParts][]int32
	copy(rs[:], wk.route)
	hs, packs := wk.hs, wk.packs
	d := &s.side
	shift := 64 - r.pbits
	nIn := 0
	lo, hi, or := wk.sideLo, wk.sideHi, wk.sideOr
	i := len(hs)
	start := 0
	if i > 0 {
		start = x.ends[i-1]
	}
	for ; i < len(x.ends); i++ {
		end := x.ends[i]
		b := x.enc[start:end]
		start = end
		var h uint64
		var pk packedKey
		if len(b) == s.width {
			h = maphash.Bytes(s.seed, b)
			nIn++
		} else {
			if m := len(b); m >= packMin && m <= 32 {
				pk.w0, pk.w1, pk.ok = pack32(b)
			}
			if pk.ok {
				h = d.hash2(pk.w0, pk.w1, len(b)) // sideHashOr's
				or |= ge4(pk.w0 | pk.w1)
			} else {
				var o uint64
				h, o = d.sideHashOr(b)
				or |= o
			}
			lo, hi = min(lo, len(b)), max(hi, len(b))
		}
		packs = append(packs, pk)
		q := uint64(0)
		if r.pbits > 0 {
			q = h >> shift
		}
		hs = append(hs, h)
		rs[q&(parMaxParts-1)] = append(rs[q&(parMaxParts-1)], int32(i))
	}
	copy(wk.route, rs[:])
	wk.hs, wk.packs = hs, packs
	wk.nIn += nIn
	wk.sideLo, wk.sideHi, wk.sideOr = lo, hi, or
}

// truncate drops the successors after the first n.
func (r *parSearch) truncate(x *scratch, n int) {
	end := 0
	if n > 0 {
		end = x.ends[n-1]
	}
	x.enc, x.ends, x.evs = x.enc[:end], x.ends[:n], x.evs[:n]
	if len(x.who) > n {
		x.who = x.who[:n]
	}
	if len(x.words) > 2*n {
		x.words = x.words[:2*n]
	}
}

// getAddrs appends the addresses of the slots that Get reads for ids.
func (s *store) getAddrs(ids []lts.State, addrs []uintptr) []uintptr {
	if s.width < 0 {
		return addrs
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s.table)))
	sz := uintptr(s.slot)
	for _, id := range ids {
		v := s.index[id>>refBits][id&(refBlock-1)]
		if v&1 != 0 {
			continue
		}
		a := base + uintptr(s.home(v))*sz
		addrs = append(addrs, a, a+64)
	}
	return addrs
}

// locate returns the bytes and hash of the string of key k.
func (r *parSearch) locate(k uint32) ([]byte, uint64, int, int) {
	w := 0
	for int(k) >= r.base[w+1] {
		w++
	}
	i := int(k) - r.base[w]
	return r.wordBytes(&r.ws[w], i), r.ws[w].hs[i], w, i
}

// insert is worker v's phase 3: its partitions v, v+W, ...
func (r *parSearch) insert(v int) {
	for q := v; q < r.P; q += r.W {
		r.insertPart(q)
		r.markNews(&r.parts[q])
	}
}

// markNews sets the bits of pt's new states' keys in pt.bits (its own:
// the partitions' owners write them at once).
func (r *parSearch) markNews(pt *parPart) {
	n := (r.base[r.W] + 63) >> 6
	if cap(pt.bits) < n {
		pt.bits = make([]uint64, n, n+n/4)
	}
	bs := pt.bits[:n]
	clear(bs)
	for i := range pt.news {
		k := pt.news[i].key &^ parSide
		bs[k>>6] |= 1 << (k & 63)
	}
	pt.bits = bs
}

// combine ors the partitions' bits into comb and counts them (cum), for
// newBelow and rank (serial, between the insert and ids phases).
func (r *parSearch) combine() {
	n := (r.base[r.W] + 63) >> 6
	if cap(r.comb) < n || cap(r.cum) < n+1 {
		r.comb = make([]uint64, n, n+n/4)
		r.cum = make([]uint32, n+1, n+1+n/4)
	}
	r.comb, r.cum = r.comb[:n], r.cum[:n+1]
	c := uint32(0)
	for w := range n {
		x := r.dpart.bits[w]
		for q := range r.parts {
			x |= r.parts[q].bits[w]
		}
		r.comb[w] = x
		r.cum[w] = c
		c += uint32(bits.OnesCount64(x))
	}
	r.cum[n] = c
}

// newBelow is the number of the round's new states whose keys are below
// k (at most the round's strings).
func (r *parSearch) newBelow(k int) int {
	w := k >> 6
	if w >= len(r.comb) {
		return int(r.cum[len(r.comb)])
	}
	return int(r.cum[w]) + bits.OnesCount64(r.comb[w]&(1<<(k&63)-1))
}

// rank is the rank, among the round's new states in key order, of the one
// whose key is k.
func (r *parSearch) rank(k uint32) uint32 {
	return r.cum[k>>6] + uint32(bits.OnesCount64(r.comb[k>>6]&(1<<(k&63)-1)))
}

// insertHook, if set (tests), is called at the start of each
// partition's insert phase: a panic there stands for a store that fails
// inside a round (TestStorePanicNoHang).
var insertHook func(q int)

func (r *parSearch) insertPart(q int) {
	if insertHook != nil {
		insertHook(q)
	}
	s := r.s
	d := &s.side
	pt := &r.parts[q]
	pt.news, pt.deferred, pt.nside, pt.nbytes = pt.news[:0], pt.deferred[:0], 0, 0
	iHi := uint64(q+1) * s.slots >> r.pbits
	sHi := uint64(q+1) * uint64(d.slotCount()) >> r.pbits
	if s.width < 0 && d.recLen >= 0 && d.pbits == 2 {
		if d.t4 != nil {
			r.insertFolded4(q, pt, sHi)
		} else {
			r.insertFolded(q, pt, sHi)
		}
		return
	}
	sz := uintptr(s.slot)
	tptr := unsafe.Pointer(unsafe.SliceData(s.table))
	words := s.width >= 8 && s.width <= 24
	o1, o2 := uintptr(4+s.width-8), uintptr(4+s.mid)
	le := binary.LittleEndian
	for w := range r.W {
		wk := &r.ws[w]
		x := wk.x
		idxs := wk.route[q]
		res := wk.res[q]
		// The home slots of window b+2 and, for side strings, the
		// records their fingerprints point to of window b+1 are
		// prefetched before window b is looked up (as in
		// store.InternAll).
		r.insSlots(pt, wk, idxs, 0, min(2*window, len(idxs)))
		r.insRecords(pt, wk, idxs, 0, min(window, len(idxs)), sHi, nil)
		for b0 := 0; b0 < len(idxs); b0 += window {
			batch := idxs[b0:min(b0+window, len(idxs))]
			r.insSlots(pt, wk, idxs, b0+2*window, min(b0+3*window, len(idxs)))
			r.insRecords(pt, wk, idxs, b0+window, min(b0+2*window, len(idxs)), sHi, nil)
			for jb, i := range batch {
				key := uint32(r.base[w] + int(i))
				start := 0
				if i > 0 {
					start = x.ends[i-1]
				}
				b := x.enc[start:x.ends[i]]
				var t uint32
				var ok bool
				if len(b) == s.width && words {
					// findInline's loop, here rather than a call.
					k0, k1, k2 := le.Uint64(b), le.Uint64(b[s.width-8:]), le.Uint64(b[s.mid:])
					hh := h32(wk.hs[i])
					for j := s.home(hh); j < iHi; j++ {
						p := unsafe.Add(tptr, uintptr(j)*sz)
						v := load32(p)
						if v == 0 {
							store32(p, r.n0+key+1)
							copySlot(unsafe.Add(p, 4), unsafe.Pointer(unsafe.SliceData(b)), s.width)
							pt.news = append(pt.news, parNew{key: key, slot: j, off: uint64(hh)})
							t, ok = r.n0+key, true
							break
						}
						if (load64(unsafe.Add(p, 4))^k0)|(load64(unsafe.Add(p, o1))^k1)|(load64(unsafe.Add(p, o2))^k2) == 0 {
							t, ok = v-1, true
							break
						}
					}
				} else if len(b) == s.width {
					t, ok = r.findInline(pt, b, wk.hs[i], key, iHi, false)
				} else {
					t, ok = r.findSide(pt, b, wk.hs[i], &wk.packs[i], key, sHi, false)
				}
				if !ok {
					pt.deferred = append(pt.deferred, parDef{key, uint32(b0 + jb)})
					continue
				}
				res[b0+jb] = t
			}
		}
	}
}

// insertFolded is insertPart for a store whose states are all side
// states with dense records at 2 bits a byte (the philosophers from 13
// on): a string is its hash and its folded word (fit has made every side
// string of the round fold), so neither its bytes nor its length are
// read, a provisional slot is compared through its new state's word, and
// the ids phase writes that word as the record.
func (r *parSearch) insertFolded(q int, pt *parPart, sHi uint64) {
	d := &r.s.side
	table, shift := d.table, d.shift
	dense, dbits, pl, m2 := d.dense, d.dbits, uintptr(d.plen), d.m2
	news := pt.news
	rl := uint64(d.recLen)
	size := d.recSize(d.recLen)
	n0 := r.n0
	for w := range r.W {
		wk := &r.ws[w]
		idxs := wk.route[q]
		res := wk.res[q][:len(idxs)]
		hs, packs := wk.hs, wk.packs
		base := uint32(r.base[w])
		r.insSideSlots(pt, wk, idxs, 0, min(2*window, len(idxs)))
		r.insRecords(pt, wk, idxs, 0, min(window, len(idxs)), sHi, nil)
		for b0 := 0; b0 < len(idxs); b0 += window {
			batch := idxs[b0:min(b0+window, len(idxs))]
			r.insSideSlots(pt, wk, idxs, b0+2*window, min(b0+3*window, len(idxs)))
			r.insRecords(pt, wk, idxs, b0+window, min(b0+2*window, len(idxs)), sHi, nil)
			for jb, i := range batch {
				key := base + uint32(i)
				h := hs[i]
				pk := &packs[i]
				x, ok := fold2(pk.w0, pk.w1, d.f2sh)
				if !ok || !pk.ok {
					// (Not after fit: the general lookup, which reads
					// the bytes.)
					pt.news = news
					t, ok := r.findSide(pt, r.wordBytes(wk, int(i)), h, pk, key, sHi, false)
					news = pt.news
					if !ok {
						pt.deferred = append(pt.deferred, parDef{key, uint32(b0 + jb)})
						continue
					}
					res[b0+jb] = t
					continue
				}
				fp := h >> offBits
				j := h >> shift
				for {
					v := table[j]
					if v == 0 {
						table[j] = fp<<offBits | provBit | uint64(len(news))
						news = append(news, parNew{key: key | parSide, xok: true, slot: j, off: rl, x: x})
						pt.nside++
						pt.nbytes += size
						res[b0+jb] = n0 + key
						break
					}
					if v>>offBits == fp {
						if v&provBit != 0 {
							if e := &news[v&(provDef-1)]; e.xok && e.x == x {
								res[b0+jb] = n0 + e.key&^parSide
								break
							}
						} else if k := v&offMask - 1; at2(dense, dbits, pl, m2, k) == x {
							res[b0+jb] = d.denseID(k)
							break
						}
					}
					if j++; j == sHi {
						pt.deferred = append(pt.deferred, parDef{key, uint32(b0 + jb)})
						break
					}
				}
			}
		}
	}
	pt.news = news
}

// insSideSlots is insSlots for a store whose strings are all side
// strings: their lengths are not read.
func (r *parSearch) insSideSlots(pt *parPart, wk *parWorker, idxs []int32, lo, hi int) {
	if lo >= hi {
		return
	}
	d := &r.s.side
	sbase, sz := d.tableBase()
	shift := d.shift
	hs := wk.hs
	pt.addrs = pt.addrs[:0]
	for _, i := range idxs[lo:hi] {
		pt.addrs = append(pt.addrs, sbase+uintptr(hs[i]>>shift)*sz)
	}
	prefetch(pt.addrs)
}

// insSlots prefetches the home slots of the strings idxs[lo:hi] of worker
// wk (insertPart's first stage).
func (r *parSearch) insSlots(pt *parPart, wk *parWorker, idxs []int32, lo, hi int) {
	if lo >= hi {
		return
	}
	s := r.s
	d := &s.side
	tbase := uintptr(unsafe.Pointer(unsafe.SliceData(s.table)))
	sbase, ssz := d.tableBase()
	sz := uintptr(s.slot)
	x := wk.x
	pt.addrs = pt.addrs[:0]
	for _, i := range idxs[lo:hi] {
		h := wk.hs[i]
		start := 0
		if i > 0 {
			start = x.ends[i-1]
		}
		if x.ends[i]-start == s.width {
			a := tbase + uintptr(s.home(h32(h)))*sz
			pt.addrs = append(pt.addrs, a, a+64)
		} else {
			a := sbase + uintptr(h>>d.shift)*ssz
			pt.addrs = append(pt.addrs, a)
		}
	}
	prefetch(pt.addrs)
}

// insRecords prefetches the side records that the side strings among
// idxs[lo:hi] will be compared with first (insertPart's second stage).
func (r *parSearch) insRecords(pt *parPart, wk *parWorker, idxs []int32, lo, hi int, sHi uint64, cands []uint32) {
	if lo >= hi {
		return
	}
	s := r.s
	d := &s.side
	x := wk.x
	pt.addrs = pt.addrs[:0]
	if t4 := d.t4; t4 != nil && d.recLen > 0 && s.width < 0 {
		// The same with 4-byte slots (a slot's rank field above pbase:
		// provisional).
		shift, rb, rm, pb := d.shift, d.rbits, d.rmask, r.pbase
		dense, dbits, rl, rw := d.dense, d.dbits, uintptr(d.plen), d.readLen()
		dmask := uint64(1)<<dbits - 1
		for p, i := range idxs[lo:hi] {
			h := wk.hs[i]
			f := uint32(h>>32) << rb
			if cands != nil {
				cands[lo+p] = 0
			}
			for j := h >> shift; j < sHi; j++ {
				v := t4[j]
				if v == 0 {
					break
				}
				if v&^rm == f && v&rm <= pb {
					r := uint64(v&rm - 1)
					if cands != nil {
						cands[lo+p] = uint32(r + 1)
					}
					p := uintptr(unsafe.Pointer(unsafe.SliceData(dense[r>>dbits]))) + uintptr(r&dmask)*rl
					pt.addrs = append(pt.addrs, p)
					if last := p + rw - 1; last&^63 != p&^63 {
						pt.addrs = append(pt.addrs, last)
					}
					break
				}
			}
		}
		if len(pt.addrs) > 0 {
			prefetch(pt.addrs)
		}
		return
	}
	if d.recLen > 0 && s.width < 0 {
		// Every string a side string, dense records: recordAddrsPar's
		// walk here, the record's address computed inline.
		table, shift := d.table, d.shift
		dense, dbits, rl, rw := d.dense, d.dbits, uintptr(d.plen), d.readLen()
		dmask := uint64(1)<<dbits - 1
		for _, i := range idxs[lo:hi] {
			h := wk.hs[i]
			fp := h >> offBits
			for j := h >> shift; j < sHi; j++ {
				v := table[j]
				if v == 0 {
					break
				}
				if v>>offBits == fp && v&provBit == 0 {
					r := v&offMask - 1
					p := uintptr(unsafe.Pointer(unsafe.SliceData(dense[r>>dbits]))) + uintptr(r&dmask)*rl
					pt.addrs = append(pt.addrs, p)
					if last := p + rw - 1; last&^63 != p&^63 {
						pt.addrs = append(pt.addrs, last)
					}
					break
				}
			}
		}
		if len(pt.addrs) > 0 {
			prefetch(pt.addrs)
		}
		return
	}
	for _, i := range idxs[lo:hi] {
		start := 0
		if i > 0 {
			start = x.ends[i-1]
		}
		if ln := x.ends[i] - start; ln != s.width {
			pt.addrs = d.recordAddrsPar(wk.hs[i], ln, sHi, r.pbase, pt.addrs)
		}
	}
	if len(pt.addrs) > 0 {
		prefetch(pt.addrs)
	}
}

// findInline looks b (of hash h, key key) up in the inline table from its
// home up to slot hi (or around the whole table if wrap), inserting it
// with a provisional id in the first empty slot (appended to news). It
// returns the id (final or provisional), or false if the probe run
// reached hi.
func (r *parSearch) findInline(pt *parPart, b []byte, h uint64, key uint32, hi uint64, wrap bool) (uint32, bool) {
	s := r.s
	i := s.home(h32(h))
	w := s.width
	words := w >= 8 && w <= 24
	var k0, k1, k2 uint64
	o1, o2 := uintptr(4+w-8), uintptr(4+s.mid)
	if words {
		le := binary.LittleEndian
		k0, k1, k2 = le.Uint64(b), le.Uint64(b[w-8:]), le.Uint64(b[s.mid:])
	}
	for {
		p := s.at(i)
		v := load32(p)
		if v == 0 {
			store32(p, r.n0+key+1)
			copy(unsafe.Slice((*byte)(unsafe.Add(p, 4)), w), b)
			pt.news = append(pt.news, parNew{key: key, slot: i, off: uint64(h32(h))})
			return r.n0 + key, true
		}
		if words {
			if (load64(unsafe.Add(p, 4))^k0)|(load64(unsafe.Add(p, o1))^k1)|(load64(unsafe.Add(p, o2))^k2) == 0 {
				return v - 1, true
			}
		} else if unsafe.String((*byte)(unsafe.Add(p, 4)), w) == string(b) {
			return v - 1, true
		}
		if i++; i == hi {
			if !wrap {
				return 0, false
			}
			i = 0
		}
	}
}

// findSide is findInline for the side set: a new string's slot holds its
// fingerprint, provBit and its new state's index in pt.news (provTag:
// with provDef if pt is the deferred strings'); its bytes stay in the
// worker's buffer until the ids are assigned. pk is b packed
// (hashStrings).
func (r *parSearch) findSide(pt *parPart, b []byte, h uint64, pk *packedKey, key uint32, hi uint64, wrap bool) (uint32, bool) {
	d := &r.s.side
	if d.t4 != nil {
		return r.findSide4(pt, b, h, pk, key, hi, wrap)
	}
	fp := h >> offBits
	// Dense records of 8 to 32 bytes: compared here in four word loads
	// (as in internAllSide); packed ones with the probe packed once
	// (a probe with a byte of 16 or more is in no packed record).
	ln := len(b)
	fast := d.pbits == 8 && d.recLen == ln && ln >= 8 && ln <= 32
	var k0, k1, k2, k3 uint64
	o2, o3 := min(8, ln-8), min(16, ln-8)
	if fast {
		le := binary.LittleEndian
		k0, k1, k2, k3 = le.Uint64(b), le.Uint64(b[ln-8:]), le.Uint64(b[o2:]), le.Uint64(b[o3:])
	}
	var w0, w1 uint64
	packed := false
	if d.pbits == 4 && d.recLen == ln && d.plen >= 8 && d.plen <= 16 {
		w0, w1, packed = pk.w0, pk.w1, pk.ok
	}
	// Records at 2 bits a byte: one word each, masked (rec2; a probe
	// with a byte of 4 or more is in none).
	var x2 uint64
	packed2 := false
	if d.pbits == 2 && d.recLen == ln {
		x2, packed2 = fold2(pk.w0, pk.w1, d.f2sh)
		packed2 = packed2 && pk.ok
	}
	for i := h >> d.shift; ; {
		v := d.table[i]
		if v == 0 {
			d.table[i] = fp<<offBits | provBit | r.provTag(pt)
			pt.news = append(pt.news, parNew{key: key | parSide, xok: packed2, slot: i, off: uint64(len(b)), x: x2})
			pt.nside++
			pt.nbytes += d.recSize(len(b))
			return r.n0 + key, true
		}
		if v>>offBits == fp {
			if v&provBit != 0 {
				e := r.provNew(i, v)
				k := e.key &^ parSide
				if packed2 && e.xok {
					// Both of the dense length, folded: the words
					// decide.
					if e.x == x2 {
						return r.n0 + k, true
					}
				} else if o, _, _, _ := r.locate(k); string(o) == string(b) {
					return r.n0 + k, true
				}
			} else if fast {
				k := v&offMask - 1
				p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(d.dense[k>>d.dbits])), uintptr(k&(1<<d.dbits-1))*uintptr(ln))
				if eq4(p, ln, o2, o3, k0, k1, k2, k3) {
					return d.denseID(k), true
				}
			} else if packed2 {
				k := v&offMask - 1
				if d.rec2(k) == x2 {
					return d.denseID(k), true
				}
			} else if packed {
				k := v&offMask - 1
				p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(d.dense[k>>d.dbits])), uintptr(k&(1<<d.dbits-1))*uintptr(d.plen))
				if eqPacked2(p, d.plen, w0, w1) {
					return d.denseID(k), true
				}
			} else if id, ok := d.match(v&offMask-1, b); ok {
				return id, true
			}
		}
		if i++; i == hi {
			if !wrap {
				return 0, false
			}
			i = 0
		}
	}
}

// provTag is the low bits of the provisional slot of the next new state
// of pt: its index in pt.news, with provDef for the deferred strings'.
func (r *parSearch) provTag(pt *parPart) uint64 {
	t := uint64(len(pt.news))
	if pt == &r.dpart {
		t |= provDef
	}
	return t
}

// provNew is the new state of the provisional side slot i of value v:
// in the deferred strings' news (provDef), else in those of the
// partition whose range holds slot i (only its owner inserts there in
// the insert phase).
func (r *parSearch) provNew(i, v uint64) *parNew {
	k := v & (provDef - 1)
	if v&provDef != 0 {
		return &r.dpart.news[k]
	}
	tb := 64 - r.s.side.shift // log2 of the table's slots
	return &r.parts[i>>(tb-r.pbits)].news[k]
}

// recordAddrsPar is recordAddrs for the insert phase: it stops at hi and
// skips provisional slots (of 4-byte slots: a rank field above pbase).
func (s *sideSet) recordAddrsPar(h uint64, ln int, hi uint64, pbase uint32, addrs []uintptr) []uintptr {
	if t4 := s.t4; t4 != nil {
		f, rm := s.fp4(h), s.rmask
		for i := h >> s.shift; i < hi; i++ {
			v := t4[i]
			if v == 0 {
				return addrs
			}
			if v&^rm == f && v&rm <= pbase {
				return s.recordLines(uint64(v&rm-1), ln, addrs)
			}
		}
		return addrs
	}
	fp := h >> offBits
	for i := h >> s.shift; i < hi; i++ {
		v := s.table[i]
		if v == 0 {
			return addrs
		}
		if v>>offBits == fp && v&provBit == 0 {
			return s.recordLines(v&offMask-1, ln, addrs)
		}
	}
	return addrs
}

// lookupDeferred looks the deferred strings up over the whole tables, in
// key order (phase 4).
func (r *parSearch) lookupDeferred() {
	r.dpart.news, r.dpart.nside, r.dpart.nbytes = r.dpart.news[:0], 0, 0
	for q := range r.parts {
		r.heads[q] = 0
	}
	s := r.s
	for {
		best, bq := uint32(math.MaxUint32), -1
		for q := range r.parts {
			if l := r.parts[q].deferred; r.heads[q] < len(l) && l[r.heads[q]].key < best {
				best, bq = l[r.heads[q]].key, q
			}
		}
		if bq < 0 {
			return
		}
		j := r.parts[bq].deferred[r.heads[bq]].j
		r.heads[bq]++
		r.deferred++
		b, h, w, i := r.locate(best)
		var t uint32
		if len(b) == s.width {
			t, _ = r.findInline(&r.dpart, b, h, best, s.slots, true)
		} else {
			t, _ = r.findSide(&r.dpart, b, h, &r.ws[w].packs[i], best, uint64(s.side.slotCount()), true)
		}
		r.ws[w].res[bq][j] = t
	}
}

// assign gives the new states of the round their ids in key order and
// appends the side states' records (phase 4); the deferred ones are
// patched here, the others by their partitions.
func (r *parSearch) assign() {
	s := r.s
	d := &s.side
	r.lists = r.lists[:0]
	for q := range r.parts {
		if len(r.parts[q].news) > 0 {
			r.lists = append(r.lists, r.parts[q].news)
		}
	}
	if len(r.dpart.news) > 0 {
		r.lists = append(r.lists, r.dpart.news)
	}
	r.newKeys = r.newKeys[:0]
	lists := r.lists
	for len(lists) > 0 {
		// The list whose head has the least key.
		bq := 0
		for q := 1; q < len(lists); q++ {
			if lists[q][0].key&^parSide < lists[bq][0].key&^parSide {
				bq = q
			}
		}
		e := &lists[bq][0]
		if lists[bq] = lists[bq][1:]; len(lists[bq]) == 0 {
			lists[bq] = lists[len(lists)-1]
			lists = lists[:len(lists)-1]
		}
		key := e.key &^ parSide
		id := s.newID()
		r.final[key] = id
		r.newKeys = append(r.newKeys, key)
		if e.key&parSide == 0 {
			s.setIndex(id, uint32(e.off))
			s.inline++
			continue
		}
		k, off := d.reserveRecord(int(e.off), 0) // fit by the round
		e.off = off
		if s.width >= 0 {
			s.setIndex(id, uint32(k)<<1|1)
		}
	}
}

// patchNew writes the final id of a new state into its slot, or for a
// side state its record (reserved by assign) and its arena offset.
func (r *parSearch) patchNew(e *parNew) {
	if e.key&parSide == 0 {
		store32(r.s.at(e.slot), r.final[e.key]+1)
		return
	}
	r.patchSide(e, e.off)
}

// patchSide writes the record of the new side state e at off and points
// its slot to it.
func (r *parSearch) patchSide(e *parNew, off uint64) {
	d := &r.s.side
	key := e.key &^ parSide
	if d.recLen >= 0 && d.pbits == 2 && e.xok {
		// The record is the word the insert phase folded (writeDense's).
		d.setRec2(off, e.x)
		if d.withIDs {
			d.ids.Set(int(off), r.final[key])
		}
	} else {
		b, _, _, _ := r.locate(key)
		d.writeRecord(off, r.final[key], b)
	}
	if t4 := d.t4; t4 != nil {
		// Dense records (toArena has widened the slots): off is the
		// rank.
		t4[e.slot] = t4[e.slot]&^d.rmask | uint32(off+1)
		return
	}
	t := d.table
	t[e.slot] = t[e.slot]>>offBits<<offBits | (off + 1)
}

// patch is worker v's phase 5.
func (r *parSearch) patch(v int) {
	if !r.patched {
		for q := v; q < r.P; q += r.W {
			for i := range r.parts[q].news {
				r.patchNew(&r.parts[q].news[i])
			}
		}
	}
	n0 := r.n0
	wk := &r.ws[v]
	ts, evs := wk.trans, wk.x.evs
	if r.byKey {
		for q, idxs := range wk.route {
			for j, i := range wk.res[q][:len(idxs)] {
				if i >= n0 {
					i = r.idBase + r.rank(i-n0)
				}
				k := idxs[j]
				ts[k] = lts.Transition{Event: evs[k], Target: lts.State(i)}
			}
		}
		r.patchOwn(v)
		return
	}
	for q, idxs := range wk.route {
		for j, i := range wk.res[q][:len(idxs)] {
			if i >= n0 {
				i = r.final[i-n0]
			}
			k := idxs[j]
			ts[k] = lts.Transition{Event: evs[k], Target: lts.State(i)}
		}
	}
	if r.onNew != nil {
		// The new states numbered [a, b): each is reported with the
		// position in the round of the state that found it and the event.
		t := len(r.newKeys)
		for j := v * t / r.W; j < (v+1)*t/r.W; j++ {
			key := int(r.newKeys[j])
			w := 0
			for key >= r.base[w+1] {
				w++
			}
			i := key - r.base[w]
			r.onNew(lts.State(r.n0)+lts.State(j), r.lo[w]+int(r.ws[w].owner[i]), r.ws[w].x.evs[i])
		}
	}
}

func nanotime() int64 { return time.Now().UnixNano() }

// parRegionMax bounds the arena region of a round (one chunk); the tests
// lower it to take the serial numbering.
var parRegionMax = storeChunk

// parCPU, if set (by benchmarks), returns the CPU time of the calling
// thread: parallel phases then measure their workers' CPU time.
var parCPU func() int64

// growInline moves the inline table to one of slots slots (a multiple of
// the current size), each partition moving the entries of its range that
// belong to it (their homes stay in its range); the others, and those
// whose probe run would leave the range, are moved after.
func (r *parSearch) growInline(slots uint64) {
	s := r.s
	if slots > maxSlots {
		panic("lts: state table full")
	}
	table := r.nextIn
	if len(table) != int(slots)*s.slot {
		table = make([]byte, int(slots)*s.slot)
	}
	r.nextIn = nil
	oldSlots := s.slots
	r.parallel(func(v int) {
		for q := v; q < r.P; q += r.W {
			r.growInlinePart(q, table, slots, oldSlots)
		}
	})
	base := unsafe.Pointer(unsafe.SliceData(table))
	for q := range r.parts {
		for _, j := range r.parts[q].left {
			s.moveSlot(base, slots, s.at(j))
		}
	}
	s.table, s.slots = table, slots
	collectOld(int(oldSlots) * s.slot)
}

func (r *parSearch) growInlinePart(q int, table []byte, slots, oldSlots uint64) {
	s := r.s
	pt := &r.parts[q]
	pt.left = pt.left[:0]
	lo, hi := uint64(q)*slots>>r.pbits, uint64(q+1)*slots>>r.pbits
	sz := uintptr(s.slot)
	touch(table[uintptr(lo)*sz:uintptr(hi)*sz], 4096)
	base := unsafe.Pointer(unsafe.SliceData(table))
	shift := 32 - r.pbits
	for j := uint64(q) * oldSlots >> r.pbits; j < uint64(q+1)*oldSlots>>r.pbits; j++ {
		p := s.at(j)
		if load32(p) == 0 {
			continue
		}
		b := unsafe.Slice((*byte)(unsafe.Add(p, 4)), s.width)
		hh := h32(maphash.Bytes(s.seed, b))
		if r.pbits > 0 && int(hh>>shift) != q {
			pt.left = append(pt.left, j)
			continue
		}
		i := uint64(hh) * slots >> 32
		for i < hi && load32(unsafe.Add(base, uintptr(i)*sz)) != 0 {
			i++
		}
		if i == hi {
			pt.left = append(pt.left, j)
			continue
		}
		copySlot(unsafe.Add(base, uintptr(i)*sz), p, s.slot)
	}
}

// growSide is growInline for the side set's table (1<<bits slots).
func (r *parSearch) growSide(bits uint) {
	d := &r.s.side
	table := r.nextSide
	r.nextSide = nil
	if len(table) != 1<<bits {
		table = nil // (a table allocated ahead, too small: garbage)
		freeBefore(8 << bits)
		table = make([]uint64, 1<<bits)
	}
	old := d.table
	shift := 64 - bits
	r.parallel(func(v int) {
		for q := v; q < r.P; q += r.W {
			r.growSidePart(q, old, table, shift)
		}
	})
	mask := uint64(len(table) - 1)
	for q := range r.parts {
		for _, v := range r.parts[q].left { // (entries: old may be released)
			i := d.homeOf(v, shift)
			for table[i] != 0 {
				i = (i + 1) & mask
			}
			table[i] = v
		}
	}
	d.table, d.mask, d.shift = table, mask, shift
	n := len(old) * 8
	old = nil
	collectOldFree(n)
}

// homeOf is the home slot, in a table of shift, of the entry v.
func (s *sideSet) homeOf(v uint64, shift uint) uint64 {
	if shift >= offBits {
		return (v >> offBits) >> (shift - offBits)
	}
	return s.hashAt(v&offMask-1) >> shift
}

// growSidePart moves the entries of partition q's range of the old table
// whose probe runs stay in its range of the new one; the others go to its
// left list (the entries themselves, not their slots: a big old table
// gives its pages back as the pass leaves them, as in sideSet.grow). The
// new range's pages are written once each (touch) ahead of the entries
// that reach them, rather than all before the pass, so that the two
// tables are not both held whole.
func (r *parSearch) growSidePart(q int, old, table []uint64, shift uint) {
	d := &r.s.side
	pt := &r.parts[q]
	pt.left = pt.left[:0]
	n := uint64(len(table))
	lo, hi := uint64(q)*n>>r.pbits, uint64(q+1)*n>>r.pbits
	touched := lo
	on := uint64(len(old))
	release := len(old)*8 >= releaseMin
	j0 := uint64(q) * on >> r.pbits
	for j := j0; j < uint64(q+1)*on>>r.pbits; j++ {
		if release && j > j0 && (j-j0)&(releaseBlock-1) == 0 {
			releasePages(old[j-releaseBlock : j])
		}
		v := old[j]
		if v == 0 {
			continue
		}
		i := d.homeOf(v, shift)
		if i < lo || i >= hi {
			pt.left = append(pt.left, v)
			continue
		}
		if i >= touched {
			end := min(hi, i+2*releaseBlock)
			touch(table[touched:end], 512)
			touched = end
		}
		for i < hi && table[i] != 0 {
			if i++; i == touched && i < hi {
				end := min(hi, i+2*releaseBlock)
				touch(table[touched:end], 512)
				touched = end
			}
		}
		if i == hi {
			pt.left = append(pt.left, v)
			continue
		}
		table[i] = v
	}
}

// recordSize is the size of the arena record of a string of n bytes.
func recordSize(n int) int { return 4 + uvarintLen(uint64(n)) + n }

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// prepareIDs chooses how the round's ids are given and prepares their
// parallel assignment: it sets byKey (the bitmap path: assignBits, then
// patchOwn) when every new state is inline, or every one a side state
// with a dense record, else the partitions merge their lists (assignPar).
// The id index, the side set's ranks and one arena region for all the
// round's records are extended, to be filled by the partitions. It
// reports false if the records do not fit one arena chunk (byKey is then
// false, and assign numbers the states alone).
func (r *parSearch) prepareIDs() bool {
	s := r.s
	d := &s.side
	r.byKey = false
	total, nside, nbytes := len(r.dpart.news), r.dpart.nside, r.dpart.nbytes
	for q := range r.parts {
		total += len(r.parts[q].news)
		nside += r.parts[q].nside
		nbytes += r.parts[q].nbytes
	}
	if nbytes > parRegionMax {
		return false
	}
	if uint64(s.n)+uint64(total) >= math.MaxUint32-1 {
		panic("lts: more than 2^32-2 states")
	}
	if d.n+nside >= 1<<31-1 {
		panic("lts: more than 2^31-1 states of an odd length")
	}
	r.idBase, r.rankBase = uint32(s.n), d.n
	r.region = 0
	// Numbered from the bits when every new state is inline, or every
	// one is a side state with a dense record: a new state's side rank is
	// then its rank, or it has none.
	r.byKey = nside == 0 || (s.width < 0 && d.recLen >= 0 && nside == total)
	if d.recLen >= 0 {
		// Dense records: room at their ranks.
		d.growDense(d.n+nside, &r.nextChunk)
	} else if nbytes > 0 {
		r.region = d.reserve(nbytes, nbytes, &r.nextChunk)
	}
	if !r.byKey {
		if cap(r.newKeys) < total {
			r.newKeys = make([]uint32, total, total+total/4)
		}
		r.newKeys = r.newKeys[:total]
	}
	if s.width >= 0 {
		for id := s.n; id < s.n+total; {
			// setIndex's blocks, extended to the round's last id.
			if id&(refBlock-1) == 0 {
				c := refBlock
				if id == 0 {
					c = minRefs
				}
				s.index = append(s.index, make([]uint32, 0, c))
			}
			blk := id >> refBits
			k := min(s.n+total-id, refBlock-id&(refBlock-1))
			s.index[blk] = append(s.index[blk], make([]uint32, k)...)
			id += k
		}
	}
	for k := d.n; k < d.n+nside && d.recLen < 0; {
		if k&(refBlock-1) == 0 {
			c := refBlock
			if k == 0 {
				c = 16
			}
			d.refs = append(d.refs, make([]uint64, 0, c))
		}
		blk := k >> refBits
		m := min(d.n+nside-k, refBlock-k&(refBlock-1))
		d.refs[blk] = append(d.refs[blk], make([]uint64, m)...)
		k += m
	}
	s.n += total
	s.inline += total - nside
	d.n += nside
	return true
}

// assignPar is worker v's part of the ids: for each of its lists (its
// partitions', and the deferred one for worker P mod W), every new state's
// rank among all the round's new states in key order (its position in its
// list plus the entries of the other lists with smaller keys), hence its
// id, and for a side state its side rank and its record's offset in the
// round's region; then its slot and record are written.
func (r *parSearch) assignPar(v int) {
	for q := v; q <= r.P; q += r.W {
		pt := &r.dpart
		if q < r.P {
			pt = &r.parts[q]
		}
		r.assignList(pt)
	}
}

func (r *parSearch) assignList(pt *parPart) {
	s := r.s
	d := &s.side
	type cursor struct {
		l                []parNew
		i, nside, nbytes int
	}
	var cs [parMaxParts + 1]cursor
	nc := 0
	for q := range r.P + 1 {
		o := &r.dpart
		if q < r.P {
			o = &r.parts[q]
		}
		if o != pt && len(o.news) > 0 {
			cs[nc] = cursor{l: o.news}
			nc++
		}
	}
	own := 0 // side states before, in this list
	ownBytes := 0
	for j := range pt.news {
		e := &pt.news[j]
		key := e.key &^ parSide
		rank, srank, sbytes := j, own, ownBytes
		for c := range cs[:nc] {
			u := &cs[c]
			for u.i < len(u.l) && u.l[u.i].key&^parSide < key {
				if f := &u.l[u.i]; f.key&parSide != 0 {
					u.nside++
					u.nbytes += recordSize(int(f.off))
				}
				u.i++
			}
			rank += u.i
			srank += u.nside
			sbytes += u.nbytes
		}
		id := r.idBase + uint32(rank)
		r.final[key] = id
		r.newKeys[rank] = key
		if e.key&parSide == 0 {
			if s.width >= 0 {
				s.index[id>>refBits][id&(refBlock-1)] = uint32(e.off)
			}
			store32(s.at(e.slot), id+1)
			continue
		}
		n := int(e.off)
		own++
		ownBytes += recordSize(n)
		k := r.rankBase + srank
		off := uint64(k) // dense: the location is the rank
		if d.recLen < 0 {
			off = r.region + uint64(sbytes)
			d.refs[k>>refBits][k&(refBlock-1)] = off
		}
		if s.width >= 0 {
			s.index[id>>refBits][id&(refBlock-1)] = uint32(k)<<1 | 1
		}
		// Not into e.off: the other lists' workers read it (a length).
		r.patchSide(e, off)
	}
}

// assignBits is assignPar when the ids are numbered from the bits
// (byKey): worker v points the slots of its partitions' new states (and
// worker P mod W those of the deferred strings') to their ids or records;
// the records, index entries and tree links are written in the patch
// phase by the workers whose strings found the states (patchOwn), each a
// run of consecutive ids, not at ids interleaved with another worker's.
func (r *parSearch) assignBits(v int) {
	s := r.s
	t, t4, rm := s.side.table, s.side.t4, s.side.rmask
	for q := v; q <= r.P; q += r.W {
		pt := &r.dpart
		if q < r.P {
			pt = &r.parts[q]
		}
		for j := range pt.news {
			e := &pt.news[j]
			rk := r.rank(e.key &^ parSide)
			if e.key&parSide == 0 {
				store32(s.at(e.slot), r.idBase+rk+1)
				continue
			}
			// Dense: the location is the side rank, the rank here.
			if t4 != nil {
				t4[e.slot] = t4[e.slot]&^rm | (uint32(r.rankBase) + rk + 1)
				continue
			}
			t[e.slot] = t[e.slot]>>offBits<<offBits | (uint64(r.rankBase) + uint64(rk) + 1)
		}
	}
}

// patchOwn writes, for the new states found by worker v's strings (keys
// base[v] to base[v+1], consecutive ranks), the side records (dense) or
// the index entries (inline), and the tree links.
func (r *parSearch) patchOwn(v int) {
	s := r.s
	d := &s.side
	wk := &r.ws[v]
	x := wk.x
	lo, hi := uint32(r.base[v]), uint32(r.base[v+1])
	if lo == hi {
		return
	}
	rk := r.rank(lo)
	for w := lo >> 6; w <= (hi-1)>>6; w++ {
		m := r.comb[w]
		if w == lo>>6 {
			m &^= 1<<(lo&63) - 1
		}
		if w == (hi-1)>>6 && hi&63 != 0 {
			m &= 1<<(hi&63) - 1
		}
		for ; m != 0; m &= m - 1 {
			key := w<<6 | uint32(bits.TrailingZeros64(m))
			i := int(key - lo)
			id := r.idBase + rk
			start, end := r.strBounds(x, i)
			ln := end - start
			if ln == 0 && wk.wn > 0 {
				ln = wk.wn // words (packs[i])
			}
			if ln == s.width {
				if s.width >= 0 {
					s.index[id>>refBits][id&(refBlock-1)] = h32(wk.hs[i])
				}
			} else {
				if s.width >= 0 || d.withIDs || d.recLen < 0 {
					// byKey takes side states only in a store without
					// a width, of dense records: no index entry, no
					// rank -> id, no arena offset to write.
					panic(fmt.Sprintf("internal error: side state %d on the bitmap path (width %d, dense length %d)", id, s.width, d.recLen))
				}
				k := uint64(r.rankBase) + uint64(rk)
				pk := &wk.packs[i]
				if xw, ok := fold2(pk.w0, pk.w1, d.f2sh); d.pbits == 2 && ok && pk.ok && ln == d.recLen {
					d.setRec2(k, xw)
				} else {
					d.writeDense(k, r.wordBytes(wk, i)) // (unpacked if words: not after fit today)
				}
			}
			if r.onNew != nil {
				r.onNew(lts.State(id), r.lo[v]+int(wk.owner[i]), x.evs[i])
			}
			rk++
		}
	}
}

// strBounds is where string i of x lies in x.enc.
func (r *parSearch) strBounds(x *scratch, i int) (int, int) {
	start := 0
	if i > 0 {
		start = x.ends[i-1]
	}
	return start, x.ends[i]
}

// With 4-byte side slots (d.t4) the rounds keep the one-worker format,
// fp<<rbits | rank+1, and mark a provisional slot by its rank field
// instead of provBit (prov4): pbase+1+tag, above every rank+1 of the
// round's start (pbase = d.n then), where tag is the new state's index
// in its partition's news times 2, plus 1 for the deferred strings' news
// (the slot's place tells the partition, as with provNew). The grow phase
// keeps the table large enough for d.n+1+2*nSide to fit the rank field.

// prov4 is the rank field of the provisional 4-byte slot of the next new
// state of pt.
func (r *parSearch) prov4(pt *parPart) uint32 {
	t := uint32(len(pt.news)) << 1
	if pt == &r.dpart {
		t |= 1
	}
	return r.pbase + 1 + t
}

// provNew4 is the new state of the provisional 4-byte slot i whose rank
// field is low (> pbase).
func (r *parSearch) provNew4(i uint64, low uint32) *parNew {
	t := low - r.pbase - 1
	if t&1 != 0 {
		return &r.dpart.news[t>>1]
	}
	return &r.parts[i>>(r.s.side.rbits-r.pbits)].news[t>>1]
}

// insertFolded4 is insertFolded on a table of 4-byte slots.
func (r *parSearch) insertFolded4(q int, pt *parPart, sHi uint64) {
	d := &r.s.side
	t4, shift, rb, rm := d.t4, d.shift, d.rbits, d.rmask
	dense, dbits, pl, m2 := d.dense, d.dbits, uintptr(d.plen), d.m2
	news := pt.news
	rl := uint64(d.recLen)
	size := d.recSize(d.recLen)
	n0, pb := r.n0, r.pbase
	for w := range r.W {
		wk := &r.ws[w]
		idxs := wk.route[q]
		res := wk.res[q][:len(idxs)]
		hs, packs := wk.hs, wk.packs
		base := uint32(r.base[w])
		r.insSideSlots(pt, wk, idxs, 0, min(2*window, len(idxs)))
		cands := slices.Grow(pt.cands[:0], len(idxs))[:len(idxs)]
		pt.cands = cands
		r.insRecords(pt, wk, idxs, 0, min(window, len(idxs)), sHi, cands)
		for b0 := 0; b0 < len(idxs); b0 += window {
			batch := idxs[b0:min(b0+window, len(idxs))]
			r.insSideSlots(pt, wk, idxs, b0+2*window, min(b0+3*window, len(idxs)))
			r.insRecords(pt, wk, idxs, b0+window, min(b0+2*window, len(idxs)), sHi, cands)
			for jb, i := range batch {
				key := base + uint32(i)
				h := hs[i]
				pk := &packs[i]
				x, ok := fold2(pk.w0, pk.w1, d.f2sh)
				if !ok || !pk.ok {
					// (Not after fit: the general lookup.)
					pt.news = news
					t, ok := r.findSide4(pt, r.wordBytes(wk, int(i)), h, pk, key, sHi, false)
					news = pt.news
					if !ok {
						pt.deferred = append(pt.deferred, parDef{key, uint32(b0 + jb)})
						continue
					}
					res[b0+jb] = t
					continue
				}
				// The stored record insRecords found first (as
				// InternWords' recordCands): if it holds x, that is its
				// id, and the probe run is not walked again.
				if c := cands[b0+jb]; c != 0 {
					if k := uint64(c - 1); at2(dense, dbits, pl, m2, k) == x {
						res[b0+jb] = d.denseID(k)
						continue
					}
				}
				f := uint32(h>>32) << rb
				j := h >> shift
				for {
					v := t4[j]
					if v == 0 {
						t4[j] = f | (pb + 1 + uint32(len(news))<<1)
						news = append(news, parNew{key: key | parSide, xok: true, slot: j, off: rl, x: x})
						pt.nside++
						pt.nbytes += size
						res[b0+jb] = n0 + key
						break
					}
					if v&^rm == f {
						if low := v & rm; low > pb {
							// In the insert phase, only this partition's
							// new states are provisional in its range.
							if e := &news[(low-pb-1)>>1]; e.xok && e.x == x {
								res[b0+jb] = n0 + e.key&^parSide
								break
							}
						} else if k := uint64(low - 1); at2(dense, dbits, pl, m2, k) == x {
							res[b0+jb] = d.denseID(k)
							break
						}
					}
					if j++; j == sHi {
						pt.deferred = append(pt.deferred, parDef{key, uint32(b0 + jb)})
						break
					}
				}
			}
		}
	}
	pt.news = news
}

// findSide4 is findSide on a table of 4-byte slots (dense records).
func (r *parSearch) findSide4(pt *parPart, b []byte, h uint64, pk *packedKey, key uint32, hi uint64, wrap bool) (uint32, bool) {
	d := &r.s.side
	t4, rm, pb := d.t4, d.rmask, r.pbase
	f := d.fp4(h)
	ln := len(b)
	fast := d.pbits == 8 && d.recLen == ln && ln >= 8 && ln <= 32
	var k0, k1, k2, k3 uint64
	o2, o3 := min(8, ln-8), min(16, ln-8)
	if fast {
		le := binary.LittleEndian
		k0, k1, k2, k3 = le.Uint64(b), le.Uint64(b[ln-8:]), le.Uint64(b[o2:]), le.Uint64(b[o3:])
	}
	var w0, w1 uint64
	packed := false
	if d.pbits == 4 && d.recLen == ln && d.plen >= 8 && d.plen <= 16 {
		w0, w1, packed = pk.w0, pk.w1, pk.ok
	}
	var x2 uint64
	packed2 := false
	if d.pbits == 2 && d.recLen == ln {
		x2, packed2 = fold2(pk.w0, pk.w1, d.f2sh)
		packed2 = packed2 && pk.ok
	}
	for i := h >> d.shift; ; {
		v := t4[i]
		if v == 0 {
			t4[i] = f | r.prov4(pt)
			pt.news = append(pt.news, parNew{key: key | parSide, xok: packed2, slot: i, off: uint64(ln), x: x2})
			pt.nside++
			pt.nbytes += d.recSize(ln)
			return r.n0 + key, true
		}
		if v&^rm == f {
			low := v & rm
			k := uint64(low - 1)
			switch {
			case low > pb:
				e := r.provNew4(i, low)
				k := e.key &^ parSide
				if packed2 && e.xok {
					if e.x == x2 {
						return r.n0 + k, true
					}
				} else if o, _, _, _ := r.locate(k); string(o) == string(b) {
					return r.n0 + k, true
				}
			case fast:
				p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(d.dense[k>>d.dbits])), uintptr(k&(1<<d.dbits-1))*uintptr(ln))
				if eq4(p, ln, o2, o3, k0, k1, k2, k3) {
					return d.denseID(k), true
				}
			case packed2:
				if d.rec2(k) == x2 {
					return d.denseID(k), true
				}
			case packed:
				p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(d.dense[k>>d.dbits])), uintptr(k&(1<<d.dbits-1))*uintptr(d.plen))
				if eqPacked2(p, d.plen, w0, w1) {
					return d.denseID(k), true
				}
			default:
				if id, ok := d.match(k, b); ok {
					return id, true
				}
			}
		}
		if i++; i == hi {
			if !wrap {
				return 0, false
			}
			i = 0
		}
	}
}

// growSide4 is growSide for a table of 4-byte slots, which hold no home:
// the old table is freed first (no slot is provisional in the grow phase,
// and the records hold every key), then the workers rebuild the new one
// from the records (rebuildPart), each writing the slots of its
// partitions only; the probe runs that would leave a partition's range
// are finished after, in partition and rank order. Past slot4Max the set
// moves to 8-byte slots, once, serially (sideSet.rebuild).
func (r *parSearch) growSide4(bits uint) {
	d := &r.s.side
	if bits > slot4Max {
		d.rebuild(bits)
		return
	}
	old := len(d.t4)
	d.t4 = nil
	collectOldFree(old * 4)
	t4 := make([]uint32, 1<<bits)
	d.t4, d.rbits, d.rmask = t4, bits, 1<<bits-1
	d.mask, d.shift = 1<<bits-1, 64-bits
	r.nGrow4++
	for q := range r.parts {
		r.parts[q].left = r.parts[q].left[:0]
	}
	if cap(r.rh[0]) < rebuildChunk {
		r.rh[0], r.rh[1] = make([]uint64, rebuildChunk), make([]uint64, rebuildChunk)
	}
	// Call c inserts chunk c (hashed in call c-1) and hashes chunk c+1:
	// one hand-off a chunk, every record hashed once.
	chunks := (d.n + rebuildChunk - 1) / rebuildChunk
	for r.rc = -1; r.rc < chunks; r.rc++ {
		r.parallel(r.rebuildPart)
	}
	for q := range r.parts {
		r.nLeft4 += len(r.parts[q].left)
		for _, k := range r.parts[q].left {
			h := d.hashAt(k)
			i := h >> d.shift
			for t4[i] != 0 {
				i = (i + 1) & d.mask
			}
			t4[i] = d.fp4(h) | uint32(k+1)
		}
	}
}

// rebuildChunk is the number of records whose hashes growSide4's
// workers compute together (rh: 128 KiB) before each inserts those of its
// partitions.
const rebuildChunk = 1 << 14

// rebuildPart is worker v's part of call rc of growSide4: it inserts the
// records of chunk rc whose homes lie in its partitions (v, v+W, ...: the
// top bits of the hash; their hashes are in rh[rc&1], computed by the
// workers in call rc-1), then hashes its share of chunk rc+1 into
// rh[(rc+1)&1]. A probe run that reaches the end of its partition's range
// leaves the record's rank in the partition's left list. The records go by
// batches of 64 whose homes are prefetched a batch ahead: a batch is
// inserted while the next one's lines are on their way (a worker keeps
// 1/W of the records: batches of a fixed number of records read, as in
// sideSet.rebuild, would leave fewer lines in flight).
func (r *parSearch) rebuildPart(v int) {
	d := &r.s.side
	c, n := r.rc, d.n
	if c >= 0 {
		lo := c * rebuildChunk
		hs := r.rh[c&1][:min(rebuildChunk, n-lo)]
		t4, shift, rb := d.t4, d.shift, d.rbits
		pshift := 64 - r.pbits
		const batch = 64
		var js [2][batch]int32
		var addrs [batch]uintptr
		var ms [2]int
		base := uintptr(unsafe.Pointer(unsafe.SliceData(t4)))
		// own[q]: partition q is the worker's (h>>pshift is 0 with one
		// partition: a shift by 64).
		var own [parMaxParts]bool
		for q := v; q < r.P; q += r.W {
			own[q] = true
		}
		j := 0
		// gather fills batch b with the next records of the worker's
		// partitions and prefetches their homes.
		gather := func(b int) {
			m := 0
			for ; j < len(hs) && m < batch; j++ {
				h := hs[j]
				if !own[h>>pshift&(parMaxParts-1)] {
					continue
				}
				js[b][m], addrs[m] = int32(j), base+uintptr(h>>shift)*4
				m++
			}
			ms[b] = m
			prefetch(addrs[:m])
		}
		gather(0)
		for b := 0; ms[b] > 0; b ^= 1 {
			gather(b ^ 1)
			for _, jj := range js[b][:ms[b]] {
				h, k := hs[jj], uint64(lo+int(jj))
				q := h >> pshift
				hi := (q + 1) << rb >> r.pbits
				i := h >> shift
				for i < hi && t4[i] != 0 {
					i++
				}
				if i == hi {
					r.parts[q].left = append(r.parts[q].left, k)
					continue
				}
				t4[i] = uint32(h>>32)<<rb | uint32(k+1)
			}
		}
	}
	if lo := (c + 1) * rebuildChunk; lo < n {
		m := min(rebuildChunk, n-lo)
		hs := r.rh[(c+1)&1]
		for j := v * m / r.W; j < (v+1)*m/r.W; j++ {
			hs[j] = d.hashAt(uint64(lo + j))
		}
	}
}
