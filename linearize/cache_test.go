package linearize

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// TestSuccCacheGenerations puts and gets the successors of random states
// through many generation switches (generations of a few transitions):
// what the cache returns for a state must be what was put for it, and a
// state put in the current generation must be found.
func TestSuccCacheGenerations(t *testing.T) {
	defer func(n int) { cacheTransitions = n }(cacheTransitions)
	for _, limit := range []int{1, 3, 16, 100} {
		cacheTransitions = limit
		r := rand.New(rand.NewPCG(uint64(limit), 1))
		var c succCache
		want := map[lts.State][]lts.Transition{}
		for range 20000 {
			s := lts.State(r.IntN(500))
			if e, ok := c.get(s); ok {
				if w, seen := want[s]; !seen || !slices.Equal(e.trs, w) || len(e.mv) != len(w) {
					t.Fatalf("limit %d: state %d: got %v, put %v", limit, s, e.trs, w)
				}
				continue
			}
			trs := want[s]
			if trs == nil {
				trs = make([]lts.Transition, r.IntN(4))
				for i := range trs {
					trs[i] = lts.Transition{Event: lts.Event(r.IntN(9)), Target: lts.State(r.IntN(500))}
				}
				want[s] = trs
			}
			e := c.put(s, trs, make([]lts.Move, len(trs)), 0)
			if !slices.Equal(e.trs, trs) {
				t.Fatalf("limit %d: put %d returned %v, want %v", limit, s, e.trs, trs)
			}
			if got, ok := c.cur.lookup(s); !ok || !slices.Equal(got.trs, trs) {
				t.Fatalf("limit %d: state %d not in the current generation after put", limit, s)
			}
		}
	}
}
