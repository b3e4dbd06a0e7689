package intern

import (
	"math/rand/v2"
	"testing"
)

// TestVec compares Vec with a slice under random Appends, Grows and Sets,
// across the first block's doublings and into the fixed blocks.
func TestVec(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		var v Vec[uint32]
		var want []uint32
		for len(want) < 3*vecBlock+r.IntN(vecBlock) {
			switch k := r.IntN(100); {
			case k < 2:
				n := len(want) + r.IntN(2*vecBlock)
				v.Grow(n)
				for len(want) < n {
					want = append(want, 0)
				}
			case k < 10 && len(want) > 0:
				i := r.IntN(len(want))
				x := r.Uint32()
				v.Set(i, x)
				want[i] = x
			default:
				x := r.Uint32()
				v.Append(x)
				want = append(want, x)
			}
			if v.Len() != len(want) {
				t.Fatalf("seed %d: Len %d, want %d", seed, v.Len(), len(want))
			}
		}
		for i, x := range want {
			if v.At(i) != x || *v.Ptr(i) != x {
				t.Fatalf("seed %d: At(%d) = %d, want %d", seed, i, v.At(i), x)
			}
		}
		if b := v.Bytes(4); b < int64(4*len(want)) {
			t.Fatalf("seed %d: Bytes %d for %d elements", seed, b, len(want))
		}
	}
}

// TestVecStable checks that elements beyond the first block keep their
// addresses as the array grows.
func TestVecStable(t *testing.T) {
	var v Vec[uint64]
	for i := range vecBlock + 10 {
		v.Append(uint64(i))
	}
	p := v.Ptr(vecBlock + 5)
	for i := range 3 * vecBlock {
		v.Append(uint64(i))
	}
	v.Grow(6 * vecBlock)
	if p != v.Ptr(vecBlock+5) || *p != vecBlock+5 {
		t.Fatalf("element moved or changed")
	}
}
