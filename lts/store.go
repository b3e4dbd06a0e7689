package lts

import (
	"encoding/binary"
	"hash/maphash"
	"math"
)

// store is the visited-state set of a Proc: an arena-backed hash set of
// byte strings with dense uint32 ids, in the manner of internal/intern.Set
// but tuned for the search, which is bound by memory latency:
//
//   - a table entry holds 26 bits of the string's hash (a fingerprint) and
//     the string's arena offset, so a probe compares bytes only when the
//     fingerprints agree (with millions of states of equal length, comparing
//     on every probe dominated the search);
//   - the home slot is the hash rotated so that its low bits are the
//     fingerprint: up to 2^26 slots, growing the table needs no bytes;
//   - the arena record is [id uint32][uvarint length][bytes], so a lookup
//     touches the table and one arena record, nothing else (the id -> offset
//     index is used only by Get).
//
// Arena chunks are 4 MiB and hold no pointers. Not safe for concurrent use:
// Proc guards it with a mutex.
type store struct {
	sink   uint64 // keeps the warming loads of InternAll alive
	hashes []uint64
	seed   maphash.Seed
	chunks [][]byte
	refs   [][]uint64 // id -> arena offset, in blocks of refBlock ids
	n      int        // ids assigned
	table  []uint64   // 0 = empty, else fingerprint<<offBits | (offset+1)
	mask   uint64
}

const (
	storeChunkBits = 22
	storeChunk     = 1 << storeChunkBits
	offBits        = 38 // 256 GiB of arena
	offMask        = 1<<offBits - 1
	fpBits         = 64 - offBits
	// The id index grows by blocks, never by copying (append's copies and
	// the page faults of each fresh array were ~8% of a big exploration).
	refBits  = 13
	refBlock = 1 << refBits
)

// home is the slot index bits of hash h: the fingerprint, then more hash.
func home(h uint64) uint64 { return h>>offBits | h<<fpBits }

func newStore() *store {
	return &store{seed: maphash.MakeSeed(), table: make([]uint64, 1<<12), mask: 1<<12 - 1}
}

func (s *store) Len() int { return s.n }

// Bytes is the memory held: arena chunks, the id index and the table.
func (s *store) Bytes() int64 {
	return int64(len(s.chunks))*storeChunk + int64(len(s.refs))*refBlock*8 + int64(len(s.table))*8
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
		return binary.LittleEndian.Uint32(c[o:]), string(c[o+5:o+5+int(n)]) == string(b)
	}
	id, rb := s.record(off)
	return id, string(rb) == string(b)
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
	for i := home(h) & s.mask; ; i = (i + 1) & s.mask {
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
		s.chunks = append(s.chunks, make([]byte, 0, storeChunk))
		n++
	}
	c := s.chunks[n-1]
	off := len(c)
	c = binary.LittleEndian.AppendUint32(c, id)
	c = binary.AppendUvarint(c, uint64(len(b)))
	s.chunks[n-1] = append(c, b...)
	return uint64(n-1)<<storeChunkBits | uint64(off)
}

// grow doubles the table. Up to 2^26 slots the home slot is the
// fingerprint's low bits, so no string is read; beyond, strings are
// rehashed.
func (s *store) grow() {
	table := make([]uint64, 2*len(s.table))
	mask := uint64(len(table) - 1)
	for _, v := range s.table {
		if v == 0 {
			continue
		}
		var i uint64
		if mask < 1<<fpBits {
			i = v >> offBits & mask
		} else {
			_, b := s.record(v&offMask - 1)
			i = home(maphash.Bytes(s.seed, b)) & mask
		}
		for table[i] != 0 {
			i = (i + 1) & mask
		}
		table[i] = v
	}
	s.table, s.mask = table, mask
}

// InternAll interns the strings enc[ends[i-1]:ends[i]] into ids, like
// Intern on each in order. It first touches the table slots of all of them,
// then the arena records their fingerprints point to, so that the cache
// misses of the batch overlap (the search is bound by memory latency);
// only then does it run the ordinary lookups, which find the lines cached.
func (s *store) InternAll(enc []byte, ends []int, ids []uint32) []uint32 {
	s.hashes = s.hashes[:0]
	var sink uint64
	start := 0
	for _, end := range ends {
		s.hashes = append(s.hashes, maphash.Bytes(s.seed, enc[start:end]))
		start = end
	}
	// A tight loop of independent loads: their misses overlap.
	table, mask := s.table, s.mask
	for _, h := range s.hashes {
		sink += table[home(h)&mask]
	}
	start = 0
	for k, h := range s.hashes {
		end := ends[k]
		n := uint64(end - start)
		start = end
		fp := h >> offBits
		for i := home(h) & mask; ; i = (i + 1) & mask {
			v := table[i]
			if v == 0 {
				break
			}
			if v>>offBits == fp {
				// Touch the record's first and (if it is as long as b)
				// last byte: a record often straddles two cache lines.
				off := v&offMask - 1
				c := s.chunks[off>>storeChunkBits]
				o := off & (storeChunk - 1)
				sink += uint64(c[o])
				if last := o + 4 + n; last < uint64(len(c)) {
					sink += uint64(c[last])
				}
				break
			}
		}
	}
	s.sink += sink
	start = 0
	for k, end := range ends {
		id, _ := s.internHashed(enc[start:end], s.hashes[k])
		start = end
		ids = append(ids, id)
	}
	return ids
}

// internHashed is Intern with the hash of b already computed.
func (s *store) internHashed(b []byte, h uint64) (uint32, bool) {
	fp := h >> offBits
	table, mask := s.table, s.mask
	i := home(h) & mask
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
		s.refs = append(s.refs, make([]uint64, refBlock))
	}
	s.refs[id>>refBits][id&(refBlock-1)] = off
	s.n++
	s.table[i] = fp<<offBits | (off + 1)
	if uint64(s.n)*4 > uint64(len(s.table))*3 {
		s.grow()
	}
	return id, true
}
