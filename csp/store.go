package csp

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"unsafe"

	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// store is the visited-state set of a Proc: a hash set of byte strings
// with dense uint32 ids, tuned for the search, which is bound by memory
// latency. A Proc's states nearly all have one length (one byte per
// component and per variable), its width, so the store keeps those inline:
//
//   - the main table is an array of slots of [id+1 uint32][width bytes]
//     (0 = empty), open addressing with linear probing, so a lookup touches
//     the slots of its probe run, usually one or two cache lines, and
//     nothing else (with the states in an arena, a lookup cost two
//     dependent misses: the slot, then the record it points to);
//   - the home slot of hash h is (h32 * slots) >> 32 with h32 the top 32
//     bits of h, so the slots stay nearly sorted by hash (an entry sits a
//     short probe run after its home) and growing the table by any factor
//     is a streaming pass (the hash of a state is recomputed from its
//     inline bytes, which the pass reads anyway); the table
//     doubles when half full (a load between 1/4 and 1/2: 2 to 4 times
//     width+4 bytes per state, 44 to 88 for the benchmark's 18 bytes),
//     except in the batch or round in which it reaches sideFrom states,
//     which may fill it up to 3/4 (inlineFits);
//   - the id index (id -> h32, in blocks that grow without copying) lets
//     Get find a state's slot by probing from its home for its id, and
//     never changes when the table grows.
//
// The inline table is for small searches, whose tables fit the caches:
// at the first batch or round after it holds sideFrom states, the store
// moves every state to a side set without a width (toSide), which is
// smaller and, beyond the caches, faster. States of any other length (a
// variable above 63 or a component code above 127 takes more bytes), and
// all states when the width is above maxWidth, go to a side set
// (sideSet): a table of fingerprint + location
// (4-byte slots of fingerprint + rank while the records are dense), and
// the records in a dense array indexed by rank while they all have one
// length (packed at 2 bits a byte while every byte is below 4 and the
// length is 17 to 32, else at 4 bits while every byte is below 16), else
// in an arena of [id][uvarint length][bytes] records (the previous
// design). Their index entry is k<<1|1, k their rank in the side set
// (inline entries keep h32 even); a store without a width has no index
// (ranks are ids).
//
// Everything starts small, so that a system of a few hundred states (a
// refinement check builds two per assertion) costs kilobytes. Not safe for
// concurrent use: Proc guards it with a mutex, which a parallel round
// (store_par.go) holds while its workers intern into disjoint partitions of
// the tables.
type store struct {
	seed  maphash.Seed
	n     int        // ids assigned
	index [][]uint32 // id -> h32 (even) or side rank<<1|1, in blocks of refBlock ids

	width  int    // the length of the states kept inline, or -1: none
	slot   int    // 4 + width: bytes per slot
	table  []byte // slots*slot bytes
	slots  uint64
	inline int // entries in table
	// batch: InternAll is interning a batch; the next InternAll moves
	// the store to the side set if it then holds sideFrom states
	// (maybeSide).
	batch bool
	// Word compare of a probe with a slot's bytes for widths 8..24: the
	// payload words at 0, width-8 and mid (8 if width > 16, else 0)
	// decide equality.
	mid int

	side sideSet

	hashes []uint64
	packs  []packedKey // internAllSide: the strings' packings
	addrs  []uintptr   // the addresses a batch stage prefetches
	// InternWords: the batch's 2-bit records, and the batch as strings
	// when it cannot take them (words.go).
	folds []uint64
	// InternWords: for each string, 1 + the rank of the first record its
	// probe run's fingerprint agreed with when its record was prefetched
	// (0: none; recordCands).
	cands []uint32
	wenc  []byte
	wends []int
}

// packedKey is a string of 8 to 32 bytes packed (pack32; ok false: it
// does not pack).
type packedKey struct {
	w0, w1 uint64
	ok     bool
}

const (
	minSlots = 256
	// Longer states go to the side set. A slot costs its width at every
	// load, an arena record only once: exploring a model of 52-byte
	// states (1.6M) inline took 160 bytes per state instead of 99 and
	// was 15% slower; up to 24 bytes, the word compare covers a state.
	maxWidth = 24

	maxSlots = 1 << 32 // h32 places a state
	// The table doubles when it is half full (but see inlineFits).
	// Linear probing over slots of 20-odd bytes slows down sharply with
	// the load: on the benchmark,
	// a load of up to 5/8 explored 5% fewer states per second, 3/4 10%
	// fewer, and growing by half (which keeps the load higher) 10-18%
	// fewer.
	growNum = 2
	growDen = 1
	loadNum = 1
	loadDen = 2
	// The id index grows by blocks, never by copying (append's copies and
	// the page faults of each fresh array were ~8% of a big exploration).
	refBits  = 13
	refBlock = 1 << refBits
	minRefs  = 1 << 8 // first capacity of the index's first block
)

