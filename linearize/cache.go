package linearize

import (
	"sync"

	"github.com/quasar-verify/quasar/lts"
)

// cacheTransitions bounds the transitions succCache holds (about 40 bytes
// each); when it is full it starts afresh.
const cacheTransitions = 1 << 20

// cacheChunk is the size of the blocks the successors are kept in: a
// block is never moved or changed once written, so get returns slices of
// it without copying.
const cacheChunk = 1 << 12

// succCache keeps the base's successors of the states expanded so far,
// indexed by state (the base's ids are dense). It only saves work: what
// it returns is what the base would.
type succCache struct {
	mu     sync.Mutex
	at     []uint32 // at[s]: 1 + index in ents; 0 not cached
	ents   []cacheSpan
	trs    [][]lts.Transition // blocks
	mv     [][]lts.Move
	total  int // transitions held
	filled int // transitions in the last block
}

// cacheSpan locates a state's successors (no pointers: the garbage
// collector does not scan ents).
type cacheSpan struct {
	block, off, n uint32
	only          int32 // Reduced.responder of the successors
}

// cacheEntry is a state's successors, not to be modified, and their
// responder.
type cacheEntry struct {
	trs  []lts.Transition
	mv   []lts.Move
	only int32
}

func (c *succCache) entry(sp cacheSpan) cacheEntry {
	end := sp.off + sp.n
	return cacheEntry{trs: c.trs[sp.block][sp.off:end:end], mv: c.mv[sp.block][sp.off:end:end], only: sp.only}
}

// get returns the cached successors of s, if any.
func (c *succCache) get(s lts.State) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if int(s) >= len(c.at) || c.at[s] == 0 {
		return cacheEntry{}, false
	}
	return c.entry(c.ents[c.at[s]-1]), true
}

// put caches (a copy of) the successors of s and returns the copy.
func (c *succCache) put(s lts.State, trs []lts.Transition, mv []lts.Move, only int32) cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total+len(trs) > cacheTransitions {
		clear(c.at)
		c.ents, c.trs, c.mv, c.total = c.ents[:0], nil, nil, 0
	}
	if int(s) >= len(c.at) {
		c.at = append(c.at, make([]uint32, int(s)+1-len(c.at)+len(c.at))...)
	}
	if c.at[s] != 0 {
		return c.entry(c.ents[c.at[s]-1])
	}
	if len(c.trs) == 0 || cacheChunk-c.filled < len(trs) {
		n := max(cacheChunk, len(trs))
		c.trs, c.mv = append(c.trs, make([]lts.Transition, n)), append(c.mv, make([]lts.Move, n))
		c.filled = 0
	}
	b := len(c.trs) - 1
	copy(c.trs[b][c.filled:], trs)
	copy(c.mv[b][c.filled:], mv)
	sp := cacheSpan{block: uint32(b), off: uint32(c.filled), n: uint32(len(trs)), only: only}
	c.filled += len(trs)
	c.total += len(trs)
	c.ents = append(c.ents, sp)
	c.at[s] = uint32(len(c.ents))
	return c.entry(sp)
}
