package history

// memo is the visited set of the search: (set of linearized ops, model
// state) pairs. A set is stored as a compact key (see search.key): the
// index m of the first completed op not linearized, the bitset words of the
// window of ops that may be linearized before m completes, and the bits of
// the Info ops. The key is a function of the set and determines it, so
// equal keys mean equal sets. A set is found by its Zobrist hash (kept
// incrementally by the search) and the state; equality is decided on the
// key and the state, never on the hash alone. Keys live in one arena.
type memo struct {
	entries []memoEntry
	words   []uint64
	table   []uint32 // open addressing: 0 empty, else j+1
	mask    uint64
}

type memoEntry struct {
	hash  uint64 // mixed hash
	meta  uint64 // m<<32 | number of key words
	state State
	off   uint32 // the key's words: words[off : off+len]
}

// newMemo sizes the table for about hint entries (it grows as needed).
func newMemo(hint int) *memo {
	size := 16 // grows as needed; small checks stay small
	for size < 2*hint {
		size <<= 1
	}
	return &memo{table: make([]uint32, size), mask: uint64(size - 1), entries: make([]memoEntry, 0, hint), words: make([]uint64, 0, 2*hint)}
}

func (m *memo) len() int { return len(m.entries) }

func mixKey(h uint64, s State) uint64 {
	k := h ^ (uint64(s)+1)*0x9E3779B97F4A7C15
	k ^= k >> 31
	k *= 0xBF58476D1CE4E5B9
	k ^= k >> 29
	return k
}

// insert adds (key, s) with Zobrist hash h; it reports false if present.
func (m *memo) insert(h uint64, s State, meta uint64, key []uint64) bool {
	k := mixKey(h, s)
	i := k & m.mask
	for {
		t := m.table[i]
		if t == 0 {
			break
		}
		e := &m.entries[t-1]
		if e.hash == k && e.state == s && e.meta == meta {
			o := int(e.off)
			if equalWords(m.words[o:o+len(key)], key) {
				return false
			}
		}
		i = (i + 1) & m.mask
	}
	j := len(m.entries)
	m.entries = append(m.entries, memoEntry{hash: k, meta: meta, state: s, off: uint32(len(m.words))})
	m.words = append(m.words, key...)
	m.table[i] = uint32(j + 1)
	if uint64(len(m.entries))*2 > m.mask {
		m.grow()
	}
	return true
}

// full reports whether the arena cannot take another key of n words
// (offsets are 32-bit): the search then stops with a limit.
func (m *memo) full(n int) bool { return uint64(len(m.words))+uint64(n) >= 1<<32-1 }

func (m *memo) grow() {
	size := uint64(len(m.table)) * 2
	m.table = make([]uint32, size)
	m.mask = size - 1
	for j := range m.entries {
		i := m.entries[j].hash & m.mask
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
