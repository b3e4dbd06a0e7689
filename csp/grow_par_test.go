package csp

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestGrowSidePartitions checks the parallel grow of the side table
// (growSide, growSidePart) on tables built by hand: entries whose homes
// (the top bits of their fingerprints) crowd the last slots of each
// partition's range of the new table, so that probe runs leave a range
// (an entry then waits in its partition's left list and is placed after
// the partitions). After the grow every entry must be found by a probe
// from its home that meets no empty slot, and the table must hold
// exactly the old entries. Natural hashes reach that case too rarely
// for the search tests to meet it.
func TestGrowSidePartitions(t *testing.T) {
	left := 0
	for trial := range 300 {
		rng := rand.New(rand.NewPCG(uint64(trial), 11))
		bits := uint(3 + rng.IntN(6)) // the old table: 8 to 256 slots
		pbits := uint(rng.IntN(4))    // 1 to 8 partitions
		if pbits > bits {
			pbits = bits
		}
		nb := bits + 1
		d := &sideSet{table: make([]uint64, 1<<bits), mask: 1<<bits - 1, shift: 64 - bits}
		// Up to the load of 3/4, at which the sequential set doubles.
		n := rng.IntN(3<<bits/4 + 1)
		want := map[uint64]bool{}
		part := uint64(1) << (nb - pbits) // new slots per partition
		for k := range n {
			var home uint64 // in the new table
			if rng.IntN(4) > 0 {
				// Near the end of a partition's range.
				q := rng.Uint64N(1 << pbits)
				home = (q+1)*part - 1 - rng.Uint64N(min(part, 3))
			} else {
				home = rng.Uint64N(1 << nb)
			}
			fp := home<<(64-offBits-nb) | rng.Uint64N(1<<(64-offBits-nb))
			v := fp<<offBits | uint64(k+1)
			want[v] = true
			i := d.homeOf(v, d.shift)
			for d.table[i] != 0 {
				i = (i + 1) & d.mask
			}
			d.table[i] = v
		}
		W := 1 + rng.IntN(1<<pbits)
		r := &parSearch{s: &store{side: *d}, W: W, P: 1 << pbits, pbits: pbits, parts: make([]parPart, 1<<pbits), cpu: make([]int64, W)}
		r.growSide(nb)
		r.close()
		for q := range r.parts {
			left += len(r.parts[q].left)
		}
		g := &r.s.side
		if len(g.table) != 1<<nb || g.shift != 64-nb || g.mask != 1<<nb-1 {
			t.Fatalf("trial %d: table of %d slots, shift %d, mask %#x", trial, len(g.table), g.shift, g.mask)
		}
		got := 0
		for j, v := range g.table {
			if v == 0 {
				continue
			}
			got++
			if !want[v] {
				t.Fatalf("trial %d: slot %d holds %#x, not an old entry", trial, j, v)
			}
			for i := g.homeOf(v, g.shift); i != uint64(j); i = (i + 1) & g.mask {
				if g.table[i] == 0 {
					t.Fatalf("trial %d (%d partitions, %d workers): entry %#x at slot %d, an empty slot %d after its home", trial, r.P, W, v, j, i)
				}
			}
		}
		if got != len(want) {
			t.Fatalf("trial %d: %d entries after the grow, %d before", trial, got, len(want))
		}
		// Each old entry is found by a probe from its home (so none was
		// dropped while another was written twice).
		for v := range want {
			i := g.homeOf(v, g.shift)
			for g.table[i] != v {
				if g.table[i] == 0 {
					t.Fatalf("trial %d: entry %#x not found from its home", trial, v)
				}
				i = (i + 1) & g.mask
			}
		}
	}
	if left == 0 {
		t.Errorf("no entry was left for after the partitions")
	}
	t.Logf("%d entries placed after the partitions", left)
}

// TestGrowInlinePartitions is TestGrowSidePartitions for the inline
// table (growInline, growInlinePart): strings of the store's width,
// drawn so that most of their homes in the doubled table are the last
// slots of a partition's range, are interned by the sequential store up
// to its load, and the table is grown by the parallel rounds' grow;
// every string must then be found with its id.
func TestGrowInlinePartitions(t *testing.T) {
	left := 0
	for trial := range 200 {
		rng := rand.New(rand.NewPCG(uint64(trial), 12))
		s := newStore(4)
		pbits := uint(rng.IntN(4))
		newSlots := s.slots * growNum / growDen
		part := newSlots >> pbits
		n := rng.IntN(int(s.slots*loadNum/loadDen) + 1)
		ids := map[string]uint32{}
		b := make([]byte, 4)
		for len(ids) < n {
			binary.LittleEndian.PutUint32(b, rng.Uint32())
			home := uint64(h32(s.Hash(b))) * newSlots >> 32
			if rng.IntN(4) > 0 && home%part < part-3 {
				continue // not near the end of its partition's range
			}
			if _, ok := ids[string(b)]; ok {
				continue
			}
			id, _ := s.Intern(b)
			ids[string(b)] = id
		}
		if s.slots*growNum/growDen != newSlots {
			t.Fatalf("trial %d: the store grew by itself", trial)
		}
		W := 1 + rng.IntN(1<<pbits)
		r := &parSearch{s: s, W: W, P: 1 << pbits, pbits: pbits, parts: make([]parPart, 1<<pbits), cpu: make([]int64, W)}
		r.growInline(newSlots)
		r.close()
		for q := range r.parts {
			left += len(r.parts[q].left)
		}
		if s.slots != newSlots {
			t.Fatalf("trial %d: %d slots after the grow, want %d", trial, s.slots, newSlots)
		}
		full := 0
		for j := range s.slots {
			if load32(s.at(j)) != 0 {
				full++
			}
		}
		if full != len(ids) {
			t.Fatalf("trial %d: %d slots full, %d strings", trial, full, len(ids))
		}
		for k, id := range ids {
			if got, ok := s.Lookup([]byte(k)); !ok || got != id {
				t.Fatalf("trial %d (%d partitions, %d workers): %x found %v with id %d, want %d", trial, r.P, W, k, ok, got, id)
			}
		}
	}
	if left == 0 {
		t.Errorf("no slot was left for after the partitions")
	}
	t.Logf("%d slots moved after the partitions", left)
}
