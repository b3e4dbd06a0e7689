package csp

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// CompactMode selects the visited set of a search: exact (every state's
// bytes), or one of the two probabilistic sets of SPIN, which keep a
// fingerprint or a few bits per state instead and may therefore take a
// new state for a visited one and miss it and what only it leads to.
type CompactMode uint8

const (
	// Exact stores every visited state's bytes.
	Exact CompactMode = iota
	// HashCompact stores a 64-bit fingerprint per visited state and gives
	// it a dense id (SPIN's -DHC; Wolper and Leroy's hash compaction).
	HashCompact
	// Bitstate sets k bits of a fixed bit array per visited state and
	// stores nothing else (SPIN's -DBITSTATE, "supertrace").
	Bitstate
)

func (m CompactMode) String() string {
	switch m {
	case HashCompact:
		return "hash compaction"
	case Bitstate:
		return "bitstate hashing"
	}
	return "exact"
}

// Compaction configures a probabilistic visited set (Options.Compact). The
// zero value is the exact set.
type Compaction struct {
	Mode CompactMode
	// BitstateBytes is the size of the bit array of Bitstate, in bytes
	// (rounded up to 8).
	BitstateBytes int64
	// Hashes is the number of bits Bitstate sets per state (0: 3).
	Hashes int
	// FingerprintBits is the number of bits of each fingerprint that
	// HashCompact keeps (0: 64). Fewer bits make collisions likely: the
	// tests use it to show omissions and their report.
	FingerprintBits int
}

// Coverage describes the probabilistic visited set of a search and what
// its omissions may be: Omission estimates the probability that some
// reachable state was not visited.
type Coverage struct {
	Mode string `json:"mode"` // "hash-compact" or "bitstate"
	// FingerprintBits: hash compaction's fingerprint width.
	FingerprintBits int `json:"fingerprint_bits,omitempty"`
	// Bits and Hashes: bitstate's array size in bits and bits set per
	// state; HashFactor is Bits over the states stored (SPIN's figure:
	// above 100 the coverage is usually complete).
	Bits       int64   `json:"bits,omitempty"`
	Hashes     int     `json:"hashes,omitempty"`
	HashFactor float64 `json:"hash_factor,omitempty"`
	// Fill (bitstate) is the fraction of the bits set; FalseHit = Fill^k
	// the probability that a new state would now be taken for a visited
	// one, and Formula SPIN's closed form of it for n states,
	// (1 - e^(-kn/m))^k, which assumes no earlier omission.
	Fill     float64 `json:"fill,omitempty"`
	FalseHit float64 `json:"false_hit,omitempty"`
	Formula  float64 `json:"false_hit_formula,omitempty"`
	// ExpectedOmitted (bitstate) is the expected number of new states
	// taken for visited ones during the search: the sum over the
	// insertions of p/(1-p), p = f^k with f the fill when the state was
	// inserted (between two insertions the new states met are a geometric
	// number of false hits).
	ExpectedOmitted float64 `json:"expected_omitted,omitempty"`
	// Omission: hash compaction, the birthday bound n(n-1)/2^(b+1) on the
	// probability that two of the n states share a fingerprint (a plug-in
	// estimate: the reachable states are more when one was missed); bitstate, 1 - e^-ExpectedOmitted (a Poisson estimate).
	Omission float64 `json:"omission_probability"`
	// Coverage (bitstate) estimates the fraction of the reachable states
	// visited: n / (n + ExpectedOmitted).
	Coverage float64 `json:"coverage,omitempty"`
}

// CompactSupports says whether a single-process assertion of kind k can be
// checked with the visited set of mode m (nil) or why not. Hash compaction
// keeps an id per state, so every BFS check works with it but divergence
// freedom, which searches the stored graph again after the BFS; bitstate
// hashing has no ids for visited states, so it cannot compare the targets
// of a state's transitions (determinism) either.
func CompactSupports(k lang.AssertKind, m CompactMode) error {
	switch k {
	case lang.KindDeadlockFree, lang.KindNonTerminating, lang.KindReaches:
		return nil
	case lang.KindDeterministic:
		if m == HashCompact {
			return nil
		}
	}
	what := "deadlockfree, nonterminating and reaches assertions"
	if m == HashCompact {
		what = "deadlockfree, nonterminating, deterministic and reaches assertions"
	}
	return fmt.Errorf("%s applies to %s only, not to %s (check it without the option)", m, what, k)
}

