package history

// memo is the visited set of the search: (set of linearized ops, model
// state) pairs. The set is identified by its Zobrist hash (maintained
// incrementally by the search) and the state; equality is decided on the
// bitset words, never on the hash alone. Bitsets live in one arena.
type memo struct {
	w      int      // words per bitset
	keys   []uint64 // mixed hash of entry j
	states []State
	sets   []uint64 // arena: entry j is sets[j*w : j*w+w]
	table  []uint32 // open addressing: 0 empty, else j+1
	mask   uint64
}

// newMemo sizes the table for about hint entries (it grows as needed).
func newMemo(words, hint int) *memo {
	size := 64
	for size < 2*hint {
		size <<= 1
	}
	return &memo{w: words, table: make([]uint32, size), mask: uint64(size - 1)}
}

func (m *memo) len() int { return len(m.states) }

func (m *memo) bytes() int64 {
	return int64(cap(m.keys))*8 + int64(cap(m.states))*4 + int64(cap(m.sets))*8 + int64(len(m.table))*4
}

func mixKey(h uint64, s State) uint64 {
	k := h ^ (uint64(s)+1)*0x9E3779B97F4A7C15
	k ^= k >> 31
	k *= 0xBF58476D1CE4E5B9
	k ^= k >> 29
	return k
}

// insert adds (set, s) with Zobrist hash h; it reports false if present.
func (m *memo) insert(h uint64, s State, set []uint64) bool {
	k := mixKey(h, s)
	i := k & m.mask
	for {
		t := m.table[i]
		if t == 0 {
			break
		}
		j := int(t - 1)
		if m.keys[j] == k && m.states[j] == s && equalWords(m.sets[j*m.w:j*m.w+m.w], set) {
			return false
		}
		i = (i + 1) & m.mask
	}
	j := len(m.states)
	m.keys = append(m.keys, k)
	m.states = append(m.states, s)
	m.sets = append(m.sets, set...)
	m.table[i] = uint32(j + 1)
	if uint64(len(m.states))*2 > m.mask {
		m.grow()
	}
	return true
}

func (m *memo) grow() {
	size := uint64(len(m.table)) * 2
	m.table = make([]uint32, size)
	m.mask = size - 1
	for j, k := range m.keys {
		i := k & m.mask
		for m.table[i] != 0 {
			i = (i + 1) & m.mask
		}
		m.table[i] = uint32(j + 1)
	}
}

func equalWords(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
