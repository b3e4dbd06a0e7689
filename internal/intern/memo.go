package intern

import "unsafe"

// Memo maps 64-bit keys to values in one open-addressing table whose slots
// hold the key beside its value, so a lookup reads one slot and no other
// memory (a Go map, or a Pairs set beside a slice of values, costs a
// second cache miss). It replaces Go maps where lookups are hot and the
// tables outgrow the caches: the memos of the refinement search and of
// linearize.Wrapper.
//
// A slot is the key and the value, nothing else: a slot holds key k as
// k ^ memoFlip, so that the zero slot is empty and no used-flag widens
// the slot (a value of 8 bytes makes a slot of 16 bytes, not 24); the one
// key whose flipped form is zero, memoFlip itself, is kept beside the
// table.
//
// The zero value is not usable; call NewMemo. Not safe for concurrent use.
type Memo[V any] struct {
	table []memoSlot[V]
	n     int
	shift uint // 64 - log2(len(table)), for Fibonacci hashing
	// The key memoFlip, if put.
	hasFlip bool
	flipVal V
}

type memoSlot[V any] struct {
	key uint64 // the key ^ memoFlip; 0: empty
	val V
}

// memoFlip is the key a slot cannot hold (any constant will do; this one
// is no key the callers' packings make often).
const memoFlip = 0xA5A5_5A5A_C3C3_3C3C

// NewMemo returns an empty memo sized for about n keys.
func NewMemo[V any](n int) Memo[V] {
	bits := uint(6)
	for 1<<bits < 2*n {
		bits++
	}
	table := make([]memoSlot[V], 1<<bits)
	touch(table, int(unsafe.Sizeof(table[0])))
	return Memo[V]{table: table, shift: 64 - bits}
}

func (m *Memo[V]) home(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> m.shift }

// Get returns the value of k, if any.
func (m *Memo[V]) Get(k uint64) (V, bool) {
	f := k ^ memoFlip
	if f == 0 {
		return m.flipVal, m.hasFlip
	}
	mask := uint64(len(m.table) - 1)
	for i := m.home(k); ; i = (i + 1) & mask {
		sl := &m.table[i]
		if sl.key == f {
			return sl.val, true
		}
		if sl.key == 0 {
			var zero V
			return zero, false
		}
	}
}

// Put sets the value of k.
func (m *Memo[V]) Put(k uint64, v V) {
	f := k ^ memoFlip
	if f == 0 {
		if !m.hasFlip {
			m.n++
		}
		m.hasFlip, m.flipVal = true, v
		return
	}
	mask := uint64(len(m.table) - 1)
	i := m.home(k)
	for ; m.table[i].key != 0; i = (i + 1) & mask {
		if m.table[i].key == f {
			m.table[i].val = v
			return
		}
	}
	m.table[i] = memoSlot[V]{key: f, val: v}
	if m.n++; m.n*4 > len(m.table)*3 {
		m.grow()
	}
}

func (m *Memo[V]) grow() {
	old := m.table
	m.table = make([]memoSlot[V], 2*len(old))
	touch(m.table, int(unsafe.Sizeof(m.table[0])))
	m.shift--
	mask := uint64(len(m.table) - 1)
	for _, sl := range old {
		if sl.key == 0 {
			continue
		}
		i := m.home(sl.key ^ memoFlip)
		for m.table[i].key != 0 {
			i = (i + 1) & mask
		}
		m.table[i] = sl
	}
}

// Len is the number of keys.
func (m *Memo[V]) Len() int { return m.n }

// AppendSlot appends to addrs the address of the slot where a lookup of k
// starts (for Prefetch: a caller that knows the keys it is about to look
// up loads their slots together, so that their cache misses overlap). It
// reads nothing but the table's header.
func (m *Memo[V]) AppendSlot(addrs []uintptr, k uint64) []uintptr {
	return append(addrs, uintptr(unsafe.Pointer(&m.table[m.home(k)])))
}

// Prefetch asks the CPU to load the cache lines at addrs (AppendSlot's)
// without waiting for them. It changes no memory and no result: a line
// already evicted when its lookup comes is loaded again.
func Prefetch(addrs []uintptr) {
	if len(addrs) > 0 {
		prefetch(addrs)
	}
}
