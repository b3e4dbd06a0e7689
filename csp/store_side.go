package csp

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/quasar-verify/quasar/internal/intern"
)

// sideSet holds the states whose length is not the store's width (every
// state, in a store without a width). While its records are dense (below)
// and it has up to 2^slot4Max slots, its table has 4-byte slots of a
// 32-log2(slots)-bit fingerprint + rank (t4): growing it rebuilds it from
// the records (rebuild; the parallel rounds: growSide4), after freeing
// the old one. Otherwise (the arena, a bigger table, or widen) it has 8-byte
// slots of 26-bit fingerprint + location; the home slot is the top bits
// of the hash, so up to 2^26 slots it is a prefix of the fingerprint and
// growing the table reads no record. A probe compares bytes only when the
// fingerprints agree. The records are kept in one of two ways:
//
//   - dense, while every record has one length recLen (nearly always: a
//     state takes one byte per component and per variable): record k (its
//     rank, the order of insertion) is the plen bytes at k*plen of an
//     array cut into chunks of 1<<dbits records, and a slot's location is
//     the rank. No id, no length, no rank -> offset index. While every
//     byte of every side string seen is below 16 (component codes and
//     small variables: codes.go) and the length is 8 to 64, a record is
//     the string packed at 4 bits a byte (plen = (recLen+1)/2; pack32,
//     packLong); while every byte is below 4 and the length is 17 to 32,
//     at 2 bits a byte, one word's low bytes (fold2) stored at its
//     natural length, plen = ceil(recLen/4) = 5 to 8, and read as the
//     unaligned word at its start, masked (rec2; a chunk has denseSlack
//     bytes past its records): 7 bytes a state at the philosophers'
//     N = 14 instead of 28 (docs/engine.md). A larger byte repacks them
//     all once, wider (repack).
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
	// Dense records are packed at 2 bits a byte (pbits 2) while every
	// byte of every side string seen is below 4 and the length is
	// pack2Min..pack2Max, else at 4 bits a byte (pbits 4) while every
	// byte is below 16 and the length is packMin..packMax, else kept as
	// they are (pbits 8); plen is a stored record's length.
	pbits uint
	plen  int
	// m2 masks a 2-bit record's word (rec2): its low 8*plen bits;
	// f2sh is fold2's shift for the length.
	m2    uint64
	f2sh  uint
	dense [][]byte
	dbits uint               // records per dense chunk: 1<<dbits
	dn    int                // dense records with room reserved (>= n)
	ids   intern.Vec[uint32] // rank -> id (withIDs)
	// withIDs: ids differ from ranks (the store has a width): dense
	// records keep theirs in ids.
	withIDs bool

	chunks [][]byte
	refs   [][]uint64 // rank -> arena offset, in blocks of refBlock
	n      int
	table  []uint64 // 0 = empty, else fingerprint<<offBits | (location+1)
	// t4, if set, is the table instead (table is nil): 4-byte slots of
	// fingerprint<<rbits | (rank+1), while the records are dense and the
	// table has up to 1<<slot4Max slots (rbits = log2 slots: a rank fits,
	// the load being at most 3/4). The fingerprint is bits 32 to 63-rbits
	// of the hash, those below the home's (slot4).
	t4    []uint32
	rbits uint
	rmask uint32
	// wide: the table stays at 8-byte slots (widen: the benchmarks
	// compare).
	wide  bool
	mask  uint64
	shift uint // 64 - log2(len(table)): the home slot of hash h is h>>shift
	seed  maphash.Seed
	hk    [6]uint64 // the keys of hashPacked, from seed
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

	// The lengths of the side strings that pack at 4 bits a byte.
	packMin = 8
	packMax = 64
	// hiNibbles has the bits a byte below 16 has not, in each byte.
	hiNibbles = 0xF0F0F0F0F0F0F0F0

	// The lengths of the side strings that pack at 2 bits a byte (into
	// one word: fold2). Up to 16 bytes the 4-bit packing takes 8 bytes
	// or fewer already.
	pack2Min = 17
	pack2Max = 32
	// hiBits2 has the bits a byte below 4 has not, in each byte;
	// hiNib2 the bits a nibble below 4 has not, in each nibble.
	hiBits2 = 0xFCFCFCFCFCFCFCFC
	hiNib2  = 0xCCCCCCCCCCCCCCCC
	loNib2  = 0x3333333333333333
)

