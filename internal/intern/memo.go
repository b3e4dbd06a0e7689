package intern

// Memo maps 64-bit keys to values: a Pairs set (open addressing, the key
// its own fingerprint) beside a slice of values by id. It replaces a Go map
// where lookups are hot (the memos of the refinement search and of
// linearize.Wrapper): a map spent much of its time hashing and probing.
//
// The zero value is not usable; call NewMemo. Not safe for concurrent use.
type Memo[V any] struct {
	keys *Pairs
	vals []V
}

// NewMemo returns an empty memo sized for about n keys.
func NewMemo[V any](n int) Memo[V] { return Memo[V]{keys: NewPairs(n)} }

// Get returns the value of k, if any.
func (m *Memo[V]) Get(k uint64) (V, bool) {
	if id, ok := m.keys.Lookup(k); ok {
		return m.vals[id], true
	}
	var zero V
	return zero, false
}

// Put sets the value of k.
func (m *Memo[V]) Put(k uint64, v V) {
	id, added := m.keys.Intern(k)
	if added {
		m.vals = append(m.vals, v)
		return
	}
	m.vals[id] = v
}

// Len is the number of keys.
func (m *Memo[V]) Len() int { return m.keys.Len() }