// compactStore is the visited set of a compacted Proc (Proc.Compacted): a
// fingerprint table or a bit array, and the bytes of the states that the
// search still has to expand (the window: the current BFS level and the
// next one), which the search releases level by level (forget). The bytes
// of a counterexample's states, rebuilt after the search, are pinned.
//
// Hash compaction's table has 12-byte slots [fingerprint][id+1] (id+1 = 0:
// empty), linear probing from a home slot derived from the fingerprint
// alone (so that equal fingerprints meet), doubled at a load of 3/4.
// A state whose fingerprint is in the table is taken as that state (its
// id); a new one gets the next id. Bitstate hashing keeps no ids: a new
// state (one of its k bits was clear) gets the next id, a visited one id
// 0, which the search has always marked (Transition.Target is then not
// the state's id: only checks that look at the number of transitions may
// use it). Not safe for concurrent use: Proc guards it with its mutex.
type compactStore struct {
	mode CompactMode
	n    int // states inserted: the ids given

	// hash compaction
	fpMask uint64
	table  []byte
	slots  uint64
	used   int

	// bitstate
	bits []uint64
	m    uint64 // bits in the array
	k    int
	set  uint64  // bits set
	omit float64 // expected false hits so far (coverage)

	segs   []segment
	chunks [][]byte // released window chunks, reused
	offs   [][]uint64
	pinned map[uint32][]byte

	hashes []uint64
	addrs  []uintptr
}

// segment holds the bytes of the states base, base+1, …: state base+i is
// the record [uvarint length][bytes] at offs[i] (chunk<<winChunkBits |
// offset) in chunks of winChunk bytes, which a record never straddles.
// Chunks and offset arrays are reused from level to level, so the window
// makes no garbage once it has grown to the widest level.
type segment struct {
	base   uint32
	chunks [][]byte
	offs   []uint64
}

const (
	winChunkBits = 20
	winChunk     = 1 << winChunkBits
)

const (
	fpSlot      = 12
	fpMinSlots  = 256
	fpLoadNum   = 3
	fpLoadDen   = 4
	golden      = 0x9E3779B97F4A7C15
	minBitBytes = 8
)

func newCompactStore(c Compaction) (*compactStore, error) {
	s := &compactStore{mode: c.Mode, pinned: map[uint32][]byte{}}
	switch c.Mode {
	case HashCompact:
		b := c.FingerprintBits
		if b == 0 {
			b = 64
		}
		if b < 1 || b > 64 {
			return nil, fmt.Errorf("fingerprint bits must be 1 to 64, found %d", b)
		}
		s.fpMask = math.MaxUint64 >> (64 - b)
		s.slots = fpMinSlots
		s.table = make([]byte, fpMinSlots*fpSlot)
	case Bitstate:
		if c.BitstateBytes < minBitBytes {
			return nil, fmt.Errorf("the bitstate array must have at least %d bytes, found %d", minBitBytes, c.BitstateBytes)
		}
		if c.BitstateBytes > 1<<40 {
			return nil, fmt.Errorf("the bitstate array must have at most 1 TiB, found %d bytes", c.BitstateBytes)
		}
		k := c.Hashes
		if k == 0 {
			k = 3
		}
		if k < 1 || k > 32 {
			return nil, fmt.Errorf("the bitstate hash count must be 1 to 32, found %d", k)
		}
		words := (c.BitstateBytes + 7) / 8
		s.bits, s.m, s.k = make([]uint64, words), uint64(words)*64, k
	default:
		return nil, fmt.Errorf("no compact mode %d", c.Mode)
	}
	s.segs = []segment{{}}
	return s, nil
}

func (s *compactStore) Len() int { return s.n }

func (s *compactStore) Bytes() int64 {
	n := int64(len(s.table)) + int64(len(s.bits))*8
	for _, g := range s.segs {
		n += int64(len(g.chunks))*winChunk + int64(cap(g.offs))*8
	}
	n += int64(len(s.chunks)) * winChunk
	for _, o := range s.offs {
		n += int64(cap(o)) * 8
	}
	return n
}

// hash is the state hash of the probabilistic sets: a fixed function
// (xxHash64), so that a run is reproducible, omissions included.
func compactHash(b []byte) uint64 { return xxhash.Sum64(b) }

