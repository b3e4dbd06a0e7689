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
