package linearize

import (
	"sync"

	"github.com/quasar-verify/quasar/internal/intern"

	"github.com/quasar-verify/quasar/lts"
)

// cacheTransitions bounds the transitions a generation of succCache holds
// (about 40 bytes each). A variable: the tests make generations tiny.
var cacheTransitions = 1 << 20

// cacheChunk is the size of the blocks the successors are kept in: a
// block is never moved or changed once written, so get returns slices of
// it without copying.
const cacheChunk = 1 << 12

// succCache keeps the transitions of the states expanded lately (Reduced's
// own, or the base's of one component), indexed by state (the ids are
// dense). It has two generations:
// when the current one is full it becomes the old one, and an entry found
// in the old one moves to the current one, so the states the search keeps
// meeting stay. It only saves work: what it returns is what would be
// computed again.
type succCache struct {
	mu       sync.Mutex
	cur, old cacheGen
}

type cacheGen struct {
	at     []uint32 // at[s]: 1 + index in ents; 0 not cached
	ents   []cacheSpan
	states []lts.State        // states[i]: the state of ents[i]
	trs    [][]lts.Transition // blocks
	mv     [][]lts.Move
	total  int // transitions held
	filled int // transitions in the last block
}

// cacheSpan locates a state's successors (no pointers: the garbage
// collector does not scan ents).
type cacheSpan struct {
	block, off, n uint32
	only          int32 // the component of the base's transitions (Reduced.comps)
}

// cacheEntry is a state's transitions, not to be modified, and their
// component.
type cacheEntry struct {
	trs  []lts.Transition
	mv   []lts.Move
	only int32
}

// recycle empties g for reuse as the next generation: its index is
// cleared where it is set, and kept with its spans' array, rather than
// allocated again for every generation (the index has an entry per
// state: in a large search, tens of MB a generation). Its blocks are
// dropped, not reused: get returns slices of them, which callers may
// still hold.
func (g *cacheGen) recycle() cacheGen {
	for _, s := range g.states {
		g.at[s] = 0
	}
	return cacheGen{at: g.at, ents: g.ents[:0], states: g.states[:0]}
}

func (g *cacheGen) lookup(s lts.State) (cacheEntry, bool) {
	if int(s) >= len(g.at) || g.at[s] == 0 {
		return cacheEntry{}, false
	}
	sp := g.ents[g.at[s]-1]
	end := sp.off + sp.n
	return cacheEntry{trs: g.trs[sp.block][sp.off:end:end], mv: g.mv[sp.block][sp.off:end:end], only: sp.only}, true
}

// get returns the cached successors of s, if any.
func (c *succCache) get(s lts.State) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.cur.lookup(s); ok {
		return e, true
	}
	if e, ok := c.old.lookup(s); ok {
		return c.add(s, e), true
	}
	return cacheEntry{}, false
}

// peek returns the cached successors of s from the current generation,
// if there, changing nothing (get moves an entry of the old generation).
func (c *succCache) peek(s lts.State) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.lookup(s)
}

// has reports whether s is cached (in either generation).
func (c *succCache) has(s lts.State) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int(s) < len(c.cur.at) && c.cur.at[s] != 0 || int(s) < len(c.old.at) && c.old.at[s] != 0
}

// put caches (a copy of) the successors of s and returns the copy.
func (c *succCache) put(s lts.State, trs []lts.Transition, mv []lts.Move, only int32) cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.cur.lookup(s); ok {
		return e
	}
	return c.add(s, cacheEntry{trs: trs, mv: mv, only: only})
}

// add copies e into the current generation, starting a new one when it
// is full.
func (c *succCache) add(s lts.State, e cacheEntry) cacheEntry {
	g := &c.cur
	if g.total+len(e.trs) > cacheTransitions {
		c.old, c.cur = c.cur, c.old.recycle()
	}
	if int(s) >= len(g.at) {
		g.at = intern.AppendDoubling(g.at, make([]uint32, int(s)+1-len(g.at)+len(g.at))...)
	}
	if len(g.trs) == 0 || cacheChunk-g.filled < len(e.trs) {
		n := max(cacheChunk, len(e.trs))
		g.trs, g.mv = append(g.trs, make([]lts.Transition, n)), append(g.mv, make([]lts.Move, n))
		g.filled = 0
	}
	b := len(g.trs) - 1
	copy(g.trs[b][g.filled:], e.trs)
	copy(g.mv[b][g.filled:], e.mv)
	sp := cacheSpan{block: uint32(b), off: uint32(g.filled), n: uint32(len(e.trs)), only: e.only}
	g.filled += len(e.trs)
	g.total += len(e.trs)
	g.ents = intern.AppendDoubling(g.ents, sp)
	g.states = intern.AppendDoubling(g.states, s)
	g.at[s] = uint32(len(g.ents))
	end := sp.off + sp.n
	return cacheEntry{trs: g.trs[b][sp.off:end:end], mv: g.mv[b][sp.off:end:end], only: e.only}
}
