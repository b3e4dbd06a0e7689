package csp

import (
	"encoding/binary"
	"hash/maphash"
	"unsafe"

	"github.com/quasar-verify/quasar/internal/intern"
)

// sideSet holds the states whose length is not the store's width (every
// state, in a store without a width). Its table has 8-byte slots of
// 26-bit fingerprint + location, so a probe compares bytes only when the
// fingerprints agree; the home slot is the top bits of the hash, so up to
// 2^26 slots it is a prefix of the fingerprint and growing the table reads
// no record. The records are kept in one of two ways:
//
//   - dense, while every record has one length recLen (nearly always: a
//     state takes one byte per component and per variable): record k (its
//     rank, the order of insertion) is the recLen bytes at k*recLen of an
//     array cut into chunks of 1<<dbits records, and a slot's location is
//     the rank. No id, no length, no rank -> offset index: 28 bytes a
//     state at the philosophers' N = 14 instead of 41 (docs/engine.md).
//     In a store without a width ranks are ids; otherwise ids (rank ->
//     id) keeps them;
//   - an arena of [id uint32][uvarint length][bytes] records and refs
//     (rank -> offset), once a second length has appeared: the dense
//     records are then copied into the arena and the slots rewritten, once
//     (toArena). A slot's location is the offset.
//
// Chunks hold no pointers; the dense array's first chunk grows by doubling
// up to its full size, the arena's chunks double up to 4 MiB, and so does
// the table.
type sideSet struct {
	recLen int // the dense records' length; noLen: no record yet; arenaLen: arena
	dense  [][]byte
	dbits  uint               // records per dense chunk: 1<<dbits
	dn     int                // dense records with room reserved (>= n)
	ids    intern.Vec[uint32] // rank -> id (withIDs)
	// withIDs: ids differ from ranks (the store has a width): dense
	// records keep theirs in ids.
	withIDs bool

	chunks [][]byte
	refs   [][]uint64 // rank -> arena offset, in blocks of refBlock
	n      int
	table  []uint64 // 0 = empty, else fingerprint<<offBits | (location+1)
	mask   uint64
	shift  uint // 64 - log2(len(table)): the home slot of hash h is h>>shift
	seed   maphash.Seed
}

const (
	storeChunkBits = 22
	storeChunk     = 1 << storeChunkBits // the largest chunk
	minStoreChunk  = 4 << 10
	offBits        = 38 // 256 GiB of arena
	offMask        = 1<<offBits - 1

	noLen    = -1
	arenaLen = -2
	// The dense array's first chunk starts with room for this many
	// records.
	minDense = 64
)

// init prepares an empty set of 1<<bits slots; withIDs: ids are not
// ranks.
func (s *sideSet) init(seed maphash.Seed, bits uint, withIDs bool) {
	s.seed, s.withIDs, s.recLen = seed, withIDs, noLen
	s.table, s.mask, s.shift = make([]uint64, 1<<bits), 1<<bits-1, 64-bits
}

func (s *sideSet) bytes() int64 {
	var n int64
	for _, c := range s.chunks {
		n += int64(cap(c))
	}
	for _, c := range s.dense {
		n += int64(cap(c))
	}
	for _, r := range s.refs {
		n += int64(cap(r)) * 8
	}
	return n + s.ids.Bytes(4) + int64(len(s.table))*8
}

// record returns the id and bytes of the arena record at off.
func (s *sideSet) record(off uint64) (uint32, []byte) {
	c := s.chunks[off>>storeChunkBits]
	o := int(off & (storeChunk - 1))
	id := binary.LittleEndian.Uint32(c[o:])
	n, k := binary.Uvarint(c[o+4:])
	start := o + 4 + k
	return id, c[start : start+int(n) : start+int(n)]
}

// denseAt returns the bytes of the dense record of rank k.
func (s *sideSet) denseAt(k uint64) []byte {
	c := s.dense[k>>s.dbits]
	o := int(k&(1<<s.dbits-1)) * s.recLen
	return c[o : o+s.recLen : o+s.recLen]
}

