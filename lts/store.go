package lts

import (
	"encoding/binary"
	"hash/maphash"
	"math"
)

// store is the visited-state set of a Proc: an arena-backed hash set of
// byte strings with dense uint32 ids, like internal/intern.Set, but whose
// table keeps 32 bits of each string's hash next to its id, so a probe
// compares bytes only when the fingerprints agree (with millions of states
// of equal length, comparing bytes on every probe dominated the search).
// Each string is stored with a uvarint length prefix in 4 MiB chunks.
// Not safe for concurrent use: Proc guards it with a mutex.
type store struct {
	seed   maphash.Seed
	chunks [][]byte
	refs   []uint64 // id -> chunk<<32 | offset
	table  []uint64 // 0 = empty, else fingerprint<<32 | (id+1)
	mask   uint64
}

const storeChunk = 1 << 22

func newStore() *store {
	return &store{seed: maphash.MakeSeed(), table: make([]uint64, 1<<12), mask: 1<<12 - 1}
}

func (s *store) Len() int { return len(s.refs) }

// Bytes is the memory held: arena chunks, the id index and the table.
func (s *store) Bytes() int64 {
	return int64(len(s.chunks))*storeChunk + int64(cap(s.refs))*8 + int64(len(s.table))*8
}

// Get returns the bytes of id (valid until the next Intern; callers copy).
func (s *store) Get(id uint32) []byte {
	r := s.refs[id]
	c := s.chunks[r>>32]
	off := uint32(r)
	n, k := binary.Uvarint(c[off:])
	start := int(off) + k
	return c[start : start+int(n) : start+int(n)]
}

func (s *store) equal(id uint32, b []byte) bool {
	return string(s.Get(id)) == string(b)
}

// Lookup returns the id of b if present.
func (s *store) Lookup(b []byte) (uint32, bool) {
	fp := maphash.Bytes(s.seed, b) >> 32
	for i := fp & s.mask; ; i = (i + 1) & s.mask {
		v := s.table[i]
		if v == 0 {
			return 0, false
		}
		if v>>32 == fp && s.equal(uint32(v)-1, b) {
			return uint32(v) - 1, true
		}
	}
}

// Intern returns the id of b, adding it if new.
func (s *store) Intern(b []byte) (uint32, bool) {
	fp := maphash.Bytes(s.seed, b) >> 32
	i := fp & s.mask
	for ; ; i = (i + 1) & s.mask {
		v := s.table[i]
		if v == 0 {
			break
		}
		if v>>32 == fp && s.equal(uint32(v)-1, b) {
			return uint32(v) - 1, false
		}
	}
	if len(s.refs) >= math.MaxUint32-1 {
		panic("lts: more than 2^32-2 states")
	}
	id := uint32(len(s.refs))
	s.refs = append(s.refs, s.put(b))
	s.table[i] = fp<<32 | uint64(id+1)
	if uint64(len(s.refs))*4 > uint64(len(s.table))*3 {
		s.grow()
	}
	return id, true
}

func (s *store) put(b []byte) uint64 {
	need := len(b) + binary.MaxVarintLen64
	n := len(s.chunks)
	if n == 0 || len(s.chunks[n-1])+need > cap(s.chunks[n-1]) {
		s.chunks = append(s.chunks, make([]byte, 0, max(storeChunk, need)))
		n++
	}
	c := s.chunks[n-1]
	off := len(c)
	c = binary.AppendUvarint(c, uint64(len(b)))
	s.chunks[n-1] = append(c, b...)
	return uint64(n-1)<<32 | uint64(off)
}

// grow doubles the table. The home slot of a string is its 32-bit
// fingerprint modulo the table size, so rehashing needs no bytes; strings
// that share a home slot differ in the fingerprint's higher bits.
func (s *store) grow() {
	if len(s.table) >= 1<<32 {
		panic("lts: state table full")
	}
	table := make([]uint64, 2*len(s.table))
	mask := uint64(len(table) - 1)
	for _, v := range s.table {
		if v == 0 {
			continue
		}
		i := (v >> 32) & mask
		for table[i] != 0 {
			i = (i + 1) & mask
		}
		table[i] = v
	}
	s.table, s.mask = table, mask
}