// newStore returns a store that keeps states of width bytes inline (a
// negative width or one above maxWidth: none).
func newStore(width int) *store {
	s := &store{seed: maphash.MakeSeed(), width: -1}
	if width >= 0 && width <= maxWidth {
		s.width, s.slot = width, 4+width
		s.slots = minSlots
		s.table = make([]byte, minSlots*s.slot)
		s.mid = 0
		if width > 16 {
			s.mid = 8
		}
	}
	if s.width < 0 {
		s.side.init(s.seed, 8, false)
	} else {
		s.side.init(s.seed, 4, true) // usually stays empty
	}
	return s
}

func (s *store) Len() int { return s.n }

// Bytes is the memory held: the table, the id index and the side set.
func (s *store) Bytes() int64 {
	n := int64(len(s.table))
	for _, r := range s.index {
		n += int64(cap(r)) * 4
	}
	return n + s.side.bytes()
}

// h32 is the part of a hash that places a state in the table (even, so
// that an index entry tells inline entries from side ones).
func h32(h uint64) uint32 { return uint32(h>>32) &^ 1 }

func (s *store) home(h uint32) uint64 { return uint64(h) * s.slots >> 32 }

// at is the address of slot i.
func (s *store) at(i uint64) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.table)), uintptr(i)*uintptr(s.slot))
}

// Slot words are little-endian on every machine (compiled to plain
// loads and stores where unaligned access is allowed), so that they
// agree with the key words of findInline.
func load64(p unsafe.Pointer) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice((*byte)(p), 8))
}
func load32(p unsafe.Pointer) uint32 {
	return binary.LittleEndian.Uint32(unsafe.Slice((*byte)(p), 4))
}
func store64(p unsafe.Pointer, v uint64) {
	binary.LittleEndian.PutUint64(unsafe.Slice((*byte)(p), 8), v)
}
func store32(p unsafe.Pointer, v uint32) {
	binary.LittleEndian.PutUint32(unsafe.Slice((*byte)(p), 4), v)
}

// AppendGet appends the bytes of id to dst (safe in the parallel rounds'
// expand phase, which nothing writes in: no buffer of the store's).
func (s *store) AppendGet(dst []byte, id uint32) []byte {
	if s.width < 0 {
		return s.side.appendGet(dst, id)
	}
	v := s.index[id>>refBits][id&(refBlock-1)]
	if v&1 != 0 {
		return s.side.appendGet(dst, v>>1)
	}
	return append(dst, s.Get(id)...)
}

// Get returns the bytes of id (valid until the next Intern; callers copy;
// a fresh copy if its record is packed: the searches use AppendGet).
func (s *store) Get(id uint32) []byte {
	if s.width < 0 {
		return s.side.get(id) // every state is a side state: rank = id
	}
	v := s.index[id>>refBits][id&(refBlock-1)]
	if v&1 != 0 {
		return s.side.get(v >> 1)
	}
	// At most one lap of the table: a broken store (an id whose slot is
	// gone) panics rather than hangs.
	for i, n := s.home(v), s.slots; n > 0; n-- {
		p := s.at(i)
		if load32(p) == id+1 {
			return unsafe.Slice((*byte)(unsafe.Add(p, 4)), s.width)
		}
		if i++; i == s.slots {
			i = 0
		}
	}
	panic(fmt.Sprintf("internal error: id %d not in the table", id))
}

// Hash is the hash of b (safe without the lock: the seed never changes):
// a side string's is sideHash.
func (s *store) Hash(b []byte) uint64 {
	if len(b) == s.width {
		return maphash.Bytes(s.seed, b)
	}
	return s.side.sideHash(b)
}

// Lookup returns the id of b if present.
func (s *store) Lookup(b []byte) (uint32, bool) {
	h := s.Hash(b)
	if len(b) == s.width {
		_, id, ok := s.findInline(b, h32(h))
		return id, ok
	}
	_, _, id, ok := s.side.find(b, h)
	return id, ok
}

// Intern returns the id of b, adding it if new.
func (s *store) Intern(b []byte) (uint32, bool) {
	return s.internHashed(b, s.Hash(b))
}

// internHashed is Intern with the hash of b already computed.
func (s *store) internHashed(b []byte, h uint64) (uint32, bool) {
	if len(b) != s.width {
		i, fp, id, ok := s.side.find(b, h)
		if ok {
			return id, false
		}
		id = s.newID()
		k := s.side.add(i, fp, id, b)
		if s.width >= 0 {
			s.setIndex(id, uint32(k)<<1|1)
		}
		return id, true
	}
	hh := h32(h)
	i, id, ok := s.findInline(b, hh)
	if ok {
		return id, false
	}
	return s.insertAt(s.at(i), b, hh), true
}

// insertAt adds b, of hash hh, at the empty slot p and returns its id.
func (s *store) insertAt(p unsafe.Pointer, b []byte, hh uint32) uint32 {
	id := s.newID()
	store32(p, id+1)
	copy(unsafe.Slice((*byte)(unsafe.Add(p, 4)), s.width), b)
	s.setIndex(id, hh)
	s.inline++
	if !s.inlineFits(s.inline, s.slots, s.batch) {
		s.grow()
	}
	return id
}

