package csp

import (
	"encoding/binary"
	"hash/maphash"
	"unsafe"
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
	// Dense records are packed at pbits (2, 4 or 8) bits a byte while
	// every byte of every side string is below 1<<pbits: plen bytes
	// each, nw words (the last one masked by lastMask); over has the
	// bits that a byte of a string that fits must not have.
	pbits    uint
	plen, nw int
	lastMask uint64
	over     uint64
	dense    [][]byte // chunks of 1<<dbits records and 8 bytes of slack
	dbits    uint
	dn       int // dense records with room reserved (>= n)
	ids      [][]uint32
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
	// Packed dense records take at most packWords words.
	packWords = 4
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
	for _, r := range s.ids {
		n += int64(cap(r)) * 4
	}
	return n + int64(len(s.table))*8
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

// denseAt returns the (packed) bytes of the dense record of rank k.
func (s *sideSet) denseAt(k uint64) []byte {
	c := s.dense[k>>s.dbits]
	o := int(k&(1<<s.dbits-1)) * s.plen
	return c[o : o+s.plen : o+s.plen]
}

// appendRec appends the bytes of the record at location loc to dst.
func (s *sideSet) appendRec(dst []byte, loc uint64) []byte {
	if s.recLen < 0 {
		_, b := s.record(loc)
		return append(dst, b...)
	}
	if s.pbits == 8 {
		return append(dst, s.denseAt(loc)...)
	}
	return unpackAppend(dst, s.denseAt(loc), s.pbits, s.recLen)
}

// denseID is the id of the dense record of rank k.
func (s *sideSet) denseID(k uint64) uint32 {
	if s.withIDs {
		return s.ids[k>>refBits][k&(refBlock-1)]
	}
	return uint32(k)
}

// get returns the bytes of the side state of rank k (a fresh copy if
// its record is packed).
func (s *sideSet) get(k uint32) []byte {
	if s.recLen >= 0 {
		if s.pbits == 8 {
			return s.denseAt(uint64(k))
		}
		return s.appendRec(nil, uint64(k))
	}
	_, b := s.record(s.refs[k>>refBits][k&(refBlock-1)])
	return b
}

// appendGet appends the bytes of the side state of rank k to dst.
func (s *sideSet) appendGet(dst []byte, k uint32) []byte {
	if s.recLen >= 0 {
		return s.appendRec(dst, uint64(k))
	}
	_, b := s.record(s.refs[k>>refBits][k&(refBlock-1)])
	return append(dst, b...)
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
		if s.pbits == 8 {
			return s.denseID(loc), eqBytes(s.denseAt(loc), b)
		}
		if orWords(b)&s.over != 0 {
			return 0, false // no record has such a byte
		}
		var pk [packWords]uint64
		pack(b, s.pbits, &pk)
		return s.denseID(loc), s.packedEq(loc, &pk)
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
	k, loc := s.reserveRecord(len(b), orWords(b))
	s.writeRecord(loc, id, b)
	s.table[i] = fp<<offBits | (loc + 1)
	if uint64(s.n)*4 > uint64(len(s.table))*3 {
		s.grow()
	}
	return k
}

// fit prepares the set for records of lengths lo to hi whose bytes or
// to or (orWords): the first record fixes the dense length and packing;
// another length moves the records to the arena, a larger byte repacks
// them wider. No slot may be provisional (store_par.go) when it switches.
func (s *sideSet) fit(lo, hi int, or uint64) {
	switch {
	case s.recLen == arenaLen:
	case s.recLen == noLen && lo == hi:
		s.recLen = lo
		s.setBits(packBits(or))
	case lo != s.recLen || hi != s.recLen:
		s.toArena()
	case or&s.over != 0:
		s.repack(packBits(or | ^s.over))
	}
}

// packBits is the bits a byte takes packed for strings whose bytes or to
// or: 2, 4, 6 or 8.
func packBits(or uint64) uint {
	switch {
	case or&^0x0303030303030303 == 0:
		return 2
	case or&^0x0F0F0F0F0F0F0F0F == 0:
		return 4
	case or&^0x3F3F3F3F3F3F3F3F == 0:
		return 6
	}
	return 8
}

// setBits sets the packing of the dense records to bits a byte (8: none,
// also for strings too long to pack in packWords words, or empty) and
// the chunks' size.
func (s *sideSet) setBits(bits uint) {
	if s.recLen == 0 || (s.recLen*int(bits)+63)/64 > packWords {
		bits = 8
	}
	s.pbits = bits
	s.plen = (s.recLen*int(bits) + 7) / 8
	s.nw = (s.plen + 7) / 8
	s.lastMask = ^uint64(0)
	if r := s.plen % 8; r != 0 {
		s.lastMask = 1<<(8*r) - 1
	}
	s.over = 0
	switch bits {
	case 2:
		s.over = 0xFCFCFCFCFCFCFCFC
	case 4:
		s.over = 0xF0F0F0F0F0F0F0F0
	case 6:
		s.over = 0xC0C0C0C0C0C0C0C0
	}
	s.dbits = 20
	if s.plen > 0 {
		s.dbits = 0
		for (2<<s.dbits)*s.plen <= storeChunk {
			s.dbits++
		}
	}
}

// repack rewrites the dense records packed at bits a byte (ranks, hence
// the slots, do not change).
func (s *sideSet) repack(bits uint) {
	old := *s
	s.dense, s.dn = nil, 0
	s.setBits(bits)
	s.growDense(s.n, nil)
	var buf []byte
	for k := range uint64(s.n) {
		buf = old.appendRec(buf[:0], k)
		s.writeDense(k, buf)
	}
}

// toArena moves the dense records into the arena, in rank order, and
// points the slots to them.
func (s *sideSet) toArena() {
	n := s.n
	old := *s
	s.recLen, s.dense, s.ids, s.dn, s.n = arenaLen, nil, nil, 0, 0
	if old.recLen < 0 {
		return // no record yet
	}
	var buf []byte
	for k := range uint64(n) {
		_, off := s.reserveRecord(old.recLen, 0)
		buf = old.appendRec(buf[:0], k)
		s.writeRecord(off, old.denseID(k), buf)
	}
	for i, v := range s.table {
		if v != 0 && v&provBit == 0 {
			k := v&offMask - 1
			s.table[i] = v>>offBits<<offBits | (s.refs[k>>refBits][k&(refBlock-1)] + 1)
		}
	}
}

// reserveRecord reserves the record of a string of n bytes (whose words
// or to or) and returns its rank and location; writeRecord fills it and
// the caller its table slot.
func (s *sideSet) reserveRecord(n int, or uint64) (int, uint64) {
	if s.n >= 1<<31-1 {
		panic("lts: more than 2^31-1 states of an odd length")
	}
	s.fit(n, n, or)
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

// denseChunk is the size of a full chunk of the dense array; denseCap
// its capacity, with 8 bytes of slack (the word compares of packed
// records read up to 7 bytes past the last).
func (s *sideSet) denseChunk() int { return s.plen << s.dbits }
func (s *sideSet) denseCap() int   { return s.denseChunk() + 8 }

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
				c = make([]byte, 0, min(minDense, per)*s.plen+8)
			case spare != nil && cap(*spare) == s.denseCap():
				c, *spare = (*spare)[:0], nil
			default:
				c = make([]byte, 0, s.denseCap())
			}
			s.dense = append(s.dense, c)
		}
		c := s.dense[ci]
		end := min(to-ci<<s.dbits, per) // records in chunk ci
		need := end * s.plen
		if need > cap(c)-8 {
			// The first chunk doubles up to its full size.
			g := make([]byte, len(c), min(max(need, 2*(cap(c)-8)), s.denseChunk())+8)
			copy(g, c)
			c = g
		}
		s.dense[ci] = c[:need]
		s.dn = ci<<s.dbits + end
	}
	if s.withIDs {
		for k := s.idsLen(); k < to; {
			if k&(refBlock-1) == 0 {
				c := refBlock
				if k == 0 {
					c = 16
				}
				s.ids = append(s.ids, make([]uint32, 0, c))
			}
			blk := k >> refBits
			m := min(to-k, refBlock-k&(refBlock-1))
			s.ids[blk] = append(s.ids[blk], make([]uint32, m)...)
			k += m
		}
	}
}

