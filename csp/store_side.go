package csp

import (
	"encoding/binary"
	"hash/maphash"
	"unsafe"
)

// sideSet holds the states whose length is not the store's width: an
// arena of [id uint32][uvarint length][bytes] records and a table of
// 26-bit fingerprint + arena offset, so a probe compares bytes only when
// the fingerprints agree; the home slot is the top bits of the hash, so up
// to 2^26 slots it is a prefix of the fingerprint and growing the table
// reads no record. Arena chunks hold no pointers; they start small and
// double up to 4 MiB, and so does the table.
type sideSet struct {
	chunks [][]byte
	refs   [][]uint64 // rank -> arena offset, in blocks of refBlock
	n      int
	table  []uint64 // 0 = empty, else fingerprint<<offBits | (offset+1)
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
)

// init prepares an empty set of 1<<bits slots.
func (s *sideSet) init(seed maphash.Seed, bits uint) {
	s.seed = seed
	s.table, s.mask, s.shift = make([]uint64, 1<<bits), 1<<bits-1, 64-bits
}

func (s *sideSet) bytes() int64 {
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
func (s *sideSet) record(off uint64) (uint32, []byte) {
	c := s.chunks[off>>storeChunkBits]
	o := int(off & (storeChunk - 1))
	id := binary.LittleEndian.Uint32(c[o:])
	n, k := binary.Uvarint(c[o+4:])
	start := o + 4 + k
	return id, c[start : start+int(n) : start+int(n)]
}

// get returns the bytes of the side state of rank k.
func (s *sideSet) get(k uint32) []byte {
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

// match reports whether the record at off holds b, and its id. Records of
// fewer than 128 bytes (nearly all) have a one-byte length: read inline.
func (s *sideSet) match(off uint64, b []byte) (uint32, bool) {
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

// eqBytes reports whether a and b (of equal lengths) are equal; strings
// of 8 to 24 bytes are compared in three word loads instead of a call.
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

// add stores b with id at the empty slot i (from find) and returns its
// rank.
func (s *sideSet) add(i, fp uint64, id uint32, b []byte) int {
	k, off := s.reserveRecord(len(b))
	s.writeRecord(off, id, b)
	s.table[i] = fp<<offBits | (off + 1)
	if uint64(s.n)*4 > uint64(len(s.table))*3 {
		s.grow()
	}
	return k
}

// reserveRecord reserves the arena record of a string of n bytes and
// returns its rank and offset; writeRecord fills it and the caller its
// table slot.
func (s *sideSet) reserveRecord(n int) (int, uint64) {
	if s.n >= 1<<31-1 {
		panic("lts: more than 2^31-1 states of an odd length")
	}
	k := s.n
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

// writeRecord writes the record of b with id at off (reserved).
func (s *sideSet) writeRecord(off uint64, id uint32, b []byte) {
	c := s.chunks[off>>storeChunkBits]
	o := int(off & (storeChunk - 1))
	binary.LittleEndian.PutUint32(c[o:], id)
	o += binary.PutUvarint(c[o+4:], uint64(len(b))) + 4
	copy(c[o:o+len(b)], b)
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
// off, of a string of ln bytes, starts and ends in (the id and the first
// bytes; the last ones when they lie on another line).
func (s *sideSet) recordLines(off uint64, ln int, addrs []uintptr) []uintptr {
	c := s.chunks[off>>storeChunkBits]
	p := uintptr(unsafe.Pointer(unsafe.SliceData(c))) + uintptr(off&(storeChunk-1))
	addrs = append(addrs, p)
	if last := p + uintptr(4+ln); last&^63 != p&^63 {
		addrs = append(addrs, last)
	}
	return addrs
}