// inlineFits reports whether a table of slots slots may hold n inline
// states: up to its load, or, in a batch or a round (moving) once n
// reaches sideFrom, up to 3/4, so that the table that the move at the
// next batch or round drops is not first doubled. (A round's n counts
// its strings, repeats included: an upper bound. If no batch or round
// follows, the table stays at up to 3/4: longer probe runs, no harm.)
func (s *store) inlineFits(n int, slots uint64, moving bool) bool {
	return uint64(n)*loadDen <= slots*loadNum || moving && n >= sideFrom && uint64(n)*4 <= slots*3
}

// findInline returns the slot of b (its empty slot if absent) and its id
// if present; len(b) == s.width.
func (s *store) findInline(b []byte, hh uint32) (uint64, uint32, bool) {
	i := s.home(hh)
	w := s.width
	if w >= 8 && w <= 24 {
		// Three word compares, combined: no call, one branch.
		le := binary.LittleEndian
		k0, k1, k2 := le.Uint64(b), le.Uint64(b[w-8:]), le.Uint64(b[s.mid:])
		o1, o2 := uintptr(4+w-8), uintptr(4+s.mid)
		for {
			p := s.at(i)
			v := load32(p)
			if v == 0 {
				return i, 0, false
			}
			if (load64(unsafe.Add(p, 4))^k0)|(load64(unsafe.Add(p, o1))^k1)|(load64(unsafe.Add(p, o2))^k2) == 0 {
				return i, v - 1, true
			}
			if i++; i == s.slots {
				i = 0
			}
		}
	}
	for {
		p := s.at(i)
		v := load32(p)
		if v == 0 {
			return i, 0, false
		}
		if unsafe.String((*byte)(unsafe.Add(p, 4)), w) == string(b) {
			return i, v - 1, true
		}
		if i++; i == s.slots {
			i = 0
		}
	}
}

// newID assigns the next id.
func (s *store) newID() uint32 {
	if uint64(s.n) >= math.MaxUint32-1 {
		panic("lts: more than 2^32-2 states")
	}
	s.n++
	return uint32(s.n - 1)
}

func (s *store) setIndex(id uint32, v uint32) {
	if id&(refBlock-1) == 0 {
		// The first block grows by append from a small capacity; the
		// others are allocated whole.
		c := refBlock
		if id == 0 {
			c = minRefs
		}
		s.index = append(s.index, make([]uint32, 0, c))
	}
	blk := id >> refBits
	s.index[blk] = intern.Append(s.index[blk], v)
}

// grow enlarges the table by growNum/growDen. Slots are visited in order
// and their homes scale, so the writes stream through the new table (the
// entries that wrapped around the end come first and land at its end;
// linear probing does not care about the insertion order).
func (s *store) grow() {
	slots := s.slots * growNum / growDen
	if slots > maxSlots {
		panic("lts: state table full")
	}
	oldSlots := s.slots
	table := make([]byte, int(slots)*s.slot)
	touch(table, 4096)
	base := unsafe.Pointer(unsafe.SliceData(table))
	if s.n <= indexHashMax {
		// The index holds each inline entry's h32: read it there
		// instead of hashing the entry's bytes again.
		sz := uintptr(s.slot)
		for j := uint64(0); j < oldSlots; j++ {
			p := s.at(j)
			v := load32(p)
			if v == 0 {
				continue
			}
			id := v - 1
			i := uint64(s.index[id>>refBits][id&(refBlock-1)]) * slots >> 32
			for load32(unsafe.Add(base, uintptr(i)*sz)) != 0 {
				if i++; i == slots {
					i = 0
				}
			}
			copySlot(unsafe.Add(base, uintptr(i)*sz), p, s.slot)
		}
	} else {
		for j := uint64(0); j < oldSlots; j++ {
			if p := s.at(j); load32(p) != 0 {
				s.moveSlot(base, slots, p)
			}
		}
	}
	s.table, s.slots = table, slots
	collectOld(int(oldSlots) * s.slot)
}

// sideFrom is the number of inline states from which a store with a
// width moves every state to a side set without a width (toSide). The
// inline table takes one access a lookup but 2 to 4 times width+4 bytes
// a state; the side set two (its 4-byte slot, then the record), in tables
// several times smaller. While the inline table fits the caches it is
// the faster (a refinement check of 75,334 implementation states was 20%
// slower with the move at 2^13 states); beyond, the side set is faster as
// well as smaller: the philosophers at N = 12 (24-byte states, 531,441 of
// them) take 18 to 40% less CPU time and 31.7 MiB instead of 129
// (docs/engine-log.md, "Small tables inline, large ones on the side"). A
// variable: the tests lower it.
var sideFrom = 1 << 17

// maybeSide moves the states to the side set (toSide) once the inline
// table holds sideFrom of them. InternAll calls it before each batch and
// the parallel rounds before each round's expansion, under the lock, with
// no slot provisional; a single Intern never moves the store.
func (s *store) maybeSide() {
	if s.width >= 0 && s.inline >= sideFrom {
		s.toSide()
	}
}