// bytesAt returns the bytes of the record at location loc.
func (s *sideSet) bytesAt(loc uint64) []byte {
	if s.recLen >= 0 {
		return s.denseAt(loc)
	}
	_, b := s.record(loc)
	return b
}

// denseID is the id of the dense record of rank k.
func (s *sideSet) denseID(k uint64) uint32 {
	if s.withIDs {
		return s.ids.At(int(k))
	}
	return uint32(k)
}

// get returns the bytes of the side state of rank k.
func (s *sideSet) get(k uint32) []byte {
	if s.recLen >= 0 {
		return s.denseAt(uint64(k))
	}
	_, b := s.record(s.refs[k>>refBits][k&(refBlock-1)])
	return b
}

// find returns the table slot of b (empty if absent) and its fingerprint,
// and b's id if found.
func (s *sideSet) find(b []byte, h uint64) (slot uint64, fp uint64, id uint32, ok bool) {
	fp = h >> offBits
	for i := h >> s.shift; ; i = (i + 1) & s.mask {
		v := s.table[i]
		if v == 0 {
			return i, fp, 0, false
		}
		if v>>offBits == fp {
			if id, ok := s.match(v&offMask-1, b); ok {
				return i, fp, id, true
			}
		}
	}
}

// match reports whether the record at loc holds b, and its id. Arena
// records of fewer than 128 bytes (nearly all) have a one-byte length:
// read inline.
func (s *sideSet) match(loc uint64, b []byte) (uint32, bool) {
	if s.recLen >= 0 {
		if len(b) != s.recLen {
			return 0, false
		}
		return s.denseID(loc), eqBytes(s.denseAt(loc), b)
	}
	c := s.chunks[loc>>storeChunkBits]
	o := int(loc & (storeChunk - 1))
	if n := c[o+4]; n < 0x80 {
		if int(n) != len(b) {
			return 0, false
		}
		return binary.LittleEndian.Uint32(c[o:]), eqBytes(c[o+5:o+5+int(n)], b)
	}
	id, rb := s.record(loc)
	return id, string(rb) == string(b)
}

// eqBytes reports whether a and b (of equal lengths) are equal; strings
// of 8 to 32 bytes are compared in up to four word loads instead of a
// call (the words at 0, n-8, 8 and 16 cover them).
func eqBytes(a, b []byte) bool {
	n := len(b)
	if n < 8 || n > 32 {
		return string(a) == string(b)
	}
	a = a[:n]
	le := binary.LittleEndian
	if le.Uint64(a) != le.Uint64(b) || le.Uint64(a[n-8:]) != le.Uint64(b[n-8:]) {
		return false
	}
	if n <= 16 {
		return true
	}
	return le.Uint64(a[8:]) == le.Uint64(b[8:]) && (n <= 24 || le.Uint64(a[16:]) == le.Uint64(b[16:]))
}

// add stores b with id at the empty slot i (from find) and returns its
// rank.
func (s *sideSet) add(i, fp uint64, id uint32, b []byte) int {
	k, loc := s.reserveRecord(len(b))
	s.writeRecord(loc, id, b)
	s.table[i] = fp<<offBits | (loc + 1)
	if uint64(s.n)*4 > uint64(len(s.table))*3 {
		s.grow()
	}
	return k
}

// fit prepares the set for records of lengths lo to hi: the first record
// fixes the dense length; another length moves the records to the arena.
// No slot may be provisional (store_par.go) when it switches.
func (s *sideSet) fit(lo, hi int) {
	switch {
	case s.recLen == arenaLen:
	case s.recLen == noLen && lo == hi:
		s.recLen = lo
		s.dbits = 20
		if lo > 0 {
			s.dbits = 0
			for (2<<s.dbits)*lo <= storeChunk {
				s.dbits++
			}
		}
	case lo != s.recLen || hi != s.recLen:
		s.toArena()
	}
}

