package lts

import (
	"slices"
	"testing"
)

// TestPerm checks the renamings against their definitions on every
// permutation of four threads.
func TestPerm(t *testing.T) {
	all := permutations(0, 3)
	if len(all) != 24 || all[0] != 0 {
		t.Fatalf("%d permutations of 4 threads, first %x", len(all), all[0])
	}
	for _, p := range all {
		for _, q := range all {
			pq := p.Then(q)
			for i := range 4 {
				if pq.At(i) != q.At(p.At(i)) {
					t.Fatalf("(%x then %x)(%d) = %d, want %d", p, q, i, pq.At(i), q.At(p.At(i)))
				}
			}
		}
		if p.Then(p.Inverse()) != 0 || p.Inverse().Then(p) != 0 {
			t.Fatalf("%x: inverse %x does not undo it", p, p.Inverse())
		}
	}
	if img := []int{2, 0, 1}; PermOf(img).At(0) != 2 || PermOf(img).At(2) != 1 || PermOf(img).At(5) != 5 {
		t.Fatalf("PermOf(%v) = %x", img, PermOf(img))
	}
}

// TestTiedPerms: the renamings of runs of tied threads are the products
// of the runs' symmetric groups.
func TestTiedPerms(t *testing.T) {
	for _, c := range []struct {
		ties  uint64
		limit int
		n     int // number of renamings, 0: over the limit
	}{
		{0, 24, 1},
		{1, 24, 2},       // threads 0, 1
		{0b11, 24, 6},    // 0, 1, 2
		{0b101, 24, 4},   // {0, 1} and {2, 3}
		{0b111, 24, 24},  // 0..3
		{0b1111, 24, 0},  // 0..4: 120 > 24
		{0b1010, 100, 4}, // {1, 2} and {3, 4}
	} {
		ps := TiedPerms(c.ties, c.limit)
		if len(ps) != c.n || (c.n > 0 && ps[0] != 0) {
			t.Errorf("ties %b: %d renamings, want %d", c.ties, len(ps), c.n)
			continue
		}
		// Each renaming keeps every thread within its run.
		for _, p := range ps {
			for i := range MaxPermThreads {
				j := p.At(i)
				lo, hi := min(i, j), max(i, j)
				for k := lo; k < hi; k++ {
					if c.ties&(1<<k) == 0 {
						t.Fatalf("ties %b: %x moves %d to %d across an untied boundary", c.ties, p, i, j)
					}
				}
			}
		}
		sorted := slices.Clone(ps)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(ps) {
			t.Errorf("ties %b: repeated renamings", c.ties)
		}
	}
}