// toSide moves every state to a new side set that ranks them by id (as a
// store without a width keeps its states: ids are ranks) and drops the
// inline table and the id index. States of one length (the usual case)
// are written as dense records in id order and the table is built from
// them, as its growth rebuilds it; otherwise they are interned again in
// id order into the empty set, which gives each its id again (checked).
func (s *store) toSide() {
	n, w := s.n, s.width
	bits := uint(4)
	for uint64(n)*4 > uint64(1)<<bits*3 {
		bits++
	}
	oldTable := len(s.table)
	// The new side set keeps 8-byte slots if the old one was told to
	// (widen: BenchmarkParPhases' wide variants).
	wide := s.side.wide
	if s.inline == n && n > 0 && w > 0 {
		// One length, the width (there is no side state): the records
		// are written at their ids straight from the slots (their
		// length and packing fixed first by the or of every byte, their
		// room reserved), the inline table is dropped, then the side
		// table is built from the records, as its growth rebuilds it.
		s.side = sideSet{}
		d := &s.side
		d.init(s.seed, 4, false)
		d.wide = wide    // (rebuild then makes 8-byte slots)
		if d.t4 != nil { // (4-byte slots unless a test says: slot4Off)
			var or uint64
			s.eachInline(func(_ uint32, b []byte) { or |= orBytes(b) })
			d.fit(w, w, or)
			d.growDense(n, nil)
			s.eachInline(func(id uint32, b []byte) { d.writeDense(uint64(id), b) })
			d.n = n
			s.dropInline(oldTable)
			d.rebuild(bits + 1)
			sideMoves.Add(1)
			return
		}
	}
	// Otherwise every state is interned again, in id order, into an
	// empty side set, which must give it its id again.
	var enc []byte
	ends := make([]int, n)
	for id := range n {
		enc = s.AppendGet(enc, uint32(id))
		ends[id] = len(enc)
	}
	s.side = sideSet{}
	s.side.init(s.seed, bits+1, false)
	if wide {
		s.side.widen()
	}
	s.dropInline(0)
	s.n, s.hashes = 0, s.hashes[:0]
	ids := s.internAllSide(enc, ends, make([]uint32, 0, n))
	for i, id := range ids {
		if id != uint32(i) {
			panic(fmt.Sprintf("internal error: state %d is %d in the side set", i, id))
		}
	}
	// (The batch buffers grew to n: the next batches allocate their own.)
	enc, ends, s.hashes, s.packs = nil, nil, nil, nil
	if oldTable >= 1<<20 {
		debug.FreeOSMemory()
	}
	sideMoves.Add(1)
}

// eachInline calls f with the id and bytes of every state in the inline
// table, in slot order.
func (s *store) eachInline(f func(id uint32, b []byte)) {
	for j := uint64(0); j < s.slots; j++ {
		p := s.at(j)
		if v := load32(p); v != 0 {
			f(v-1, unsafe.Slice((*byte)(unsafe.Add(p, 4)), s.width))
		}
	}
}

// dropInline makes the store one without a width: no inline table, no id
// index. An old table of tableBytes (1 MiB or more) is collected and its
// pages returned at once: the collector's pace (budget.TuneGC, a
// collection at 5 times the heap of the last one) would keep it, and the
// older tables that growing left, to the end of the search.
func (s *store) dropInline(tableBytes int) {
	s.width, s.slot, s.mid = -1, 0, 0
	s.table, s.slots, s.inline, s.index = nil, 0, 0, nil
	if tableBytes >= 1<<20 {
		debug.FreeOSMemory()
	}
}

// sideMoves counts toSide's moves (the tests check that they ran).
var sideMoves atomic.Int64

// bigOld is the size from which a table that growing left behind is
// collected at once. The collector is paced for speed (budget.TuneGC,
// GOGC 400): in a large exploration it does not run again, and the old
// table, garbage, would stay in the process's memory while the records
// and the parent tree grow on into the peak (docs/engine-log.md, "Tables left
// behind"). Collected, its pages take the next records.
var bigOld = 16 << 20

// collectOld runs the collector when a table of the given bytes has just
// become garbage, if it is big.
func collectOld(bytes int) {
	if bytes >= bigOld {
		runtime.GC()
		oldCollected.Add(1)
	}
}

// collectOldFree is collectOld for the side set's table: it also returns
// the free pages to the system (the runtime would keep them: the next
// table, larger, cannot reuse them, and the records grow into them only
// slowly). A later search in the same process then faults its pages in
// again: the inline table (states of up to 24 bytes) keeps collectOld,
// whose pages the rest of its search reuses.
func collectOldFree(bytes int) {
	if bytes >= bigOld {
		debug.FreeOSMemory()
		oldCollected.Add(1)
	}
}

// oldCollected counts collectOld's collections (the tests compare).
var oldCollected atomic.Int64

// freeBefore returns the free pages to the system (after a collection)
// before a side table of the given bytes is allocated, if it is big: the
// peak comes while the old table and the new one are both held, and the
// pages that the search's garbage left (the levels' lists as they
// double, the first dense chunk's copies) would add to it.
func freeBefore(bytes int) {
	if bytes >= 2*bigOld {
		debug.FreeOSMemory()
	}
}

