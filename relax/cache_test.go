package relax

import (
	"slices"
	"testing"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/quasar-verify/quasar/lts"
)

// TestWindowCacheLoss: the window expansions in the bounded cache may be
// evicted; the automaton must then be the same, state for state (ids are
// stable because recomputation finds its targets already interned).
func TestWindowCacheLoss(t *testing.T) {
	cfg := mustParse(t, "2 window")
	build := func(cache func(r *Relaxed)) map[[2]uint32][]lts.State {
		table := lts.NewEventTable()
		r := mustNew(t, queueSpec(table, 2, 2), cfg)
		cache(r)
		out := map[[2]uint32][]lts.State{}
		// Two passes: the second one hits the cache (or its losses).
		for range 2 {
			n := reachable(t, r, 1<<20)
			for s := range n {
				evs, _ := r.Enabled(lts.State(s), nil)
				for _, e := range evs {
					ts, _ := r.Step(lts.State(s), e, nil)
					k := [2]uint32{uint32(s), uint32(e)}
					if prev, ok := out[k]; ok && !slices.Equal(prev, ts) {
						t.Fatalf("state %d event %d: %v then %v", s, e, prev, ts)
					}
					out[k] = ts
				}
			}
		}
		return out
	}
	full := build(func(r *Relaxed) {})
	// No memo budget and no cache: every expansion recomputed.
	none := build(func(r *Relaxed) { r.memoBudget = 0; r.Close() })
	// No memo budget, the default cache.
	cached := build(func(r *Relaxed) { r.memoBudget = 0 })
	// No memo budget, a cache that evicts almost everything.
	tiny := build(func(r *Relaxed) {
		r.memoBudget = 0
		c, err := ristretto.NewCache(&ristretto.Config[uint64, []trans]{NumCounters: 100, MaxCost: 20, BufferItems: 64, IgnoreInternalCost: true})
		if err != nil {
			t.Fatal(err)
		}
		r.cache = c
		t.Cleanup(c.Close)
	})
	for _, other := range []map[[2]uint32][]lts.State{none, cached, tiny} {
		if len(other) != len(full) {
			t.Fatalf("%d (state, event) pairs, want %d", len(other), len(full))
		}
		for k, v := range full {
			if !slices.Equal(other[k], v) {
				t.Fatalf("state %d event %d: %v, want %v", k[0], k[1], other[k], v)
			}
		}
	}
}
