package lts

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"unsafe"
)

// store is the visited-state set of a Proc: an arena-backed hash set of
// byte strings with dense uint32 ids, in the manner of internal/intern.Set
// but tuned for the search, which is bound by memory latency:
//
//   - a table entry holds 26 bits of the string's hash (a fingerprint) and
//     the string's arena offset, so a probe compares bytes only when the
//     fingerprints agree (with millions of states of equal length, comparing
//     on every probe dominated the search);
//   - the home slot is the top bits of the hash, so up to 2^26 slots it is
//     a prefix of the fingerprint and growing the table needs no bytes;
//     and the slots stay sorted by home, so growing is a streaming pass
//     (slot i moves to about 2i), not millions of random writes;
//   - the arena record is [id uint32][uvarint length][bytes], so a lookup
//     touches the table and one arena record, nothing else (the id -> offset
//     index is used only by Get).
//
// Arena chunks hold no pointers; they start small and double up to 4 MiB,
// and so do the table and the first block of the id index, so that a
// system of a few hundred states (a refinement check builds two per
// assertion) costs kilobytes, not megabytes. Not safe for concurrent use:
// Proc guards it with a mutex.
type store struct {
	hashes []uint64
	seed   maphash.Seed
	chunks [][]byte
	refs   [][]uint64 // id -> arena offset, in blocks of refBlock ids
	n      int        // ids assigned
	table  []uint64   // 0 = empty, else fingerprint<<offBits | (offset+1)
	mask   uint64
	shift  uint // 64 - log2(len(table)): the home slot of hash h is h>>shift

	addrs []uintptr // the addresses a batch stage prefetches
}

const (
	storeChunkBits = 22
	storeChunk     = 1 << storeChunkBits // the largest chunk
	minStoreChunk  = 4 << 10
	minTableBits   = 8
	minTable       = 1 << minTableBits
	minRefs        = 1 << 8 // first capacity of the id index's first block
	offBits        = 38     // 256 GiB of arena
	offMask        = 1<<offBits - 1
	// The id index grows by blocks, never by copying (append's copies and
	// the page faults of each fresh array were ~8% of a big exploration).
	refBits  = 13
	refBlock = 1 << refBits
)

func newStore() *store {
	return &store{seed: maphash.MakeSeed(), table: make([]uint64, minTable), mask: minTable - 1, shift: 64 - minTableBits}
}

func (s *store) Len() int { return s.n }

// Bytes is the memory held: arena chunks, the id index and the table.
func (s *store) Bytes() int64 {
	var n int64
	for _, c := range s.chunks {
		n += int64(cap(c))
	}
	for _, r := range s.refs {
		n += int64(cap(r)) * 8
	}
	return n + int64(len(s.table))*8
}

// record returns the id and bytes of the record at off.
func (s *store) record(off uint64) (uint32, []byte) {
	c := s.chunks[off>>storeChunkBits]
	o := int(off & (storeChunk - 1))
	id := binary.LittleEndian.Uint32(c[o:])
	n, k := binary.Uvarint(c[o+4:])
	start := o + 4 + k
	return id, c[start : start+int(n) : start+int(n)]
}

// match reports whether the record at off holds b, and its id. Records of
// fewer than 128 bytes (nearly all) have a one-byte length: read inline.
func (s *store) match(off uint64, b []byte) (uint32, bool) {
	c := s.chunks[off>>storeChunkBits]
	o := int(off & (storeChunk - 1))
	if n := c[o+4]; n < 0x80 {
		if int(n) != len(b) {
			return 0, false
		}
		return binary.LittleEndian.Uint32(c[o:]), eqBytes(c[o+5:o+5+int(n)], b)
	}
	id, rb := s.record(off)
	return id, string(rb) == string(b)
}

// eqBytes reports whether a and b (of equal lengths) are equal; states of
// 8 to 24 bytes, the common sizes, are compared in three word loads
// instead of a call.
func eqBytes(a, b []byte) bool {
	n := len(b)
	if n < 8 || n > 24 {
		return string(a) == string(b)
	}
	a = a[:n]
	le := binary.LittleEndian
	if le.Uint64(a) != le.Uint64(b) || le.Uint64(a[n-8:]) != le.Uint64(b[n-8:]) {
		return false
	}
	return n <= 16 || le.Uint64(a[8:]) == le.Uint64(b[8:])
}