// init prepares an empty set of 1<<bits slots; withIDs: ids are not
// ranks.
func (s *sideSet) init(seed maphash.Seed, bits uint, withIDs bool) {
	s.seed, s.withIDs, s.recLen = seed, withIDs, noLen
	for i := range s.hk {
		s.hk[i] = maphash.Comparable(seed, i) | 1
	}
	s.mask, s.shift = 1<<bits-1, 64-bits
	if bits <= slot4Max && !slot4Off {
		s.t4, s.rbits, s.rmask = make([]uint32, 1<<bits), bits, 1<<bits-1
	} else {
		s.table = make([]uint64, 1<<bits)
	}
}

// slot4Max is the log2 of the largest table of 4-byte slots: 5
// fingerprint bits (a record read for about one occupied probe in 32
// whose string differs).
var slot4Max = uint(27)

// slot4Off keeps the side tables at 8-byte slots: the tests compare.
var slot4Off bool

// fp4 is the fingerprint word of hash h in a table of 4-byte slots:
// bits 32 to 63-rbits of h, at the top of the slot.
func (s *sideSet) fp4(h uint64) uint32 { return uint32(h>>32) << s.rbits }

// tableBase is the address of the table and the size of its slots.
func (s *sideSet) tableBase() (uintptr, uintptr) {
	if s.t4 != nil {
		return uintptr(unsafe.Pointer(unsafe.SliceData(s.t4))), 4
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(s.table))), 8
}

// slotCount is the number of slots of the table.
func (s *sideSet) slotCount() int { return int(s.mask + 1) }

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
	return n + s.ids.Bytes(4) + int64(len(s.table))*8 + int64(len(s.t4))*4
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

// denseAt returns the stored (packed if pbits is 2 or 4) bytes of the
// dense record of rank k.
func (s *sideSet) denseAt(k uint64) []byte {
	c := s.dense[k>>s.dbits]
	o := int(k&(1<<s.dbits-1)) * s.plen
	return c[o : o+s.plen : o+s.plen]
}

// hashAt is the hash (sideHash) of the string of the record at loc.
func (s *sideSet) hashAt(loc uint64) uint64 {
	if s.recLen >= 0 {
		if s.pbits == 2 {
			w0, w1 := unfold2(s.rec2(loc), s.f2sh)
			return s.hash2(w0, w1, s.recLen)
		}
		if s.pbits == 4 {
			w := packedWords(s.denseAt(loc)) // packed already
			return s.hashPacked(&w, s.recLen)
		}
		return s.sideHash(s.denseAt(loc))
	}
	_, b := s.record(loc)
	return s.sideHash(b)
}

// appendDense appends the string of the dense record of rank k to dst.
func (s *sideSet) appendDense(dst []byte, k uint64) []byte {
	if s.pbits == 2 {
		// One word, unfolded into pack32's two.
		w0, w1 := unfold2(s.rec2(k), s.f2sh)
		return unpack32(dst, w0, w1, s.recLen)
	}
	if s.pbits == 4 {
		if m := s.recLen; m <= 32 && s.plen >= 8 {
			// The record's two words loaded in place (eqPacked2),
			// unpacked into dst's room.
			c := s.dense[k>>s.dbits]
			p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(c)), uintptr(k&(1<<s.dbits-1))*uintptr(s.plen))
			w0 := load64(p)
			w1 := load64(unsafe.Add(p, s.plen-8)) >> (8 * (16 - s.plen))
			return unpack32(dst, w0, w1, m)
		}
		return unpack4(dst, s.denseAt(k), s.recLen)
	}
	return append(dst, s.denseAt(k)...)
}

// denseID is the id of the dense record of rank k.
func (s *sideSet) denseID(k uint64) uint32 {
	if s.withIDs {
		return s.ids.At(int(k))
	}
	return uint32(k)
}

// get returns the bytes of the side state of rank k (a fresh copy if its
// record is packed: the searches use appendGet).
func (s *sideSet) get(k uint32) []byte {
	if s.recLen >= 0 {
		if s.pbits != 8 {
			return s.appendDense(nil, uint64(k))
		}
		return s.denseAt(uint64(k))
	}
	_, b := s.record(s.refs[k>>refBits][k&(refBlock-1)])
	return b
}