// toArena moves the dense records into the arena, in rank order, and
// points the slots to them.
func (s *sideSet) toArena() {
	n := s.n
	old := *s
	s.recLen, s.dense, s.ids, s.dn, s.n = arenaLen, nil, intern.Vec[uint32]{}, 0, 0
	if old.recLen < 0 {
		return // no record yet
	}
	for k := range uint64(n) {
		_, off := s.reserveRecord(old.recLen)
		s.writeRecord(off, old.denseID(k), old.denseAt(k))
	}
	for i, v := range s.table {
		if v != 0 && v&provBit == 0 {
			k := v&offMask - 1
			s.table[i] = v>>offBits<<offBits | (s.refs[k>>refBits][k&(refBlock-1)] + 1)
		}
	}
}

// reserveRecord reserves the record of a string of n bytes and returns
// its rank and location; writeRecord fills it and the caller its table
// slot.
func (s *sideSet) reserveRecord(n int) (int, uint64) {
	if s.n >= 1<<31-1 {
		panic("lts: more than 2^31-1 states of an odd length")
	}
	s.fit(n, n)
	k := s.n
	if s.recLen >= 0 {
		s.growDense(k+1, nil)
		s.n++
		return k, uint64(k)
	}
	off := s.reserve(recordSize(n), 4+binary.MaxVarintLen64+n, nil)
	if k&(refBlock-1) == 0 {
		c := refBlock
		if k == 0 {
			c = 16
		}
		s.refs = append(s.refs, make([]uint64, 0, c))
	}
	blk := k >> refBits
	s.refs[blk] = append(s.refs[blk], off)
	s.n++
	return k, off
}

// denseChunk is the size of a full chunk of the dense array.
func (s *sideSet) denseChunk() int { return s.recLen << s.dbits }

// growDense reserves room for the dense records of ranks below to (and
// their ids). A new full chunk is *spare if that has its capacity (the
// parallel rounds allocate it ahead, store_par.go).
func (s *sideSet) growDense(to int, spare *[]byte) {
	per := 1 << s.dbits
	for s.dn < to {
		ci := s.dn >> s.dbits
		if ci == len(s.dense) {
			var c []byte
			switch {
			case ci == 0:
				c = make([]byte, 0, min(minDense, per)*s.recLen)
			case spare != nil && cap(*spare) == s.denseChunk():
				c, *spare = (*spare)[:0], nil
			default:
				c = make([]byte, 0, s.denseChunk())
			}
			s.dense = append(s.dense, c)
		}
		c := s.dense[ci]
		end := min(to-ci<<s.dbits, per) // records in chunk ci
		need := end * s.recLen
		if need > cap(c) {
			// The first chunk doubles up to its full size.
			g := make([]byte, len(c), min(max(need, 2*cap(c)), s.denseChunk()))
			copy(g, c)
			c = g
		}
		s.dense[ci] = c[:need]
		s.dn = ci<<s.dbits + end
	}
	if s.withIDs {
		s.ids.Grow(to)
	}
}

// reserve extends the arena by size bytes, in a new chunk if need bytes
// do not fit the last one, and returns their offset. A new chunk is
// *spare if that has the capacity a new chunk gets (the parallel rounds
// allocate it ahead, store_par.go).
func (s *sideSet) reserve(size, need int, spare *[]byte) uint64 {
	if need > storeChunk {
		panic("lts: state larger than 4 MiB")
	}
	n := len(s.chunks)
	if n == 0 || len(s.chunks[n-1])+need > cap(s.chunks[n-1]) {
		// The top bit of an offset marks provisional slots
		// (store_par.go): 128 GiB of arena.
		if n >= 1<<(offBits-1-storeChunkBits) {
			panic("lts: state arena full")
		}
		c := storeChunk
		if n < storeChunkBits && minStoreChunk<<n < storeChunk {
			c = max(minStoreChunk<<n, need)
		}
		if spare != nil && cap(*spare) == c {
			s.chunks = append(s.chunks, (*spare)[:0])
			*spare = nil
		} else {
			s.chunks = append(s.chunks, make([]byte, 0, c))
		}
		n++
	}
	c := s.chunks[n-1]
	off := len(c)
	s.chunks[n-1] = c[:off+size]
	return uint64(n-1)<<storeChunkBits | uint64(off)
}