// Get returns the bytes of id (valid until the next Intern; callers copy).
func (s *store) Get(id uint32) []byte {
	_, b := s.record(s.refs[id>>refBits][id&(refBlock-1)])
	return b
}

// find returns the table slot of b (empty if absent), and b's id if found.
func (s *store) find(b []byte) (slot uint64, fp uint64, id uint32, ok bool) {
	h := maphash.Bytes(s.seed, b)
	fp = h >> offBits
	for i := h >> s.shift; ; i = (i + 1) & s.mask {
		v := s.table[i]
		if v == 0 {
			return i, fp, 0, false
		}
		if v>>offBits == fp {
			if id, rb := s.record(v&offMask - 1); string(rb) == string(b) {
				return i, fp, id, true
			}
		}
	}
}

// Lookup returns the id of b if present.
func (s *store) Lookup(b []byte) (uint32, bool) {
	_, _, id, ok := s.find(b)
	return id, ok
}

// Intern returns the id of b, adding it if new.
func (s *store) Intern(b []byte) (uint32, bool) {
	return s.internHashed(b, maphash.Bytes(s.seed, b))
}

func (s *store) put(id uint32, b []byte) uint64 {
	need := 4 + binary.MaxVarintLen64 + len(b)
	if need > storeChunk {
		panic("lts: state larger than 4 MiB")
	}
	n := len(s.chunks)
	if n == 0 || len(s.chunks[n-1])+need > cap(s.chunks[n-1]) {
		if n >= 1<<(offBits-storeChunkBits) {
			panic("lts: state arena full")
		}
		size := storeChunk
		if n < storeChunkBits && minStoreChunk<<n < storeChunk {
			size = max(minStoreChunk<<n, need)
		}
		s.chunks = append(s.chunks, make([]byte, 0, size))
		n++
	}
	c := s.chunks[n-1]
	off := len(c)
	c = binary.LittleEndian.AppendUint32(c, id)
	c = binary.AppendUvarint(c, uint64(len(b)))
	s.chunks[n-1] = append(c, b...)
	return uint64(n-1)<<storeChunkBits | uint64(off)
}

// grow doubles the table. Up to 2^26 slots the home slot is a prefix of
// the fingerprint, so no string is read; beyond, strings are rehashed.
// Slots are visited in order and their homes double, so the writes stream
// through the new table (the entries that wrapped around the end come
// first and land at its end; linear probing does not care about the
// insertion order).
func (s *store) grow() {
	table := make([]uint64, 2*len(s.table))
	mask := uint64(len(table) - 1)
	shift := s.shift - 1
	for _, v := range s.table {
		if v == 0 {
			continue
		}
		var i uint64
		if shift >= offBits {
			i = (v >> offBits) >> (shift - offBits)
		} else {
			_, b := s.record(v&offMask - 1)
			i = maphash.Bytes(s.seed, b) >> shift
		}
		for table[i] != 0 {
			i = (i + 1) & mask
		}
		table[i] = v
	}
	s.table, s.mask, s.shift = table, mask, shift
}

// The batch interface. The search is bound by the memory latency of the
// table and the arena, so a batch of strings is interned in three stages,
// each issuing the memory accesses the next one needs without waiting for
// them: PrefetchSlots (the home slots of the hashes), PrefetchRecords (the
// arena records the slots' fingerprints point to, read from the slots that
// have arrived meanwhile), and InternRange (the lookups, which find most
// lines cached). Prefetch instructions, unlike the plain loads used before,
// do not hold up the instructions after them.

// Hash is the hash of b (safe without the lock: the seed never changes).
func (s *store) Hash(b []byte) uint64 { return maphash.Bytes(s.seed, b) }