// appendGet appends the bytes of the side state of rank k to dst.
func (s *sideSet) appendGet(dst []byte, k uint32) []byte {
	if s.recLen >= 0 {
		return s.appendDense(dst, uint64(k))
	}
	_, b := s.record(s.refs[k>>refBits][k&(refBlock-1)])
	return append(dst, b...)
}

// find returns the table slot of b (empty if absent) and its fingerprint
// (for add: of 4-byte slots, fp4's word), and b's id if found.
func (s *sideSet) find(b []byte, h uint64) (slot uint64, fp uint64, id uint32, ok bool) {
	if t := s.t4; t != nil {
		f, rm := s.fp4(h), s.rmask
		for i := h >> s.shift; ; i = (i + 1) & s.mask {
			v := t[i]
			if v == 0 {
				return i, uint64(f), 0, false
			}
			if v&^rm == f {
				if id, ok := s.match(uint64(v&rm-1), b); ok {
					return i, uint64(f), id, true
				}
			}
		}
	}
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
		if s.pbits == 2 {
			w0, w1, ok := pack32(b)
			x, ok2 := fold2(w0, w1, s.f2sh)
			return s.denseID(loc), ok && ok2 && s.rec2(loc) == x
		}
		if s.pbits == 4 {
			w, ok := packW(b)
			return s.denseID(loc), ok && packedWords(s.denseAt(loc)) == w
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
	four := s.t4 != nil
	k, loc := s.reserveRecord(len(b), orBytes(b))
	s.writeRecord(loc, id, b)
	switch {
	case s.t4 != nil:
		s.t4[i] = uint32(fp) | uint32(loc+1)
	case four:
		// toArena has just widened the slots, in place: the
		// fingerprint is the top of the hash (a prefix of fp's word).
		s.table[i] = s.hashAt(loc)>>offBits<<offBits | (loc + 1)
	default:
		s.table[i] = fp<<offBits | (loc + 1)
	}
	if uint64(s.n)*4 > (s.mask+1)*3 {
		s.grow()
	}
	return k
}

// fit prepares the set for records of lengths lo to hi whose bytes or to
// or (orBytes; a packing string may stand for its bytes with 4 if one of
// them is 4 or more, else 0): the first record fixes the dense length and
// the packing; another length moves the records to the arena; a byte of
// 4 or more repacks 2-bit records at 4 bits, one of 16 or more packed
// records at 8 (repack). No slot may be provisional (store_par.go) when
// it switches. Neither switch changes a slot's place: the hash of a
// string does not depend on how the records are kept (sideHash).
func (s *sideSet) fit(lo, hi int, or uint64) {
	switch {
	case s.recLen == arenaLen:
	case s.recLen == noLen && lo == hi:
		s.recLen = lo
		bits := uint(8)
		if lo >= packMin && lo <= packMax && or&hiNibbles == 0 && !packOff {
			bits = 4
			if lo >= pack2Min && lo <= pack2Max && or&hiBits2 == 0 && !pack2Off {
				bits = 2
			}
		}
		s.setBits(bits)
	case lo != s.recLen || hi != s.recLen:
		s.toArena()
	case s.pbits != 8 && or&hiNibbles != 0:
		s.repack(8)
	case s.pbits == 2 && or&hiBits2 != 0:
		s.repack(4)
	}
}

// packOff keeps the dense records unpacked, pack2Off at no fewer than 4
// bits a byte: the tests compare.
var packOff, pack2Off bool

// setBits sets the packing of the dense records (2, 4 or 8 bits a byte)
// and the size of their chunks.
func (s *sideSet) setBits(bits uint) {
	s.pbits = bits
	s.plen = s.recLen
	switch bits {
	case 4:
		s.plen = (s.recLen + 1) / 2
	case 2:
		// ceil(recLen/4) bytes: 5 to 8 (fold2's word has no bit at
		// or above 4*((recLen+1)/2) <= 8*plen).
		s.plen = (s.recLen + 3) / 4
		s.f2sh = fold2Shift(s.recLen)
		s.m2 = 1<<(8*s.plen) - 1 // (all ones at 8 bytes: a shift by 64 is 0)
	}
	s.dbits = 20
	if s.plen > 0 {
		s.dbits = 0
		for (2<<s.dbits)*s.plen <= denseChunkMax {
			s.dbits++
		}
	}
}

// denseChunkMax bounds a dense chunk's bytes (storeChunk; the tests
// lower it so that small searches fill several chunks).
var denseChunkMax = storeChunk

// repack rewrites the packed dense records at bits (4 or 8) bits a
// byte, in new chunks; ranks, hence the slots, do not change.
func (s *sideSet) repack(bits uint) {
	old := *s
	s.dense, s.dn = nil, 0
	s.setBits(bits)
	s.growDense(s.n, nil) // (the ids, kept, have their room)
	var buf []byte
	for k := range uint64(s.n) {
		buf = old.appendDense(buf[:0], k)
		s.writeDense(k, buf)
	}
}

// toArena moves the dense records into the arena, in rank order, and
// points the slots to them.
func (s *sideSet) toArena() {
	n := s.n
	old := *s
	s.recLen, s.dense, s.ids, s.dn, s.n = arenaLen, nil, intern.Vec[uint32]{}, 0, 0
	if old.recLen < 0 {
		// No record yet: only the slots' width changes (an empty
		// 4-byte table would take arena offsets for ranks).
		if s.t4 != nil {
			s.widenSlots()
		}
		return
	}
	var buf []byte
	for k := range uint64(n) {
		_, off := s.reserveRecord(old.recLen, 0)
		buf = old.appendDense(buf[:0], k)
		s.writeRecord(off, old.denseID(k), buf)
	}
	if s.t4 != nil {
		s.widenSlots()
		return
	}
	for i, v := range s.table {
		if v != 0 && v&provBit == 0 {
			k := v&offMask - 1
			s.table[i] = v>>offBits<<offBits | (s.refs[k>>refBits][k&(refBlock-1)] + 1)
		}
	}
}

// widen keeps the table at 8-byte slots from now on (BenchmarkParPhases
// compares; the parallel rounds have loops for both widths).
func (s *sideSet) widen() {
	s.wide = true
	if s.t4 != nil {
		s.widenSlots()
	}
}

// widenSlots moves the 4-byte slots to 8-byte ones in the same places
// (find's slot stays valid), the fingerprints from the records' hashes;
// a slot's rank becomes its location (its arena offset after toArena).
func (s *sideSet) widenSlots() {
	table := make([]uint64, len(s.t4))
	for i, v := range s.t4 {
		if v == 0 {
			continue
		}
		loc := uint64(v&s.rmask - 1)
		if s.recLen < 0 {
			loc = s.refs[loc>>refBits][loc&(refBlock-1)]
		}
		table[i] = s.hashAt(loc)>>offBits<<offBits | (loc + 1)
	}
	old := len(s.t4)
	s.t4, s.table, s.rbits, s.rmask = nil, table, 0, 0
	collectOldFree(old * 4)
}

// reserveRecord reserves the record of a string of n bytes whose bytes or
// to or (orBytes) and returns its rank and location; writeRecord fills it
// and the caller its table slot.
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

// denseChunk is the size of a full chunk of the dense array's records;
// a chunk has denseSlack bytes more (denseCap).
func (s *sideSet) denseChunk() int { return s.plen << s.dbits }

// denseCap is the capacity of a full chunk of the dense array.
func (s *sideSet) denseCap() int { return s.denseChunk() + denseSlack }

// denseSlack is the room a dense chunk has past its records: a 2-bit
// record of fewer than 8 bytes is read as the 8-byte word at its start
// (rec2), which may end past the chunk's last record.
const denseSlack = 8

// rec2 is the 2-bit record of rank k (pbits 2): the plen bytes at k*plen,
// loaded as one unaligned word and masked (the bytes past them are the
// next record's or the chunk's slack).
func (s *sideSet) rec2(k uint64) uint64 {
	return at2(s.dense, s.dbits, uintptr(s.plen), s.m2, k)
}

// at2 is rec2 for the hot loops, which keep the set's fields in locals:
// the word of record k of dense (chunks of 1<<dbits records of pl bytes)
// and-ed with m2.
func at2(dense [][]byte, dbits uint, pl uintptr, m2, k uint64) uint64 {
	return load64(unsafe.Add(unsafe.Pointer(unsafe.SliceData(dense[k>>dbits])), uintptr(k&(1<<dbits-1))*pl)) & m2
}

// readLen is the bytes a lookup reads at a dense record's start: a 2-bit
// record's word (rec2), else the record.
func (s *sideSet) readLen() uintptr {
	if s.pbits == 2 {
		return 8
	}
	return uintptr(s.plen)
}

// setRec2 writes the 2-bit record x (fold2's word) of rank k: exactly
// its plen bytes (5 to 8), as two 4-byte stores that may overlap, since
// the parallel rounds write neighbouring records at once.
func (s *sideSet) setRec2(k, x uint64) {
	pl := uintptr(s.plen)
	p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.dense[k>>s.dbits])), uintptr(k&(1<<s.dbits-1))*pl)
	store32(p, uint32(x))
	store32(unsafe.Add(p, pl-4), uint32(x>>(8*(pl-4))))
}

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
				c = make([]byte, 0, min(minDense, per)*s.plen+denseSlack)
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
		if need+denseSlack > cap(c) {
			// The first chunk doubles up to its full size (a later
			// chunk, new or a spare, has it already: a spare is taken
			// only at denseCap).
			g := make([]byte, len(c), min(max(need, 2*(cap(c)-denseSlack)), s.denseChunk())+denseSlack)
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
		s.writeDense(loc, b)
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

// writeDense writes b (of the dense length) as the dense record of rank
// k, packed as the records are.
func (s *sideSet) writeDense(k uint64, b []byte) {
	switch s.pbits {
	case 2:
		w0, w1, ok := pack32(b)
		x, ok2 := fold2(w0, w1, s.f2sh)
		if !ok || !ok2 {
			panic("lts: side record of a byte above 3 packed at 2 bits")
		}
		s.setRec2(k, x)
	case 4:
		w, ok := packW(b)
		if !ok {
			panic("lts: side record of a byte above 15 packed")
		}
		var pk [packMax / 2]byte
		le := binary.LittleEndian
		for j, x := range w {
			le.PutUint64(pk[8*j:], x)
		}
		// Exactly the record's bytes: the parallel rounds write
		// neighbouring records at once.
		copy(s.denseAt(k), pk[:s.plen])
	default:
		copy(s.denseAt(k), b)
	}
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
	if s.t4 != nil {
		s.rebuild(65 - s.shift)
		return
	}
	freeBefore(16 * len(s.table))
	table := make([]uint64, 2*len(s.table))
	mask := uint64(len(table) - 1)
	shift := s.shift - 1
	// A big old table gives its pages back as the pass leaves them, while
	// the new one's are faulted in as they are written (homes are the
	// top bits of the hashes, so slot j moves near 2j): the two are not
	// both held whole (releasePages).
	release := len(s.table)*8 >= releaseMin
	for j, v := range s.table {
		if release && uint64(j)&(releaseBlock-1) == 0 && j > 0 {
			releasePages(s.table[j-int(releaseBlock) : j])
		}
		if v == 0 {
			continue
		}
		var i uint64
		if shift >= offBits {
			i = (v >> offBits) >> (shift - offBits)
		} else {
			i = s.hashAt(v&offMask-1) >> shift
		}
		for table[i] != 0 {
			i = (i + 1) & mask
		}
		table[i] = v
	}
	old := len(s.table)
	s.table, s.mask, s.shift = table, mask, shift
	collectOldFree(old * 8)
}

// rebuild replaces the table of 4-byte slots with one of 1<<bits slots,
// of 4 bytes up to 1<<slot4Max slots, else of 8. A slot does not hold its
// home: the slots are rebuilt from the records (dense), in rank order. The
// old table is dropped (and its pages returned) before the new one is
// allocated, so that the two are never both held; the reads of the
// records are sequential, the writes into the new table random, their
// lines prefetched a batch ahead.
func (s *sideSet) rebuild(bits uint) {
	old := len(s.t4)
	s.t4 = nil
	collectOldFree(old * 4)
	four := bits <= slot4Max && !s.wide
	s.mask, s.shift = 1<<bits-1, 64-bits
	var t4 []uint32
	var t8 []uint64
	if four {
		t4 = make([]uint32, 1<<bits)
		s.t4, s.rbits, s.rmask = t4, bits, 1<<bits-1
	} else {
		t8 = make([]uint64, 1<<bits)
		s.table, s.rbits, s.rmask = t8, 0, 0
	}
	const batch = 64
	var hs [batch]uint64
	var addrs [batch]uintptr
	n := uint64(s.n)
	for lo := uint64(0); lo < n; lo += batch {
		hi := min(lo+batch, n)
		for k := lo; k < hi; k++ {
			hs[k-lo] = s.hashAt(k)
		}
		for k := lo; k < hi; k++ {
			if four {
				addrs[k-lo] = uintptr(unsafe.Pointer(&t4[hs[k-lo]>>s.shift]))
			} else {
				addrs[k-lo] = uintptr(unsafe.Pointer(&t8[hs[k-lo]>>s.shift]))
			}
		}
		prefetch(addrs[:hi-lo])
		for k := lo; k < hi; k++ {
			h := hs[k-lo]
			i := h >> s.shift
			if four {
				for t4[i] != 0 {
					i = (i + 1) & s.mask
				}
				t4[i] = s.fp4(h) | uint32(k+1)
				continue
			}
			for t8[i] != 0 {
				i = (i + 1) & s.mask
			}
			t8[i] = h>>offBits<<offBits | (k + 1)
		}
	}
}

// A grow gives the pages of an old table of releaseMin bytes or more
// back by blocks of releaseBlock slots (512 KiB; a power of 2) as it
// leaves them. The tests lower both.
var (
	releaseMin   = 16 << 20
	releaseBlock = uint64(1 << 16)
)

// slotAddrs appends the address of the home slot of hash h (and the next
// line for a slot at the end of a line: a probe run often reaches it).
func (s *sideSet) slotAddrs(h uint64, addrs []uintptr) []uintptr {
	if s.t4 != nil {
		return append(addrs, uintptr(unsafe.Pointer(unsafe.SliceData(s.t4)))+uintptr(h>>s.shift)*4)
	}
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
	if t := s.t4; t != nil {
		f, rm := s.fp4(h), s.rmask
		for i := h >> s.shift; ; i = (i + 1) & s.mask {
			v := t[i]
			if v == 0 {
				return addrs
			}
			if v&^rm == f {
				return s.recordLines(uint64(v&rm-1), ln, addrs)
			}
		}
	}
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
// the id of an arena record; the last ones when they lie on another line;
// of a 2-bit record, the last of the word read: readLen).
func (s *sideSet) recordLines(loc uint64, ln int, addrs []uintptr) []uintptr {
	var p, last uintptr
	if s.recLen >= 0 {
		c := s.dense[loc>>s.dbits]
		p = uintptr(unsafe.Pointer(unsafe.SliceData(c))) + uintptr(loc&(1<<s.dbits-1))*uintptr(s.plen)
		last = p + max(s.readLen(), 1) - 1
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

// sideHash is the hash of a side string b: of its packing at 4 bits a
// byte (packW) if it packs, else of its bytes. It does not depend on how
// the set keeps its records, so that repack and toArena move no slot.
// The packed words are hashed as they are (two multiply-mixes, as
// wyhash's), in registers: maphash over the packed bytes was four times
// slower, its 16-byte load waiting on the 4-byte stores that wrote them.
func (s *sideSet) sideHash(b []byte) uint64 {
	h, _ := s.sideHashOr(b)
	return h
}

// sideHashOr is sideHash, with what fit takes of b's bytes: for the
// strings that it packs, 4 if one of them is 4 or more, else 0 (ge4);
// for the others all ones.
func (s *sideSet) sideHashOr(b []byte) (h, or uint64) {
	n := len(b)
	if n >= packMin && n <= 32 {
		if w0, w1, ok := pack32(b); ok {
			return s.hash2(w0, w1, n), ge4(w0 | w1)
		}
	} else if n > 32 && n <= packMax {
		if w, ok := packLong(b); ok {
			return s.hashPacked(&w, n), ge4(w[0] | w[1] | w[2] | w[3])
		}
	}
	return maphash.Bytes(s.seed, b)&sideHashMask | sideHashSet, ^uint64(0)
}

// sideHashMask is and-ed into every side hash. Tests lower it
// (TestSideCollisionsParallel) so that fingerprints collide and the byte
// compares of every lookup path run; a 26-bit fingerprint otherwise
// filters nearly every probe before them.
var sideHashMask = ^uint64(0)

// sideHashSet is or-ed into every side hash after the mask: with it the
// tests put every home near the end of a block of slots, so that probe
// runs cross the parallel rounds' partitions and the table's end.
var sideHashSet uint64

// ge4 is 4 if some nibble of the packed words or-ed into w is 4 or more,
// else 0: the or that fit takes for a string that packs at 4 bits.
func ge4(w uint64) uint64 {
	t := w & hiNib2
	return (t | -t) >> 63 << 2
}

// fold2 folds pack32's words of a string of n = 17 to 32 bytes into one
// word of 2 bits a byte, in its low 4h <= 2n+2 bits (h = (n+1)/2), so
// that a record of ceil(n/4) bytes holds it (setBits): w0's nibbles 0-7
// in bits 0-1 of nibbles 0-7, its nibbles 8-15 in their bits 2-3; from
// bit 32, w1's k = h-8 nibbles of packed bytes 8 to h-1 folded the same
// way (its nibbles k to 2k-1 in bits 2-3 of nibbles 0 to k-1), by sh =
// fold2Shift(n) = 4k-2. ok: every nibble is below 4, so that the word is
// the string's packing (unfold2 inverts it); if not, the word is not
// used.
func fold2(w0, w1 uint64, sh uint) (x uint64, ok bool) {
	b := (w1 | w1>>sh) & (1<<(sh+2) - 1)
	return w0&0xFFFFFFFF | w0>>30 | b<<32, (w0|w1)&hiNib2 == 0
}

// unfold2 is the inverse of fold2.
func unfold2(x uint64, sh uint) (w0, w1 uint64) {
	const m = 0x33333333
	b := x >> 32
	return x&m | (x>>2&m)<<32, b&m | (b>>2&m)<<(sh+2)
}

// fold2Shift is fold2's shift for strings of n bytes (17 to 32).
func fold2Shift(n int) uint {
	return uint(4*((n+1)/2-8) - 2)
}

// hash2 is hashPacked for a string of up to 32 bytes (two packed words).
func (s *sideSet) hash2(w0, w1 uint64, n int) uint64 {
	k := &s.hk
	return mum(mum(w0^k[0], w1^k[1])^k[4], uint64(n)^k[5])&sideHashMask | sideHashSet
}

// hashPacked is the hash of the string of n bytes whose packing is w.
func (s *sideSet) hashPacked(w *[4]uint64, n int) uint64 {
	if n <= 32 {
		return s.hash2(w[0], w[1], n)
	}
	k := &s.hk
	h := mum(w[0]^k[0], w[1]^k[1]) ^ mum(w[2]^k[2], w[3]^k[3])
	return mum(h^k[4], uint64(n)^k[5])&sideHashMask | sideHashSet
}

// mum folds the 128-bit product of a and b.
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// orBytes returns the or of the 8-byte words of b (the last one ending at
// its end; of its bytes if it is shorter): every byte of b is below 16
// iff the result has no bit of hiNibbles.
func orBytes(b []byte) uint64 {
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

// packW packs b (packMin to packMax bytes) at 4 bits a byte into the
// little-endian words w (the packed bytes, then zeros), and reports
// whether every byte of b is below 16 (if not, w is not b's packing).
// Strings of up to 32 bytes pack by halves (pack32), longer ones byte
// pair by byte pair (packLong); the length tells which.
func packW(b []byte) (w [4]uint64, ok bool) {
	if len(b) <= 32 {
		w[0], w[1], ok = pack32(b)
		return w, ok
	}
	return packLong(b)
}

// pack32 packs b (8 to 32 bytes) by halves: with h = (len(b)+1)/2,
// packed byte i (i < h) holds b[i] in its low half and b[h+i] (0 past the
// end) in its high half. A half takes up to two words, loaded whole (the
// second half's words end at b's end), so that packing a half is one
// shift and one or: no shuffle of the bytes.
func pack32(b []byte) (w0, w1 uint64, ok bool) {
	m := len(b)
	if m < 8 || m > 32 {
		panic("lts: pack32 of a string not of 8 to 32 bytes")
	}
	h := (m + 1) / 2
	hl := m - h // the second half's length, h or h-1
	// Loads within b (8 <= m <= 32), unchecked.
	p := unsafe.Pointer(unsafe.SliceData(b))
	last := load64(unsafe.Add(p, m-8))
	lo0 := load64(p)
	var lo1, hi0, hi1 uint64
	if h < 8 {
		lo0 &= 1<<(8*h) - 1
	} else if h > 8 {
		lo1 = load64(unsafe.Add(p, 8)) & (1<<(8*(h-8)) - 1)
	}
	if hl > 8 {
		hi0 = load64(unsafe.Add(p, h))
		hi1 = last >> (8 * (16 - hl))
	} else {
		hi0 = last >> (8 * (8 - hl))
	}
	or := lo0 | lo1 | hi0 | hi1
	return lo0 | hi0<<4, lo1 | hi1<<4, or&hiNibbles == 0
}

// unpack32 appends the m bytes (8 to 32) packed by pack32 in w0, w1.
func unpack32(dst []byte, w0, w1 uint64, m int) []byte {
	h := (m + 1) / 2
	const lo = 0x0F0F0F0F0F0F0F0F
	n0 := len(dst)
	// Written in place, in dst's room: whole words, the second half's
	// over the first's zeros past h, up to 16 bytes past the end.
	dst = slices.Grow(dst, m+16)
	out := dst[n0 : n0+m+16]
	le := binary.LittleEndian
	le.PutUint64(out[0:], w0&lo)
	le.PutUint64(out[8:], w1&lo)
	le.PutUint64(out[h:], w0>>4&lo)
	le.PutUint64(out[h+8:], w1>>4&lo)
	return dst[:n0+m]
}

// packLong packs b (33 to packMax bytes) at 4 bits a byte: byte 2j of b
// in the low half of packed byte j, byte 2j+1 in its high half. Each
// 8-byte word of b takes three shifts and masks (SWAR), with no loop over
// its bytes.
func packLong(b []byte) (w [4]uint64, ok bool) {
	m := len(b)
	le := binary.LittleEndian
	var or uint64
	j := 0
	for ; 8*j+8 <= m; j++ {
		x := le.Uint64(b[8*j:])
		or |= x
		w[j>>1] |= uint64(squeeze4(x)) << (32 * (j & 1))
	}
	if r := m - 8*j; r > 0 {
		x := le.Uint64(b[m-8:]) >> (64 - 8*r)
		or |= x
		w[j>>1] |= uint64(squeeze4(x)) << (32 * (j & 1))
	}
	return w, or&hiNibbles == 0
}

// eqPacked2 reports whether the packed record of plen bytes (8 to 16)
// at p is w0, w1 (pack32): the words at 0 and plen-8 (shifted down to
// the second word's bytes), nothing past the record read.
func eqPacked2(p unsafe.Pointer, plen int, w0, w1 uint64) bool {
	return load64(p) == w0 && load64(unsafe.Add(p, plen-8))>>(8*(16-plen)) == w1
}

// packedWords reads the packed record rec (plen bytes) back into words.
func packedWords(rec []byte) (w [4]uint64) {
	var buf [packMax / 2]byte
	copy(buf[:], rec)
	le := binary.LittleEndian
	for j := range w {
		w[j] = le.Uint64(buf[8*j:])
	}
	return w
}

// squeeze4 packs the 8 bytes of x, each below 16, into 32 bits.
func squeeze4(x uint64) uint32 {
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	return uint32(x | x>>16)
}

// spread4 is the inverse of squeeze4.
func spread4(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	return (x | x<<4) & 0x0F0F0F0F0F0F0F0F
}

// unpack4 appends the m bytes packed in rec ((m+1)/2 bytes, by packW)
// to dst.
func unpack4(dst, rec []byte, m int) []byte {
	if m <= 32 {
		w := packedWords(rec)
		return unpack32(dst, w[0], w[1], m)
	}
	var in [packMax/2 + 4]byte
	copy(in[:], rec)
	var out [packMax + 8]byte
	le := binary.LittleEndian
	for j := 0; 8*j < m; j++ {
		le.PutUint64(out[8*j:], spread4(le.Uint32(in[4*j:])))
	}
	return append(dst, out[:m]...)
}
