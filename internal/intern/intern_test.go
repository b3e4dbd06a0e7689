package intern

import (
	"encoding/binary"
	"testing"
)

func TestInternDistinctAndStable(t *testing.T) {
	s := New(0)
	const n = 100000
	var buf [8]byte
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(buf[:], uint64(i*7919))
		id, added := s.Intern(buf[:1+i%8])
		if !added {
			// Short prefixes repeat: check the id maps back to these bytes.
			if string(s.Get(id)) != string(buf[:1+i%8]) {
				t.Fatalf("id %d maps to %x, want %x", id, s.Get(id), buf[:1+i%8])
			}
			continue
		}
		if int(id) != s.Len()-1 {
			t.Fatalf("id %d not dense (len %d)", id, s.Len())
		}
	}
	// Every string is found again with its own id, and only its own bytes.
	seen := map[string]uint32{}
	for id := 0; id < s.Len(); id++ {
		b := string(s.Get(uint32(id)))
		if prev, dup := seen[b]; dup {
			t.Fatalf("bytes %x stored twice (ids %d and %d)", b, prev, id)
		}
		seen[b] = uint32(id)
		got, ok := s.Lookup([]byte(b))
		if !ok || got != uint32(id) {
			t.Fatalf("Lookup(%x) = %d, %v; want %d", b, got, ok, id)
		}
	}
	if _, ok := s.Lookup([]byte("absent-string")); ok {
		t.Fatal("Lookup found a string never interned")
	}
}

func TestEmptyString(t *testing.T) {
	s := New(4)
	a, added := s.Intern(nil)
	if !added {
		t.Fatal("first empty string not added")
	}
	b, added := s.Intern([]byte{})
	if added || a != b {
		t.Fatalf("empty string interned twice: %d %d", a, b)
	}
}

func BenchmarkIntern(b *testing.B) {
	s := New(b.N)
	buf := make([]byte, 24)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		binary.LittleEndian.PutUint64(buf, uint64(i))
		s.Intern(buf)
	}
	b.ReportMetric(float64(s.Bytes())/float64(s.Len()), "bytes/string")
}

func TestPairs(t *testing.T) {
	p := NewPairs(0)
	want := map[uint64]uint32{}
	for i := 0; i < 200000; i++ {
		k := uint64(i%70001)<<32 | uint64(i*31%977)
		id, added := p.Intern(k)
		if prev, ok := want[k]; ok {
			if added || id != prev {
				t.Fatalf("key %x: id %d added %v, want id %d", k, id, added, prev)
			}
			continue
		}
		if !added || int(id) != len(want) {
			t.Fatalf("key %x: id %d added %v, want new id %d", k, id, added, len(want))
		}
		want[k] = id
	}
	for k, id := range want {
		if got, ok := p.Lookup(k); !ok || got != id || p.Get(id) != k {
			t.Fatalf("key %x: Lookup %d %v, Get %x; want %d", k, got, ok, p.Get(id), id)
		}
	}
	if _, ok := p.Lookup(1<<63 | 5); ok {
		t.Fatal("found a key never interned")
	}
	if p.Len() != len(want) {
		t.Fatalf("Len %d, want %d", p.Len(), len(want))
	}
}

func BenchmarkPairs(b *testing.B) {
	p := NewPairs(0)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p.Intern(uint64(i)<<32 | uint64(i%13))
	}
}
