package intern

// Pairs interns 64-bit keys (a product pair packed as two uint32 halves)
// to dense uint32 ids. It is the visited set of the refinement search,
// where the generic Set would spend its time hashing and comparing 8-byte
// strings: here the key is its own fingerprint, compared in one
// instruction. A table slot holds the key beside its id, so a probe reads
// one slot and no other memory: the search is bound by the cache misses of
// these probes, and a slot holding only the id cost a second miss (on the
// id -> key array) per probe.
//
// Not safe for concurrent use.
type Pairs struct {
	keys  []uint64 // id -> key
	table []slot   // open addressing
	shift uint     // 64 - log2(len(table)), for Fibonacci hashing
	sink  uint32   // Prefetch's loads go here, so they are not optimised away
}

// slot is a table entry: the key in two halves (12 bytes, not 16) and
// id+1 (0 = empty).
type slot struct {
	lo, hi, id uint32
}

func (s *slot) key() uint64 { return uint64(s.hi)<<32 | uint64(s.lo) }

// NewPairs returns an empty set sized for about n keys.
func NewPairs(n int) *Pairs {
	bits := uint(10)
	for 1<<bits < 2*n {
		bits++
	}
	return &Pairs{table: make([]slot, 1<<bits), shift: 64 - bits}
}

// Len is the number of keys interned.
func (p *Pairs) Len() int { return len(p.keys) }

// Bytes is the memory held by the set.
func (p *Pairs) Bytes() int64 { return int64(cap(p.keys))*8 + int64(len(p.table))*12 }

// Get returns the key of id.
func (p *Pairs) Get(id uint32) uint64 { return p.keys[id] }

func (p *Pairs) home(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> p.shift }

// Prefetch reads the home slots of keys, so that the cache misses of
// the Lookup or Intern calls that follow (for the same keys, before the
// table grows) overlap here instead of coming one at a time.
func (p *Pairs) Prefetch(keys []uint64) {
	var sum uint32
	for _, k := range keys {
		sum += p.table[p.home(k)].id
	}
	p.sink += sum
}

// Lookup returns the id of k and whether it is present.
func (p *Pairs) Lookup(k uint64) (uint32, bool) {
	mask := uint64(len(p.table) - 1)
	for i := p.home(k); ; i = (i + 1) & mask {
		sl := &p.table[i]
		if sl.id == 0 {
			return 0, false
		}
		if sl.key() == k {
			return sl.id - 1, true
		}
	}
}

// Intern returns the id of k, adding it if new; added reports whether it
// was new. Ids are dense and assigned in insertion order.
func (p *Pairs) Intern(k uint64) (id uint32, added bool) {
	mask := uint64(len(p.table) - 1)
	i := p.home(k)
	for ; ; i = (i + 1) & mask {
		sl := &p.table[i]
		if sl.id == 0 {
			break
		}
		if sl.key() == k {
			return sl.id - 1, false
		}
	}
	if uint64(len(p.keys)) >= 1<<32-2 {
		panic("intern: more than 2^32-2 pairs")
	}
	id = uint32(len(p.keys))
	p.keys = append(p.keys, k)
	p.table[i] = slot{lo: uint32(k), hi: uint32(k >> 32), id: id + 1}
	if len(p.keys)*4 > len(p.table)*3 {
		p.grow()
	}
	return id, true
}

func (p *Pairs) grow() {
	old := p.table
	p.table = make([]slot, 2*len(old))
	p.shift--
	mask := uint64(len(p.table) - 1)
	for _, sl := range old {
		if sl.id == 0 {
			continue
		}
		i := p.home(sl.key())
		for p.table[i].id != 0 {
			i = (i + 1) & mask
		}
		p.table[i] = sl
	}
}