// indexHashMax is the number of states up to which grow reads each inline
// entry's hash from the id index (4 bytes an id, read in no particular
// order: up to 128 KiB, which the cache holds) instead of recomputing it;
// beyond, a read of the index would often miss the cache, which costs more
// than hashing the bytes that the move reads anyway.
const indexHashMax = 1 << 15

// moveSlot copies the occupied slot p into the first free slot from its
// home in a table of slots slots at base (its hash is recomputed from the
// inline bytes, which the copy reads anyway).
func (s *store) moveSlot(base unsafe.Pointer, slots uint64, p unsafe.Pointer) {
	sz := uintptr(s.slot)
	b := unsafe.Slice((*byte)(unsafe.Add(p, 4)), s.width)
	i := uint64(h32(maphash.Bytes(s.seed, b))) * slots >> 32
	for load32(unsafe.Add(base, uintptr(i)*sz)) != 0 {
		if i++; i == slots {
			i = 0
		}
	}
	copySlot(unsafe.Add(base, uintptr(i)*sz), p, s.slot)
}

// touch writes one element per page of a fresh table (every step-th), so
// that its pages are faulted in by writes: the probes that fill a grown
// table read it first, and a read of a fresh page maps the shared zero
// page, so that the write after it faults a second time (the system time
// of the benchmark's exploration fell from 0.26-0.63 s to 0.16 s).
func touch[T any](t []T, step int) {
	var zero T
	for k := 0; k < len(t); k += step {
		t[k] = zero
	}
}

// copySlot copies a slot of n bytes from src to dst; slots of 8 to 32
// bytes (the common widths) take word moves instead of a call.
func copySlot(dst, src unsafe.Pointer, n int) {
	if n < 8 || n > 32 {
		copy(unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(src), n))
		return
	}
	// The words at 0, n-8 and, as needed, 8 and 16 cover the slot.
	last := uintptr(n - 8)
	a, b := load64(src), load64(unsafe.Add(src, last))
	if n > 16 {
		c := load64(unsafe.Add(src, 8))
		if n > 24 {
			store64(unsafe.Add(dst, 16), load64(unsafe.Add(src, 16)))
		}
		store64(unsafe.Add(dst, 8), c)
	}
	store64(dst, a)
	store64(unsafe.Add(dst, last), b)
}

// The batch interface. The search is bound by the memory latency of the
// table, so a batch of strings is interned in stages, each issuing the
// memory accesses the next one needs without waiting for them: the home
// slots (prefetchSlots), for side strings the records their slots point
// to (prefetchRecords), then the lookups, which find most lines cached.
// Prefetch instructions, unlike plain loads, do not hold up the
// instructions after them. The stages run over windows of window strings
// as a pipeline (the slots of window w+2 and the records of window w+1
// are prefetched before window w is looked up): stages over the whole
// batch (some 2,400 strings, 4,800 lines) let the early lines leave the
// L1 cache and the TLB before their lookup came, and were 10% slower on
// the philosophers at N = 14 (docs/engine-log.md).
const window = 16

// prefetchSlots prefetches the home slots of the strings k in [lo, hi) of
// a batch (enc[ends[k-1]:ends[k]], hashes s.hashes[k]).
func (s *store) prefetchSlots(ends []int, lo, hi int) {
	if lo >= hi {
		return
	}
	s.addrs = s.addrs[:0]
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s.table)))
	sz := uintptr(s.slot)
	start := 0
	if lo > 0 {
		start = ends[lo-1]
	}
	for k := lo; k < hi; k++ {
		h := s.hashes[k]
		ln := ends[k] - start
		start = ends[k]
		if ln != s.width {
			s.addrs = s.side.slotAddrs(h, s.addrs)
			continue
		}
		// The home slot's line and the next one: a probe run may go on
		// (or the slot end) there. Prefetching the next line only when
		// the slot or the next one ends there was 8% slower, a third
		// line 4% slower.
		a := base + uintptr(s.home(h32(h)))*sz
		s.addrs = append(s.addrs, a, a+64)
	}
	prefetch(s.addrs)
}

// prefetchRecords prefetches the side records that the side strings k in
// [lo, hi) of a batch will be compared with first.
func (s *store) prefetchRecords(ends []int, lo, hi int) {
	if lo >= hi {
		return
	}
	s.addrs = s.addrs[:0]
	start := 0
	if lo > 0 {
		start = ends[lo-1]
	}
	for k := lo; k < hi; k++ {
		if ln := ends[k] - start; ln != s.width {
			s.addrs = s.side.recordAddrs(s.hashes[k], ln, s.addrs)
		}
		start = ends[k]
	}
	prefetch(s.addrs)
}

