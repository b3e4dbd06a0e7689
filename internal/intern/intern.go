// Package intern is an arena-backed set of byte strings that gives each
// distinct string a dense uint32 id.
//
// It is the visited set of every search in Quasar: a state (or a product
// pair, or a relaxed-spec configuration) is encoded as a compact byte string
// and interned here. Identity is the bytes, never a hash alone: the hash picks
// a slot in an open-addressing table, the bytes decide equality. Strings are
// appended to large arena chunks, so storing a state costs its length plus
// about 12 bytes of index (offset, length, and a slot of the table).
//
// A Set is not safe for concurrent use; parallel searches shard by hash or
// serialise inserts.
package intern

import (
	"hash/maphash"
	"math"
)

// Arena chunks start small (a set per check is cheap) and double up to
// maxChunk; a string never straddles two chunks.
const (
	minChunk = 4 << 10
	maxChunk = 4 << 20
)

// Set interns byte strings. The zero value is not usable; call New.
type Set struct {
	seed   maphash.Seed
	chunks [][]byte // arena: strings never straddle chunks
	// refs[id] locates string id: chunk index << 32 | offset, and lens[id] its length.
	refs  []uint64
	lens  []uint32
	table []uint32 // open addressing; 0 = empty, else id+1
	tags  []uint8  // tags[i]: 8 more hash bits of table[i]'s string, so most probes skip the byte comparison
	mask  uint64
	bytes int64 // arena bytes in use
}

// New returns an empty set sized for about n strings.
func New(n int) *Set {
	size := 1024
	for size < 2*n {
		size <<= 1
	}
	s := &Set{
		seed:  maphash.MakeSeed(),
		table: make([]uint32, size),
		tags:  make([]uint8, size),
		mask:  uint64(size - 1),
	}
	touch(s.table, 4)
	touch(s.tags, 1)
	return s
}

// Len is the number of distinct strings interned.
func (s *Set) Len() int { return len(s.lens) }

// Bytes is an estimate of the memory held by the set.
func (s *Set) Bytes() int64 {
	var arena int64
	for _, c := range s.chunks {
		arena += int64(cap(c))
	}
	return arena + int64(cap(s.refs))*8 + int64(cap(s.lens))*4 + int64(len(s.table))*5
}

// Get returns the bytes of id. The slice aliases the arena: do not modify it.
func (s *Set) Get(id uint32) []byte {
	r := s.refs[id]
	c, off := r>>32, uint32(r)
	return s.chunks[c][off : off+s.lens[id] : off+s.lens[id]]
}

// Lookup returns the id of b and whether it is present.
func (s *Set) Lookup(b []byte) (uint32, bool) {
	h := maphash.Bytes(s.seed, b)
	tag := uint8(h >> 56)
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		v := s.table[i]
		if v == 0 {
			return 0, false
		}
		if s.tags[i] == tag && s.equal(v-1, b) {
			return v - 1, true
		}
	}
}

// Intern returns the id of b, adding a copy of b if it is new. added reports
// whether it was new. Ids are dense and assigned in insertion order.
func (s *Set) Intern(b []byte) (id uint32, added bool) {
	h := maphash.Bytes(s.seed, b)
	tag := uint8(h >> 56)
	i := h & s.mask
	for ; ; i = (i + 1) & s.mask {
		v := s.table[i]
		if v == 0 {
			break
		}
		if s.tags[i] == tag && s.equal(v-1, b) {
			return v - 1, false
		}
	}
	if uint64(len(s.lens)) >= math.MaxUint32-1 {
		panic("intern: more than 2^32-2 strings")
	}
	id = uint32(len(s.lens))
	s.refs = append(s.refs, s.store(b))
	s.lens = append(s.lens, uint32(len(b)))
	s.table[i] = id + 1
	s.tags[i] = tag
	if uint64(len(s.lens))*4 > uint64(len(s.table))*3 {
		s.grow()
	}
	return id, true
}

func (s *Set) equal(id uint32, b []byte) bool {
	if int(s.lens[id]) != len(b) {
		return false
	}
	return string(s.Get(id)) == string(b)
}

func (s *Set) store(b []byte) uint64 {
	n := len(s.chunks)
	if n == 0 || len(s.chunks[n-1])+len(b) > cap(s.chunks[n-1]) {
		size := minChunk
		if n > 0 {
			size = min(2*cap(s.chunks[n-1]), maxChunk)
		}
		if len(b) > size {
			size = len(b)
		}
		s.chunks = append(s.chunks, make([]byte, 0, size))
		n++
	}
	c := s.chunks[n-1]
	off := len(c)
	s.chunks[n-1] = append(c, b...)
	s.bytes += int64(len(b))
	return uint64(n-1)<<32 | uint64(off)
}

func (s *Set) grow() {
	table := make([]uint32, 2*len(s.table))
	tags := make([]uint8, len(table))
	touch(table, 4)
	touch(tags, 1)
	mask := uint64(len(table) - 1)
	for id := range s.lens {
		h := maphash.Bytes(s.seed, s.Get(uint32(id)))
		i := h & mask
		for table[i] != 0 {
			i = (i + 1) & mask
		}
		table[i] = uint32(id) + 1
		tags[i] = uint8(h >> 56)
	}
	s.table, s.tags, s.mask = table, tags, mask
}