// PrefetchSlots prefetches the home slots of hs (and the next line for
// the slots at the end of a line).
func (s *store) PrefetchSlots(hs []uint64) {
	s.addrs = s.addrs[:0]
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s.table)))
	for _, h := range hs {
		a := base + uintptr(h>>s.shift)*8
		s.addrs = append(s.addrs, a)
		if a&63 >= 40 {
			// A probe run from the last slots of a line often reaches
			// the next line.
			s.addrs = append(s.addrs, a+24)
		}
	}
	prefetch(s.addrs)
}

// PrefetchRecords prefetches the records that the strings of the batch
// (enc[ends[k-1]:ends[k]] for k in [lo, hi), hashes hs[k]) may be compared
// with: the first record of their probe runs whose fingerprint agrees, the
// line of its first byte and, if the record (at the string's length)
// straddles two cache lines, the next.
func (s *store) PrefetchRecords(ends []int, hs []uint64, lo, hi int) {
	s.addrs = s.addrs[:0]
	table, mask, shift := s.table, s.mask, s.shift
	for k := lo; k < hi; k++ {
		h := hs[k]
		start := 0
		if k > 0 {
			start = ends[k-1]
		}
		ln := uint64(ends[k] - start)
		fp := h >> offBits
		for i := h >> shift; ; i = (i + 1) & mask {
			v := table[i]
			if v == 0 {
				break
			}
			if v>>offBits == fp {
				off := v&offMask - 1
				c := s.chunks[off>>storeChunkBits]
				o := off & (storeChunk - 1)
				p := uintptr(unsafe.Pointer(unsafe.SliceData(c))) + uintptr(o)
				s.addrs = append(s.addrs, p)
				if last := p + uintptr(4+ln); last&^63 != p&^63 {
					s.addrs = append(s.addrs, last)
				}
				break
			}
		}
	}
	prefetch(s.addrs)
}

// InternRange interns the strings k in [lo, hi) of a batch (see
// PrefetchRecords) in order, appending their ids to ids.
func (s *store) InternRange(enc []byte, ends []int, hs []uint64, lo, hi int, ids []uint32) []uint32 {
	for k := lo; k < hi; k++ {
		start := 0
		if k > 0 {
			start = ends[k-1]
		}
		id, _ := s.internHashed(enc[start:ends[k]], hs[k])
		ids = append(ids, id)
	}
	return ids
}

// InternAll interns the strings enc[ends[i-1]:ends[i]] into ids, like
// Intern on each in order, with the stages above run back to back.
func (s *store) InternAll(enc []byte, ends []int, ids []uint32) []uint32 {
	s.hashes = s.hashes[:0]
	start := 0
	for _, end := range ends {
		s.hashes = append(s.hashes, maphash.Bytes(s.seed, enc[start:end]))
		start = end
	}
	s.PrefetchSlots(s.hashes)
	s.PrefetchRecords(ends, s.hashes, 0, len(ends))
	return s.InternRange(enc, ends, s.hashes, 0, len(ends), ids)
}

// internHashed is Intern with the hash of b already computed.
func (s *store) internHashed(b []byte, h uint64) (uint32, bool) {
	fp := h >> offBits
	table, mask := s.table, s.mask
	i := h >> s.shift
	for ; ; i = (i + 1) & mask {
		v := table[i]
		if v == 0 {
			break
		}
		if v>>offBits == fp {
			if id, ok := s.match(v&offMask-1, b); ok {
				return id, false
			}
		}
	}
	if s.n >= math.MaxUint32-1 {
		panic("lts: more than 2^32-2 states")
	}
	id := uint32(s.n)
	off := s.put(id, b)
	if id&(refBlock-1) == 0 {
		// The first block grows by append from a small capacity; the
		// others are allocated whole.
		c := refBlock
		if id == 0 {
			c = minRefs
		}
		s.refs = append(s.refs, make([]uint64, 0, c))
	}
	blk := id >> refBits
	s.refs[blk] = append(s.refs[blk], off)
	s.n++
	s.table[i] = fp<<offBits | (off + 1)
	if uint64(s.n)*4 > uint64(len(s.table))*3 {
		s.grow()
	}
	return id, true
}