// fpHome is the home slot of fingerprint fp: its bits mixed (a masked
// fingerprint is small), the top 32 scaled to the table.
func (s *compactStore) fpHome(fp uint64) uint64 {
	return (fp * golden >> 32) * s.slots >> 32
}

func (s *compactStore) at(i uint64) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.table)), uintptr(i)*fpSlot)
}

// bitIndex is the i-th bit position of hash h (double hashing: h + i*h2,
// h2 odd and derived from h, scaled to the array by a multiply).
func (s *compactStore) bitIndex(h uint64, i int) uint64 {
	h2 := mix64(h^golden) | 1
	hi, _ := bits.Mul64(h+uint64(i)*h2, s.m)
	return hi
}

// mix64 is MurmurHash3's finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// Intern returns the id of b (0 for a visited state of a bitstate set).
func (s *compactStore) Intern(b []byte) uint32 {
	return s.internHashed(b, compactHash(b))
}

func (s *compactStore) internHashed(b []byte, h uint64) uint32 {
	if s.mode == Bitstate {
		// A new state of the search is taken for a visited one with
		// probability p = f^k, f the fraction of bits set (for a random
		// hash); the expected number of such false hits before the next
		// state is inserted is p/(1-p).
		f := float64(s.set) / float64(s.m)
		p := f
		for range s.k - 1 {
			p *= f
		}
		isNew := false
		for i := range s.k {
			j := s.bitIndex(h, i)
			w, bit := &s.bits[j>>6], uint64(1)<<(j&63)
			if *w&bit == 0 {
				*w |= bit
				s.set++
				isNew = true
			}
		}
		if !isNew {
			return 0
		}
		if p < 1 {
			s.omit += p / (1 - p)
		}
		return s.add(b)
	}
	fp := h & s.fpMask
	i := s.fpHome(fp)
	for {
		p := s.at(i)
		v := load32(unsafe.Add(p, 8))
		if v == 0 {
			break
		}
		if load64(p) == fp {
			return v - 1
		}
		if i++; i == s.slots {
			i = 0
		}
	}
	id := s.add(b)
	p := s.at(i)
	store64(p, fp)
	store32(unsafe.Add(p, 8), id+1)
	if s.used++; uint64(s.used)*fpLoadDen > s.slots*fpLoadNum {
		s.grow()
	}
	return id
}

// add gives b the next id and keeps its bytes in the window.
func (s *compactStore) add(b []byte) uint32 {
	if uint64(s.n) >= math.MaxUint32-1 {
		panic("lts: more than 2^32-2 states")
	}
	id := uint32(s.n)
	s.n++
	g := &s.segs[len(s.segs)-1]
	if len(g.offs) == 0 {
		g.base = id
	}
	need := binary.MaxVarintLen64 + len(b)
	k := len(g.chunks) - 1
	if k < 0 || len(g.chunks[k])+need > cap(g.chunks[k]) {
		var c []byte
		if n := len(s.chunks); n > 0 && need <= winChunk {
			c, s.chunks = s.chunks[n-1][:0], s.chunks[:n-1]
		} else {
			c = make([]byte, 0, max(winChunk, need))
		}
		g.chunks = append(g.chunks, c)
		k++
	}
	c := g.chunks[k]
	g.offs = append(g.offs, uint64(k)<<winChunkBits|uint64(len(c)))
	c = binary.AppendUvarint(c, uint64(len(b)))
	g.chunks[k] = append(c, b...)
	return id
}

func (s *compactStore) grow() {
	slots := s.slots * 2
	if slots > 1<<40 {
		panic("lts: fingerprint table full")
	}
	freeBefore(int(slots) * fpSlot)
	old, oldSlots := s.table, s.slots
	s.table, s.slots = make([]byte, slots*fpSlot), slots
	base := unsafe.Pointer(unsafe.SliceData(old))
	// As the side set's grow: a big old table gives its pages back as
	// the pass leaves them (home slots grow with the fingerprint's mixed
	// top bits, so slot j moves near 2j), and the new one's pages are
	// faulted in as they are written, so the two are not held whole.
	release := len(old) >= releaseMin
	if !release {
		touch(s.table, 4096)
	}
	for j := range oldSlots {
		if release && j&(releaseBlock-1) == 0 && j > 0 {
			releasePages(old[(j-releaseBlock)*fpSlot : j*fpSlot])
		}
		p := unsafe.Add(base, uintptr(j)*fpSlot)
		if load32(unsafe.Add(p, 8)) == 0 {
			continue
		}
		i := s.fpHome(load64(p))
		for load32(unsafe.Add(s.at(i), 8)) != 0 {
			if i++; i == s.slots {
				i = 0
			}
		}
		copy(unsafe.Slice((*byte)(s.at(i)), fpSlot), unsafe.Slice((*byte)(p), fpSlot))
	}
	old = nil
	collectOldFree(int(oldSlots) * fpSlot)
}

