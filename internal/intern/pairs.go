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
// A set made by NewDensePairs keeps, for each high half h, the first key
// interned with that high half in a dense array indexed by h (first), and
// only the others in the table: for keys whose high halves are small dense
// ids (a product pair's impl state), and where most high halves come with
// one low half (a deterministic specification pairs each impl state with
// one macrostate), a probe is then one array read. Invariant: first[h] is
// set whenever some key of high half h is interned, and a key is in the
// table only if first[h] holds another key.
//
// Not safe for concurrent use.
type Pairs struct {
	keys  Vec[uint64] // id -> key
	table []slot      // open addressing
	shift uint        // 64 - log2(len(table)), for Fibonacci hashing
	sink  uint32      // Prefetch's loads go here, so they are not optimised away

	dense   bool
	first   []uint64 // dense only: first[h] = (id+1)<<32 | low half of h's first key, 0 none
	inTable int      // keys in the table
	hint    int      // dense only: the size for the table when first needed
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
	table := make([]slot, 1<<bits)
	touch(table, 12)
	return &Pairs{table: table, shift: 64 - bits}
}

// NewDensePairs returns an empty set that keeps the first key of each high
// half in a dense array (see Pairs); the high halves should be dense ids:
// the array is as long as the largest one (a high half far beyond the keys
// interned, see denseSlack, makes the set move its keys to the table and
// go on as a NewPairs set). The table is allocated, sized for about n keys,
// when a second key of some high half comes.
func NewDensePairs(n int) *Pairs {
	return &Pairs{dense: true, hint: n}
}

// Len is the number of keys interned.
func (p *Pairs) Len() int { return p.keys.Len() }

// Bytes is the memory held by the set.
func (p *Pairs) Bytes() int64 {
	return p.keys.Bytes(8) + int64(len(p.table))*12 + int64(cap(p.first))*8
}

// Get returns the key of id.
func (p *Pairs) Get(id uint32) uint64 { return p.keys.At(int(id)) }

func (p *Pairs) home(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> p.shift }

// Prefetch reads the home slots of keys, so that the cache misses of
// the Lookup or Intern calls that follow (for the same keys, before the
// table grows) overlap here instead of coming one at a time.
func (p *Pairs) Prefetch(keys []uint64) {
	var sum uint32
	if p.dense {
		n := uint64(len(p.first))
		for _, k := range keys {
			if h := k >> 32; h < n {
				sum += uint32(p.first[h])
			}
		}
		if p.table == nil {
			p.sink += sum
			return
		}
	}
	for _, k := range keys {
		sum += p.table[p.home(k)].id
	}
	p.sink += sum
}

// Lookup returns the id of k and whether it is present.
func (p *Pairs) Lookup(k uint64) (uint32, bool) {
	if p.dense {
		h := k >> 32
		if h >= uint64(len(p.first)) {
			return 0, false
		}
		e := p.first[h]
		if e == 0 {
			return 0, false
		}
		if uint32(e) == uint32(k) {
			return uint32(e>>32) - 1, true
		}
		if p.table == nil {
			return 0, false
		}
	}
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
	if p.dense {
		h := k >> 32
		if h >= uint64(len(p.first)) {
			if h >= denseSlack+4*uint64(p.keys.Len()) {
				// Not dense ids after all: keep every key in the table.
				p.undense()
				return p.Intern(k)
			}
			p.growFirst(h)
		}
		e := p.first[h]
		if e == 0 {
			id = p.newID(k)
			p.first[h] = uint64(id+1)<<32 | k&0xffffffff
			return id, true
		}
		if uint32(e) == uint32(k) {
			return uint32(e>>32) - 1, false
		}
		p.makeTable(p.hint)
	}
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
	id = p.newID(k)
	p.table[i] = slot{lo: uint32(k), hi: uint32(k >> 32), id: id + 1}
	if p.inTable++; p.inTable*4 > len(p.table)*3 {
		p.grow()
	}
	return id, true
}

// newID appends k to the keys and returns its id.
func (p *Pairs) newID(k uint64) uint32 {
	if uint64(p.keys.Len()) >= 1<<32-2 {
		panic("intern: more than 2^32-2 pairs")
	}
	id := uint32(p.keys.Len())
	p.keys.Append(k)
	return id
}

// makeTable makes the table, sized for about n keys, if there is none.
func (p *Pairs) makeTable(n int) {
	if p.table != nil {
		return
	}
	bits := uint(10)
	for 1<<bits < 2*n {
		bits++
	}
	p.table, p.shift = make([]slot, 1<<bits), 64-bits
	touch(p.table, 12)
}

// denseSlack bounds how far beyond 4 times the keys interned a high half
// may lie for the dense array to grow to it (a dense set given ids that
// are not dense would otherwise allocate 8 bytes for every id below the
// largest).
const denseSlack = 1 << 20

// undense moves the keys of the dense array into the table and makes the
// set an ordinary one.
func (p *Pairs) undense() {
	p.makeTable(max(p.hint, p.keys.Len()))
	for h, e := range p.first {
		if e == 0 {
			continue
		}
		sl := slot{lo: uint32(e), hi: uint32(h), id: uint32(e >> 32)}
		mask := uint64(len(p.table) - 1)
		i := p.home(sl.key())
		for p.table[i].id != 0 {
			i = (i + 1) & mask
		}
		p.table[i] = sl
		if p.inTable++; p.inTable*4 > len(p.table)*3 {
			p.grow()
		}
	}
	p.first, p.dense = nil, false
}

// growFirst extends first to cover the high half h.
func (p *Pairs) growFirst(h uint64) {
	n := max(h+1, 2*uint64(len(p.first)), 1024)
	first := make([]uint64, n)
	touch(first[len(p.first):], 8)
	copy(first, p.first)
	p.first = first
}

func (p *Pairs) grow() {
	old := p.table
	p.table = make([]slot, 2*len(old))
	touch(p.table, 12)
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