// InternAll interns the strings enc[ends[i-1]:ends[i]] into ids, like
// Intern on each in order, with the stages above.
func (s *store) InternAll(enc []byte, ends []int, ids []uint32) []uint32 {
	s.maybeSide()
	s.hashes = s.hashes[:0]
	if s.width < 0 {
		return s.internAllSide(enc, ends, ids)
	}
	side := false // some string goes to the side set
	start := 0
	for _, end := range ends {
		s.hashes = append(s.hashes, s.Hash(enc[start:end]))
		side = side || end-start != s.width
		start = end
	}
	if s.width < 0 {
		return s.internAllSide(enc, ends, ids)
	}
	n := len(ends)
	s.prefetchSlots(ends, 0, min(2*window, n))
	if side {
		s.prefetchRecords(ends, 0, min(window, n))
	}
	w := s.width
	fast := w >= 8 && w <= 24
	// The lookups of findInline, in this loop rather than a call per
	// string.
	o1, o2 := uintptr(4+w-8), uintptr(4+s.mid)
	le := binary.LittleEndian
	s.batch = true
	defer func() { s.batch = false }()
	for lo := 0; lo < n; lo += window {
		hi := min(lo+window, n)
		s.prefetchSlots(ends, lo+2*window, min(hi+2*window, n))
		if side {
			s.prefetchRecords(ends, lo+window, min(hi+window, n))
		}
		start := 0
		if lo > 0 {
			start = ends[lo-1]
		}
		for k := lo; k < hi; k++ {
			b := enc[start:ends[k]]
			start = ends[k]
			if !fast || len(b) != w {
				id, _ := s.internHashed(b, s.hashes[k])
				ids = append(ids, id)
				continue
			}
			k0, k1, k2 := le.Uint64(b), le.Uint64(b[w-8:]), le.Uint64(b[s.mid:])
			hh := h32(s.hashes[k])
			i := s.home(hh)
			for {
				p := s.at(i)
				v := load32(p)
				if v == 0 {
					ids = append(ids, s.insertAt(p, b, hh))
					break
				}
				if (load64(unsafe.Add(p, 4))^k0)|(load64(unsafe.Add(p, o1))^k1)|(load64(unsafe.Add(p, o2))^k2) == 0 {
					ids = append(ids, v-1)
					break
				}
				if i++; i == s.slots {
					i = 0
				}
			}
		}
	}
	return ids
}

// PrefetchGet prefetches the slots of the states ids, which Get will read.
func (s *store) PrefetchGet(ids []lts.State) {
	if s.width < 0 {
		return
	}
	s.addrs = s.getAddrs(ids, s.addrs[:0])
	prefetch(s.addrs)
}