// InternAll interns the strings enc[ends[i-1]:ends[i]] in order, the
// memory they probe prefetched first (store.InternAll does the same).
func (s *compactStore) InternAll(enc []byte, ends []int, ids []uint32) []uint32 {
	s.hashes, s.addrs = s.hashes[:0], s.addrs[:0]
	start := 0
	for _, end := range ends {
		h := compactHash(enc[start:end])
		start = end
		s.hashes = append(s.hashes, h)
		if s.mode == Bitstate {
			base := uintptr(unsafe.Pointer(unsafe.SliceData(s.bits)))
			for i := range s.k {
				s.addrs = append(s.addrs, base+uintptr(s.bitIndex(h, i)>>6)*8)
			}
			continue
		}
		a := uintptr(s.at(s.fpHome(h & s.fpMask)))
		s.addrs = append(s.addrs, a, a+fpSlot)
	}
	prefetch(s.addrs)
	start = 0
	for k, end := range ends {
		ids = append(ids, s.internHashed(enc[start:end], s.hashes[k]))
		start = end
	}
	return ids
}

// Get returns the bytes of id: a state of the window or a pinned one.
func (s *compactStore) Get(id uint32) []byte {
	for i := len(s.segs) - 1; i >= 0; i-- {
		g := &s.segs[i]
		if len(g.offs) == 0 || id < g.base {
			continue
		}
		k := id - g.base
		if int(k) >= len(g.offs) {
			break
		}
		o := g.offs[k]
		c := g.chunks[o>>winChunkBits][o&(winChunk-1):]
		n, w := binary.Uvarint(c)
		return c[w : w+int(n) : w+int(n)]
	}
	if b, ok := s.pinned[id]; ok {
		return b
	}
	panic(fmt.Sprintf("lts: internal error: state %d is no longer held (compact search)", id))
}

// Lookup finds a pinned state by its bytes: the only states of a compact
// set whose identity is exact (Who compares a path's successors with the
// path's next state).
func (s *compactStore) Lookup(b []byte) (uint32, bool) {
	for id, p := range s.pinned {
		if string(p) == string(b) {
			return id, true
		}
	}
	return 0, false
}

// pin keeps the bytes of id for Get after the window has moved on.
func (s *compactStore) pin(id uint32, b []byte) { s.pinned[id] = append([]byte(nil), b...) }

// forget releases the bytes of the states below id (a BFS level that is
// done) and starts a new segment for the states interned from now on.
func (s *compactStore) forget(below uint32) {
	keep := s.segs[:0]
	for _, g := range s.segs {
		if len(g.offs) > 0 && g.base+uint32(len(g.offs)) <= below {
			for _, c := range g.chunks {
				if cap(c) == winChunk {
					s.chunks = append(s.chunks, c)
				}
			}
			s.offs = append(s.offs, g.offs[:0])
			continue
		}
		keep = append(keep, g)
	}
	s.segs = keep
	if n := len(s.segs); n > 0 && len(s.segs[n-1].offs) == 0 {
		return
	}
	var g segment
	if n := len(s.offs); n > 0 {
		g.offs, s.offs = s.offs[n-1], s.offs[:n-1]
	}
	s.segs = append(s.segs, g)
}

// has reports whether the set holds b (a sanity check of a rebuilt path:
// its states must all be in the set).
func (s *compactStore) has(b []byte) bool {
	h := compactHash(b)
	if s.mode == Bitstate {
		for i := range s.k {
			j := s.bitIndex(h, i)
			if s.bits[j>>6]&(1<<(j&63)) == 0 {
				return false
			}
		}
		return true
	}
	_, ok := s.lookupFP(h & s.fpMask)
	return ok
}

func (s *compactStore) lookupFP(fp uint64) (uint32, bool) {
	for i := s.fpHome(fp); ; {
		p := s.at(i)
		v := load32(unsafe.Add(p, 8))
		if v == 0 {
			return 0, false
		}
		if load64(p) == fp {
			return v - 1, true
		}
		if i++; i == s.slots {
			i = 0
		}
	}
}