// idsLen is the number of entries of ids.
func (s *sideSet) idsLen() int {
	if len(s.ids) == 0 {
		return 0
	}
	return (len(s.ids)-1)<<refBits + len(s.ids[len(s.ids)-1])
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
		s.writeDense(loc, b)
		if s.withIDs {
			s.ids[loc>>refBits][loc&(refBlock-1)] = id
		}
		return
	}
	c := s.chunks[loc>>storeChunkBits]
	o := int(loc & (storeChunk - 1))
	binary.LittleEndian.PutUint32(c[o:], id)
	o += binary.PutUvarint(c[o+4:], uint64(len(b))) + 4
	copy(c[o:o+len(b)], b)
}

// writeDense writes b into the dense record of rank k, packed.
func (s *sideSet) writeDense(k uint64, b []byte) {
	if len(b) != s.recLen || orWords(b)&s.over != 0 {
		// fit was not called: the record would be cut short.
		panic("lts: side record of the wrong length or packing")
	}
	rec := s.denseAt(k)
	if s.pbits == 8 {
		copy(rec, b)
		return
	}
	var pk [packWords]uint64
	pack(b, s.pbits, &pk)
	var buf [8 * packWords]byte
	for j, w := range pk {
		binary.LittleEndian.PutUint64(buf[8*j:], w)
	}
	// Exactly the record's bytes: the parallel rounds write neighbouring
	// records at once.
	copy(rec, buf[:s.plen])
}