// internAllSide is InternAll for a store without a width (every state a
// side state, ids = ranks), with the stages in tight loops (those of the
// arena design): routing each string through the general stages, and
// calling the side set's helpers per string, cost small refinement checks
// 3-7% of their speed. Prefetching the slots three or four windows ahead
// and the records two, or windows of 8 to 64 strings, were no faster.
func (s *store) internAllSide(enc []byte, ends []int, ids []uint32) []uint32 {
	d := &s.side
	n := len(ends)
	// The hashes, and the packings of the strings of 8 to 32 bytes that
	// pack (pack32), which the lookups compare with packed records.
	s.packs = s.packs[:0]
	start := 0
	for _, end := range ends {
		b := enc[start:end]
		start = end
		var pk packedKey
		if m := len(b); m >= packMin && m <= 32 {
			pk.w0, pk.w1, pk.ok = pack32(b)
		}
		if pk.ok {
			s.hashes = append(s.hashes, d.hash2(pk.w0, pk.w1, len(b)))
		} else {
			s.hashes = append(s.hashes, d.sideHash(b))
		}
		s.packs = append(s.packs, pk)
	}
	s.sideSlots(0, min(2*window, n))
	s.sideRecords(ends, 0, min(window, n))
	for lo := 0; lo < n; lo += window {
		hi := min(lo+window, n)
		s.sideSlots(lo+2*window, min(hi+2*window, n))
		s.sideRecords(ends, lo+window, min(hi+window, n))
		start := 0
		if lo > 0 {
			start = ends[lo-1]
		}
		for k := lo; k < hi; k++ {
			b := enc[start:ends[k]]
			start = ends[k]
			h := s.hashes[k]
			if d.t4 != nil {
				ids = s.internSide4(b, h, &s.packs[k], ids)
				continue
			}
			fp := h >> offBits
			table, mask := d.table, d.mask // add may grow the table
			i := h >> d.shift
			found := false
			if d.pbits == 2 && d.recLen == len(b) {
				// Records at 2 bits a byte: one word each (rec2),
				// compared with the probe folded (fold2). A probe with
				// a byte of 4 or more is in none: the general loop
				// below finds its empty slot, and add repacks.
				pk := &s.packs[k]
				if x, ok := fold2(pk.w0, pk.w1, d.f2sh); ok && pk.ok {
					dense, dbits, pl, m2 := d.dense, d.dbits, uintptr(d.plen), d.m2
					for ; ; i = (i + 1) & mask {
						v := table[i]
						if v == 0 {
							break
						}
						if v>>offBits != fp {
							continue
						}
						r := v&offMask - 1
						if at2(dense, dbits, pl, m2, r) == x {
							ids = append(ids, uint32(r))
							found = true
							break
						}
					}
					if !found {
						id := s.newID()
						d.add(i, fp, id, b)
						ids = append(ids, id)
					}
					continue
				}
			}
			if ln := d.plen; d.pbits == 4 && d.recLen == len(b) && ln >= 8 && ln <= 16 {
				// Packed dense records: the probe is packed once (in
				// registers) and compared word by word. A probe with
				// a byte of 16 or more is in no packed record: the
				// general loop below finds its empty slot, and add
				// unpacks the records.
				if pk := &s.packs[k]; pk.ok && ln <= 16 {
					w0, w1 := pk.w0, pk.w1
					dense, dbits := d.dense, d.dbits
					dmask := uint64(1)<<dbits - 1
					for ; ; i = (i + 1) & mask {
						v := table[i]
						if v == 0 {
							break
						}
						if v>>offBits != fp {
							continue
						}
						r := v&offMask - 1
						p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(dense[r>>dbits])), uintptr(r&dmask)*uintptr(ln))
						if eqPacked2(p, ln, w0, w1) {
							ids = append(ids, uint32(r))
							found = true
							break
						}
					}
					if !found {
						id := s.newID()
						d.add(i, fp, id, b)
						ids = append(ids, id)
					}
					continue
				}
			}
			if ln := d.recLen; d.pbits == 8 && ln == len(b) && ln >= 8 && ln <= 32 {
				// Dense records of 8 to 32 bytes: four word compares
				// (at 0, ln-8, and 8 and 16 or 0), combined.
				le := binary.LittleEndian
				o2, o3 := min(8, ln-8), min(16, ln-8)
				k0, k1, k2, k3 := le.Uint64(b), le.Uint64(b[ln-8:]), le.Uint64(b[o2:]), le.Uint64(b[o3:])
				dense, dbits := d.dense, d.dbits
				dmask := uint64(1)<<dbits - 1
				for ; ; i = (i + 1) & mask {
					v := table[i]
					if v == 0 {
						break
					}
					if v>>offBits != fp {
						continue
					}
					r := v&offMask - 1
					p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(dense[r>>dbits])), uintptr(r&dmask)*uintptr(ln))
					if eq4(p, ln, o2, o3, k0, k1, k2, k3) {
						ids = append(ids, uint32(r))
						found = true
						break
					}
				}
				if !found {
					id := s.newID()
					d.add(i, fp, id, b)
					ids = append(ids, id)
				}
				continue
			}
			for ; ; i = (i + 1) & mask {
				v := table[i]
				if v == 0 {
					break
				}
				if v>>offBits == fp {
					if id, ok := d.match(v&offMask-1, b); ok {
						ids = append(ids, id)
						found = true
						break
					}
				}
			}
			if !found {
				id := s.newID()
				d.add(i, fp, id, b)
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// internSide4 is internAllSide's lookup of b (hash h, packing pk) in a
// table of 4-byte slots, and its insertion if new; it appends b's id. The
// records at 2 bits a byte take internFolded (the probe folded, one word
// compared); the others take find.
func (s *store) internSide4(b []byte, h uint64, pk *packedKey, ids []uint32) []uint32 {
	d := &s.side
	ln := d.recLen
	if ln != len(b) {
		ln = -1
	}
	switch {
	case d.pbits == 2 && ln >= 0:
		if x, ok := fold2(pk.w0, pk.w1, d.f2sh); ok && pk.ok {
			return append(ids, s.internFolded(h, x))
		}
	case d.pbits == 4 && ln >= 0 && pk.ok && d.plen >= 8 && d.plen <= 16,
		d.pbits == 8 && ln >= 8 && ln <= 32:
		// Dense records of 8 to 32 bytes, packed at 4 bits (the probe's
		// packing compared in two words, eqPacked2) or not (four
		// words, eq4), as internAllSide's loops for 8-byte slots:
		// find would pack the probe again, or compare bytes, for
		// every slot whose fingerprint agrees.
		plen, four := d.plen, d.pbits == 4
		le := binary.LittleEndian
		var k0, k1, k2, k3 uint64
		o2, o3 := 0, 0
		if !four {
			o2, o3 = min(8, ln-8), min(16, ln-8)
			k0, k1, k2, k3 = le.Uint64(b), le.Uint64(b[ln-8:]), le.Uint64(b[o2:]), le.Uint64(b[o3:])
		}
		t, rm, f, mask := d.t4, d.rmask, d.fp4(h), d.mask
		dense, dbits := d.dense, d.dbits
		dmask := uint64(1)<<dbits - 1
		i := h >> d.shift
		for ; ; i = (i + 1) & mask {
			v := t[i]
			if v == 0 {
				break
			}
			if v&^rm != f {
				continue
			}
			r := uint64(v&rm - 1)
			p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(dense[r>>dbits])), uintptr(r&dmask)*uintptr(plen))
			if four && eqPacked2(p, plen, pk.w0, pk.w1) || !four && eq4(p, ln, o2, o3, k0, k1, k2, k3) {
				return append(ids, uint32(r))
			}
		}
		id := s.newID()
		d.add(i, uint64(f), id, b)
		return append(ids, id)
	}
	i, fp, id, ok := d.find(b, h)
	if !ok {
		id = s.newID()
		d.add(i, fp, id, b)
	}
	return append(ids, id)
}

