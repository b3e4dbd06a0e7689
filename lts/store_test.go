package lts

import (
	"encoding/binary"
	"testing"
)

// TestStore checks dense ids, lookups and byte identity across growth,
// with strings of equal length (the case where fingerprints matter).
func TestStore(t *testing.T) {
	s := newStore()
	const n = 200000
	var buf [12]byte
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(buf[:], uint64(i*7919%n))
		id, added := s.Intern(buf[:])
		if added != (id == uint32(s.Len()-1)) {
			t.Fatalf("id %d added %v len %d", id, added, s.Len())
		}
	}
	if s.Len() != n {
		t.Fatalf("len %d, want %d", s.Len(), n)
	}
	for id := 0; id < n; id++ {
		b := s.Get(uint32(id))
		got, ok := s.Lookup(b)
		if !ok || got != uint32(id) {
			t.Fatalf("Lookup(Get(%d)) = %d %v", id, got, ok)
		}
		if again, added := s.Intern(append([]byte(nil), b...)); added || again != uint32(id) {
			t.Fatalf("re-intern %d gave %d %v", id, again, added)
		}
	}
	if _, ok := s.Lookup([]byte("absent")); ok {
		t.Fatal("found an absent string")
	}
	empty, _ := s.Intern(nil)
	if got, ok := s.Lookup([]byte{}); !ok || got != empty {
		t.Fatal("empty string")
	}
}