// writeRecord writes the record of b with id at loc (reserved).
func (s *sideSet) writeRecord(loc uint64, id uint32, b []byte) {
	if s.recLen >= 0 {
		if len(b) != s.recLen {
			// fit was not called: the record would be cut short.
			panic("lts: side record of the wrong length")
		}
		copy(s.denseAt(loc), b)
		if s.withIDs {
			s.ids.Set(int(loc), id)
		}
		return
	}
	c := s.chunks[loc>>storeChunkBits]
	o := int(loc & (storeChunk - 1))
	binary.LittleEndian.PutUint32(c[o:], id)
	o += binary.PutUvarint(c[o+4:], uint64(len(b))) + 4
	copy(c[o:o+len(b)], b)
}

// recSize is the room the record of a string of n bytes takes.
func (s *sideSet) recSize(n int) int {
	if s.recLen >= 0 {
		return n
	}
	return recordSize(n)
}

// grow doubles the table. Up to 2^26 slots the home slot is a prefix of
// the fingerprint, so no string is read; beyond, strings are rehashed.
func (s *sideSet) grow() {
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
			i = maphash.Bytes(s.seed, s.bytesAt(v&offMask-1)) >> shift
		}
		for table[i] != 0 {
			i = (i + 1) & mask
		}
		table[i] = v
	}
	old := len(s.table)
	s.table, s.mask, s.shift = table, mask, shift
	collectOld(old * 8)
}

// slotAddrs appends the address of the home slot of hash h (and the next
// line for a slot at the end of a line: a probe run often reaches it).
func (s *sideSet) slotAddrs(h uint64, addrs []uintptr) []uintptr {
	a := uintptr(unsafe.Pointer(unsafe.SliceData(s.table))) + uintptr(h>>s.shift)*8
	addrs = append(addrs, a)
	if a&63 >= 40 {
		addrs = append(addrs, a+24)
	}
	return addrs
}

// recordAddrs appends the address of the first record of the probe run of
// h whose fingerprint agrees (and of its last byte if a record of length
// ln would straddle two lines).
func (s *sideSet) recordAddrs(h uint64, ln int, addrs []uintptr) []uintptr {
	fp := h >> offBits
	for i := h >> s.shift; ; i = (i + 1) & s.mask {
		v := s.table[i]
		if v == 0 {
			return addrs
		}
		if v>>offBits == fp {
			return s.recordLines(v&offMask-1, ln, addrs)
		}
	}
}

// recordLines appends the addresses of the cache lines that the record at
// loc, of a string of ln bytes, starts and ends in (the first bytes, with
// the id of an arena record; the last ones when they lie on another line).
func (s *sideSet) recordLines(loc uint64, ln int, addrs []uintptr) []uintptr {
	var p, last uintptr
	if s.recLen >= 0 {
		c := s.dense[loc>>s.dbits]
		p = uintptr(unsafe.Pointer(unsafe.SliceData(c))) + uintptr(loc&(1<<s.dbits-1))*uintptr(s.recLen)
		last = p + uintptr(max(s.recLen, 1)-1)
	} else {
		c := s.chunks[loc>>storeChunkBits]
		p = uintptr(unsafe.Pointer(unsafe.SliceData(c))) + uintptr(loc&(storeChunk-1))
		last = p + uintptr(4+ln)
	}
	addrs = append(addrs, p)
	if last&^63 != p&^63 {
		addrs = append(addrs, last)
	}
	return addrs
}