// eq4 reports whether the ln bytes (8 to 32) at p are the string whose
// words at 0, ln-8, o2 = min(8, ln-8) and o3 = min(16, ln-8) are k0 to k3
// (together they cover it): four loads, one branch.
func eq4(p unsafe.Pointer, ln, o2, o3 int, k0, k1, k2, k3 uint64) bool {
	return (load64(p)^k0)|(load64(unsafe.Add(p, ln-8))^k1)|(load64(unsafe.Add(p, o2))^k2)|(load64(unsafe.Add(p, o3))^k3) == 0
}

// sideSlots prefetches the home slots of the side strings k in [lo, hi).
func (s *store) sideSlots(lo, hi int) {
	if lo >= hi {
		return
	}
	d := &s.side
	shift := d.shift
	s.addrs = s.addrs[:0]
	if d.t4 != nil {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(d.t4)))
		for _, h := range s.hashes[lo:hi] {
			s.addrs = append(s.addrs, base+uintptr(h>>shift)*4)
		}
		prefetch(s.addrs)
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(d.table)))
	for _, h := range s.hashes[lo:hi] {
		a := base + uintptr(h>>shift)*8
		s.addrs = append(s.addrs, a)
		if a&63 >= 40 {
			s.addrs = append(s.addrs, a+24)
		}
	}
	prefetch(s.addrs)
}

// sideRecords prefetches the records that the side strings k in [lo, hi)
// will be compared with first.
func (s *store) sideRecords(ends []int, lo, hi int) { s.sideRecordsTo(ends, lo, hi, nil) }

// sideRecordsTo is sideRecords which, with 4-byte slots and dense
// records, also notes in cands[k-lo] (if cands is not nil) the rank+1 of
// the record string k is compared with first (recordCands).
func (s *store) sideRecordsTo(ends []int, lo, hi int, cands []uint32) {
	if lo >= hi {
		return
	}
	d := &s.side
	table, mask, shift := d.table, d.mask, d.shift
	s.addrs = s.addrs[:0]
	start := 0
	if lo > 0 {
		start = ends[lo-1]
	}
	if t := d.t4; t != nil && d.recLen > 0 {
		// 4-byte slots (dense records): as below.
		dense, dbits, rl, rw := d.dense, d.dbits, uintptr(d.plen), d.readLen()
		dmask := uint64(1)<<dbits - 1
		rm := d.rmask
		for j, h := range s.hashes[lo:hi] {
			f := d.fp4(h)
			if cands != nil {
				cands[j] = 0
			}
			for i := h >> shift; ; i = (i + 1) & mask {
				v := t[i]
				if v == 0 {
					break
				}
				if v&^rm == f {
					r := uint64(v&rm - 1)
					if cands != nil {
						cands[j] = uint32(r + 1)
					}
					p := uintptr(unsafe.Pointer(unsafe.SliceData(dense[r>>dbits]))) + uintptr(r&dmask)*rl
					s.addrs = append(s.addrs, p)
					if last := p + rw - 1; last&^63 != p&^63 {
						s.addrs = append(s.addrs, last)
					}
					break
				}
			}
		}
		prefetch(s.addrs)
		return
	}
	clear(cands) // (no candidates below)
	if d.t4 != nil {
		for k := lo; k < hi; k++ {
			s.addrs = d.recordAddrs(s.hashes[k], ends[k]-start, s.addrs)
			start = ends[k]
		}
		prefetch(s.addrs)
		return
	}
	if d.recLen > 0 {
		// Dense records: the first and last line of record r.
		dense, dbits, rl, rw := d.dense, d.dbits, uintptr(d.plen), d.readLen()
		dmask := uint64(1)<<dbits - 1
		for _, h := range s.hashes[lo:hi] {
			fp := h >> offBits
			for i := h >> shift; ; i = (i + 1) & mask {
				v := table[i]
				if v == 0 {
					break
				}
				if v>>offBits == fp {
					r := v&offMask - 1
					p := uintptr(unsafe.Pointer(unsafe.SliceData(dense[r>>dbits]))) + uintptr(r&dmask)*rl
					s.addrs = append(s.addrs, p)
					if last := p + rw - 1; last&^63 != p&^63 {
						s.addrs = append(s.addrs, last)
					}
					break
				}
			}
		}
		prefetch(s.addrs)
		return
	}
	for k := lo; k < hi; k++ {
		h := s.hashes[k]
		ln := ends[k] - start
		start = ends[k]
		fp := h >> offBits
		for i := h >> shift; ; i = (i + 1) & mask {
			v := table[i]
			if v == 0 {
				break
			}
			if v>>offBits == fp {
				s.addrs = d.recordLines(v&offMask-1, ln, s.addrs)
				break
			}
		}
	}
	prefetch(s.addrs)
}