// coverage estimates what the set may have missed after n insertions.
func (s *compactStore) coverage() *Coverage {
	n := float64(s.n)
	if s.mode == HashCompact {
		b := bits.OnesCount64(s.fpMask)
		// P(some pair of the n fingerprints agrees) <= C(n,2) / 2^b.
		p := n * (n - 1) / 2 / math.Ldexp(1, b)
		return &Coverage{Mode: "hash-compact", FingerprintBits: b, Omission: min(p, 1)}
	}
	m, k := float64(s.m), float64(s.k)
	e := s.omit
	c := &Coverage{Mode: "bitstate", Bits: int64(s.m), Hashes: s.k, ExpectedOmitted: e, Omission: -math.Expm1(-e),
		Fill: float64(s.set) / m, FalseHit: math.Pow(float64(s.set)/m, k), Formula: math.Pow(-math.Expm1(-k*n/m), k)}
	if n > 0 {
		c.HashFactor = m / n
		c.Coverage = n / (n + e)
	}
	return c
}

// Compacted returns a fresh system of the same process as s whose visited
// set is the probabilistic one of c (c.Mode Exact: s itself). The search
// (csp's checks) keeps the bytes of its current and next BFS level only,
// and rebuilds a counterexample by replaying it from the initial state.
func (s *Proc) Compacted(c Compaction) (*Proc, error) {
	if c.Mode == Exact {
		return s, nil
	}
	fp, err := newCompactStore(c)
	if err != nil {
		return nil, err
	}
	// Every field of a Proc but its store and its synchronisation is
	// fixed when it is built.
	t := &Proc{p: s.p, name: s.name, hides: s.hides, hidden: s.hidden, op: s.op,
		alphas: s.alphas, ncomp: s.ncomp, names: s.names, live: s.live, pos: s.pos,
		nvars: s.nvars, cd: s.cd, ckey: s.ckey, sym: s.sym, indep: s.indep, fp: fp}
	init := s.raw(s.init, nil)
	t.init = lts.State(fp.Intern(init))
	fp.pin(uint32(t.init), init)
	return t, nil
}

// Compaction reports the visited set of s.
func (s *Proc) Compaction() CompactMode {
	if s.fp == nil {
		return Exact
	}
	return s.fp.mode
}

// forget releases the bytes of the states below id (compacted systems).
func (s *Proc) forget(below lts.State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fp.forget(uint32(below))
}

// pinIfHas pins b as the bytes of id if the visited set has it, under
// the lock.
func (s *Proc) pinIfHas(id lts.State, b []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok := s.fp.has(b)
	if ok {
		s.fp.pin(uint32(id), b)
	}
	return ok
}

// rebuild replays a path of a compacted system from its initial state:
// ids[0] is the initial state, and ids[i] was found as the idx[i]-th
// successor of ids[i-1]. Successor generation is a function of a state's
// bytes, so the replay meets exactly the bytes the search expanded; each
// is pinned (for Describe, Who and Unreduce) and checked to be in the set.
// It returns the events of the path (events[0] is Tau).
func (s *Proc) rebuild(ids []lts.State, idx []int) ([]lts.Event, error) {
	x := s.getScratch()
	defer s.pool.Put(x)
	events := make([]lts.Event, len(ids))
	events[0] = lts.Tau
	cur := s.raw(ids[0], nil)
	for i := 1; i < len(ids); i++ {
		x.enc, x.ends, x.evs, x.who = x.enc[:0], x.ends[:0], x.evs[:0], x.who[:0]
		if err := s.expandRaw(cur, x); err != nil {
			return nil, fmt.Errorf("step %d: %v", i, err)
		}
		if s.sym != nil {
			s.canonAll(x)
		}
		k := idx[i]
		if k < 0 || k >= len(x.ends) {
			return nil, fmt.Errorf("step %d: the state has %d transitions, not %d", i, len(x.ends), k+1)
		}
		lo := 0
		if k > 0 {
			lo = x.ends[k-1]
		}
		next := append([]byte(nil), x.enc[lo:x.ends[k]]...)
		if !s.pinIfHas(ids[i], next) {
			return nil, fmt.Errorf("step %d: the replayed state is not in the visited set", i)
		}
		events[i] = x.evs[k]
		cur = next
	}
	return events, nil
}
