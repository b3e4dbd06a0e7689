package intern

import "testing"

// TestMemo: a Memo holds what a map would, through growth and overwrites.
func TestMemo(t *testing.T) {
	m := NewMemo[int](0)
	want := map[uint64]int{}
	for i := 0; i < 100000; i++ {
		k := uint64(i*7919%50021)<<32 | uint64(i%13)
		if i%5 == 0 {
			if got, ok := m.Get(k); ok != (want[k] != 0) || got != want[k] {
				t.Fatalf("key %x: Get %d %v, want %d", k, got, ok, want[k])
			}
		}
		m.Put(k, i+1)
		want[k] = i + 1
	}
	for k, v := range want {
		if got, ok := m.Get(k); !ok || got != v {
			t.Fatalf("key %x: Get %d %v, want %d", k, got, ok, v)
		}
	}
	if _, ok := m.Get(1<<63 | 3); ok {
		t.Fatal("found a key never put")
	}
	if m.Len() != len(want) {
		t.Fatalf("Len %d, want %d", m.Len(), len(want))
	}
}

// TestMemoFlipKey: the one key a slot cannot hold (memoFlip) is kept like
// any other, and keys next to it are not confused with it.
func TestMemoFlipKey(t *testing.T) {
	m := NewMemo[uint32](0)
	if _, ok := m.Get(memoFlip); ok {
		t.Fatal("found memoFlip before it was put")
	}
	m.Put(memoFlip^1, 7)
	if _, ok := m.Get(memoFlip); ok {
		t.Fatal("found memoFlip, put only its neighbour")
	}
	m.Put(memoFlip, 5)
	m.Put(memoFlip, 6)
	m.Put(0, 8)
	for k, want := range map[uint64]uint32{memoFlip: 6, memoFlip ^ 1: 7, 0: 8} {
		if got, ok := m.Get(k); !ok || got != want {
			t.Fatalf("key %x: Get %d %v, want %d", k, got, ok, want)
		}
	}
	if m.Len() != 3 {
		t.Fatalf("Len %d, want 3", m.Len())
	}
}
