package csp

import (
	"math/rand/v2"
	"testing"
)

// TestInternAllWindows checks the pipeline of InternAll (windows of window
// strings, the slots of window w+2 and the records of window w+1
// prefetched while window w is looked up) at its edges against a map
// that numbers the strings in the order they are first met: empty
// batches, batches of fewer than one window, of exactly one, two and
// three windows and one string more or less, inline and side strings
// mixed in one batch (or all side, or all inline), duplicates inside a
// batch, and tables that start at their smallest size so that they grow
// in the middle of many batches (the prefetched addresses are then
// stale).
func TestInternAllWindows(t *testing.T) {
	var sizes []int
	for _, k := range []int{0, 1, 2, 3} {
		for _, d := range []int{-1, 0, 1} {
			if n := k*window + d; n >= 0 {
				sizes = append(sizes, n)
			}
		}
	}
	sizes = append(sizes, 0, window/2, 5*window+7)
	rng := rand.New(rand.NewPCG(5, 16))
	for _, width := range []int{-1, 5, 12, 18} {
		for _, mix := range []string{"inline", "side", "mixed"} {
			if width < 0 && mix != "side" {
				continue
			}
			s := newStore(width)
			want := map[string]uint32{}
			var enc []byte
			var ends []int
			var ids []uint32
			grown := 0
			for round := 0; round < 40; round++ {
				for _, n := range sizes {
					enc, ends = enc[:0], ends[:0]
					for range n {
						ln := width
						if mix == "side" || mix == "mixed" && rng.IntN(3) == 0 {
							ln = 1 + rng.IntN(30)
							if ln == width {
								ln++
							}
						}
						// Few distinct values: duplicates inside
						// and across batches.
						enc = append(enc, storeKey(uint64(rng.IntN(20*window*(round+1))), max(ln, 0))...)
						ends = append(ends, len(enc))
					}
					slots, side := s.slots, s.side.slotCount()
					ids = s.InternAll(enc, ends, ids[:0])
					if s.slots != slots || s.side.slotCount() != side {
						grown++
					}
					if len(ids) != n {
						t.Fatalf("width %d %s: %d ids for %d strings", width, mix, len(ids), n)
					}
					for k, id := range numberFirst(want, enc, ends) {
						if ids[k] != id {
							t.Fatalf("width %d %s, batch of %d: string %d got id %d, want %d", width, mix, n, k, ids[k], id)
						}
					}
				}
			}
			if s.Len() != len(want) {
				t.Fatalf("width %d %s: %d strings, want %d", width, mix, s.Len(), len(want))
			}
			for b, id := range want {
				if got := string(s.Get(id)); got != b {
					t.Fatalf("width %d %s: Get(%d) = %x, want %x", width, mix, id, got, b)
				}
			}
			if grown == 0 {
				t.Errorf("width %d %s: the tables never grew in a batch", width, mix)
			}
			t.Logf("width %d %s: %d strings, the tables grew in %d batches", width, mix, len(want), grown)
		}
	}
}
