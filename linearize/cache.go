package linearize

import (
	"sync"

	"github.com/quasar-verify/quasar/lts"
)

// cacheTransitions bounds the transitions succCache holds (about 40 bytes
// each); when it is full it starts afresh.
const cacheTransitions = 1 << 20

// succCache keeps the base's successors of the states expanded so far,
// indexed by state (the base's ids are dense). It only saves work: what
// it returns is what the base would.
type succCache struct {
	mu    sync.Mutex
	at    []uint32 // at[s]: 1 + index in spans; 0 not cached
	spans []span
	trs   []lts.Transition
	mv    []lts.Move
}

type span struct{ off, n uint32 }

// get appends the cached successors of s, if any.
func (c *succCache) get(s lts.State, buf []lts.Transition, mv []lts.Move) ([]lts.Transition, []lts.Move, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if int(s) >= len(c.at) || c.at[s] == 0 {
		return buf, mv, false
	}
	sp := c.spans[c.at[s]-1]
	buf = append(buf, c.trs[sp.off:sp.off+sp.n]...)
	mv = append(mv, c.mv[sp.off:sp.off+sp.n]...)
	return buf, mv, true
}

// put caches the successors of s.
func (c *succCache) put(s lts.State, trs []lts.Transition, mv []lts.Move) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.trs)+len(trs) > cacheTransitions {
		clear(c.at)
		c.spans, c.trs, c.mv = c.spans[:0], c.trs[:0], c.mv[:0]
	}
	if int(s) >= len(c.at) {
		c.at = append(c.at, make([]uint32, int(s)+1-len(c.at)+len(c.at)/2)...)
	}
	if c.at[s] != 0 {
		return
	}
	c.spans = append(c.spans, span{uint32(len(c.trs)), uint32(len(trs))})
	c.trs = append(c.trs, trs...)
	c.mv = append(c.mv, mv...)
	c.at[s] = uint32(len(c.spans))
}