// packedEq reports whether the packed dense record of rank k is pk.
func (s *sideSet) packedEq(k uint64, pk *[packWords]uint64) bool {
	c := s.dense[k>>s.dbits]
	p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(c)), uintptr(k&(1<<s.dbits-1))*uintptr(s.plen))
	last := s.nw - 1
	for j := 0; j < last; j++ {
		if load64(unsafe.Add(p, 8*j)) != pk[j] {
			return false
		}
	}
	return load64(unsafe.Add(p, 8*last))&s.lastMask == pk[last]
}

// orWords returns the or of the 8-byte words of b (the last one ending at
// its end): a byte of b is below 1<<k iff no byte of the result has a bit
// from k up.
func orWords(b []byte) uint64 {
	n := len(b)
	if n < 8 {
		var or uint64
		for _, c := range b {
			or |= uint64(c)
		}
		return or
	}
	le := binary.LittleEndian
	or := le.Uint64(b[n-8:])
	for i := 0; i+8 <= n; i += 8 {
		or |= le.Uint64(b[i:])
	}
	return or
}

// word returns the j-th 8-byte word of b, zero-filled past its end.
func word(b []byte, j int) uint64 {
	n := len(b)
	if (j+1)*8 <= n {
		return binary.LittleEndian.Uint64(b[8*j:])
	}
	if r := n - 8*j; n >= 8 {
		return binary.LittleEndian.Uint64(b[n-8:]) >> (64 - 8*r)
	}
	var x uint64
	for i := 8 * j; i < n; i++ {
		x |= uint64(b[i]) << (8 * (i - 8*j))
	}
	return x
}

// pack packs b, every byte below 1<<bits (2, 4 or 6), at bits a byte
// into pk: byte i at bits [bits*i, bits*(i+1)) of the little-endian
// words. Each 8-byte word takes a few shifts and masks (SWAR), no loop
// over bytes.
func pack(b []byte, bits uint, pk *[packWords]uint64) {
	*pk = [packWords]uint64{}
	nb := 8 * bits // bits per packed word of b
	for j := 0; 8*j < len(b); j++ {
		x := word(b, j)
		switch bits {
		case 2:
			x = (x | x>>6) & 0x000F000F000F000F
			x = (x | x>>12) & 0x000000FF000000FF
			x = (x | x>>24) & 0xFFFF
		case 4:
			x = (x | x>>4) & 0x00FF00FF00FF00FF
			x = (x | x>>8) & 0x0000FFFF0000FFFF
			x = (x | x>>16) & 0xFFFFFFFF
		default: // 6: the shifts are shorter than a value, so mask both
			x = x&0x003F003F003F003F | x>>2&0x0FC00FC00FC00FC0
			x = x&0x00000FFF00000FFF | x>>4&0x00FFF00000FFF000
			x = x&0xFFFFFF | x>>8&0xFFFFFF000000
		}
		off := uint(j) * nb
		pk[off>>6] |= x << (off & 63)
		if sh := off & 63; sh+nb > 64 && off>>6+1 < packWords {
			// (Past the last word, the bits spilled are zeros.)
			pk[off>>6+1] |= x >> (64 - sh)
		}
	}
}

