package intern

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
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

// TestDensePairsAgree compares a dense set (NewDensePairs) with the plain
// one and with a map on random runs of Intern, Lookup and Get: keys whose
// high halves are small ids with one to several low halves each (most
// with one, as a deterministic specification's pairs), high halves met in
// any order and far ahead of the array, high halves so large that the set
// moves every key to its table (a quarter of the runs), and low halves of 0
// and 2^32-1.
func TestDensePairsAgree(t *testing.T) {
	failed := 0
	var first error
	for run := 0; run < 400; run++ {
		if err := densePairsRun(run); err != nil {
			if failed++; first == nil {
				first = err
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of 400 runs disagree; the first: %v", failed, first)
	}
}

func densePairsRun(run int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("run %d: panic: %v", run, r)
		}
	}()
	{
		r := rand.New(rand.NewPCG(uint64(run), 7))
		d, p := NewDensePairs(r.IntN(64)), NewPairs(r.IntN(64))
		want := map[uint64]uint32{}
		his := 1 + r.IntN(3000)
		los := 1 + r.IntN(4)
		lo := func() uint64 {
			switch x := r.IntN(10); {
			case x == 0:
				return 1<<32 - 1
			case x < 6:
				return 0
			default:
				return uint64(r.IntN(los))
			}
		}
		for i := 0; i < 4000; i++ {
			h := uint64(r.IntN(his))
			if r.IntN(50) == 0 {
				h += uint64(his + r.IntN(2*his+2048)) // far ahead
			}
			if run%4 == 3 && r.IntN(400) == 0 {
				h = 1<<31 + uint64(r.IntN(100)) // not dense: the set gives up the array
			}
			k := h<<32 | lo()
			if r.IntN(3) == 0 {
				id, ok := d.Lookup(k)
				pid, pok := p.Lookup(k)
				wid, wok := want[k]
				if ok != wok || ok && (id != wid || pid != wid) || pok != wok {
					return fmt.Errorf("run %d: Lookup(%x) = %d %v, plain %d %v, want %d %v", run, k, id, ok, pid, pok, wid, wok)
				}
				continue
			}
			id, added := d.Intern(k)
			pid, padded := p.Intern(k)
			wid, seen := want[k]
			if !seen {
				wid = uint32(len(want))
				want[k] = wid
			}
			if id != wid || added == seen || pid != wid || padded == seen {
				return fmt.Errorf("run %d: Intern(%x) = %d %v, plain %d %v, want %d new %v", run, k, id, added, pid, padded, wid, !seen)
			}
		}
		if d.Len() != len(want) {
			return fmt.Errorf("run %d: Len %d, want %d", run, d.Len(), len(want))
		}
		for k, id := range want {
			if got, ok := d.Lookup(k); !ok || got != id || d.Get(id) != k {
				return fmt.Errorf("run %d: key %x: Lookup %d %v, Get %x; want %d", run, k, got, ok, d.Get(id), id)
			}
		}
		// Keys never interned: a known high half with a new low half, and
		// high halves beyond the array.
		for _, k := range []uint64{uint64(4*his+5000) << 32, 1<<63 | 3, uint64(r.IntN(his))<<32 | 12345} {
			if _, ok := want[k]; ok {
				continue
			}
			if id, ok := d.Lookup(k); ok {
				return fmt.Errorf("run %d: Lookup(%x) found %d, never interned", run, k, id)
			}
		}
		d.Prefetch([]uint64{0, uint64(1<<31) << 32}) // must not fault
	}
	return nil
}

// TestAppend: Append keeps the elements and their order across its
// doubling and append's growth beyond doubleUpTo, and doubles while small.
func TestAppend(t *testing.T) {
	var s []uint32
	grows := 0
	for i := 0; i < 3*doubleUpTo; i++ {
		c := cap(s)
		s = Append(s, uint32(i*7))
		if cap(s) != c {
			grows++
			if c >= 64 && c < doubleUpTo && cap(s) != 2*c {
				t.Fatalf("len %d: capacity %d -> %d, want doubled", i, c, cap(s))
			}
		}
	}
	for i, v := range s {
		if v != uint32(i*7) {
			t.Fatalf("s[%d] = %d, want %d", i, v, i*7)
		}
	}
	if grows > 20 {
		t.Fatalf("%d reallocations for %d elements", grows, len(s))
	}
}