// pack2 is pack for 2 bits a byte and 8 to 32 bytes (one word), fused
// with the check that every byte is below 4 (ok false: some is not).
func pack2(b []byte) (pk uint64, ok bool) {
	n := len(b)
	le := binary.LittleEndian
	var or uint64
	j := 0
	for ; 8*j+8 <= n; j++ {
		x := le.Uint64(b[8*j:])
		or |= x
		pk |= squeeze2(x) << (16 * j)
	}
	if r := n - 8*j; r > 0 {
		x := le.Uint64(b[n-8:]) >> (64 - 8*r)
		or |= x
		pk |= squeeze2(x) << (16 * j)
	}
	return pk, or&0xFCFCFCFCFCFCFCFC == 0
}

// squeeze2 packs the 8 bytes of x, each below 4, into its low 16 bits.
func squeeze2(x uint64) uint64 {
	x = (x | x>>6) & 0x000F000F000F000F
	x = (x | x>>12) & 0x000000FF000000FF
	return (x | x>>24) & 0xFFFF
}

// unpackAppend appends the n bytes packed at bits a byte in rec to dst.
func unpackAppend(dst, rec []byte, bits uint, n int) []byte {
	var buf [8*packWords + 8]byte // a word past the last: zero
	copy(buf[:], rec)
	le := binary.LittleEndian
	var out [8 * 8 * packWords]byte
	nb := 8 * bits
	for j := 0; 8*j < n; j++ {
		off := uint(j) * nb
		x := le.Uint64(buf[8*(off>>6):]) >> (off & 63)
		if sh := off & 63; sh+nb > 64 {
			x |= le.Uint64(buf[8*(off>>6+1):]) << (64 - sh)
		}
		x &= 1<<nb - 1
		switch bits {
		case 2:
			x = (x | x<<24) & 0x000000FF000000FF
			x = (x | x<<12) & 0x000F000F000F000F
			x = (x | x<<6) & 0x0303030303030303
		case 4:
			x = (x | x<<16) & 0x0000FFFF0000FFFF
			x = (x | x<<8) & 0x00FF00FF00FF00FF
			x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F
		default:
			x = x&0xFFFFFF | x<<8&0x00FFFFFF00000000
			x = x&0x00000FFF00000FFF | x<<4&0x0FFF00000FFF0000
			x = x&0x003F003F003F003F | x<<2&0x3F003F003F003F00
		}
		le.PutUint64(out[8*j:], x)
	}
	return append(dst, out[:n]...)
}

// recSize is the room the record of a string of n bytes takes.
func (s *sideSet) recSize(n int) int {
	if s.recLen >= 0 {
		return s.plen
	}
	return recordSize(n)
}

// grow doubles the table. Up to 2^26 slots the home slot is a prefix of
// the fingerprint, so no string is read; beyond, strings are rehashed.
func (s *sideSet) grow() {
	table := make([]uint64, 2*len(s.table))
	mask := uint64(len(table) - 1)
	shift := s.shift - 1
	var buf []byte
	for _, v := range s.table {
		if v == 0 {
			continue
		}
		var i uint64
		if shift >= offBits {
			i = (v >> offBits) >> (shift - offBits)
		} else {
			buf = s.appendRec(buf[:0], v&offMask-1)
			i = maphash.Bytes(s.seed, buf) >> shift
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
// loc, of a string of ln bytes, starts and ends in (the first bytes, with
// the id of an arena record; the last ones when they lie on another line).
func (s *sideSet) recordLines(loc uint64, ln int, addrs []uintptr) []uintptr {
	var p, last uintptr
	if s.recLen >= 0 {
		c := s.dense[loc>>s.dbits]
		p = uintptr(unsafe.Pointer(unsafe.SliceData(c))) + uintptr(loc&(1<<s.dbits-1))*uintptr(s.plen)
		last = p + uintptr(max(s.plen, 1)-1)
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
