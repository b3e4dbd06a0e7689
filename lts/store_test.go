package lts

import (
	"encoding/binary"
	"slices"
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

// TestInternAll: interning a batch gives the ids that interning its strings
// one by one gives, duplicates inside the batch included, and strings of
// several lengths (the batch warms records by the probe's length).
func TestInternAll(t *testing.T) {
	one, all := newStore(), newStore()
	var enc []byte
	var ends []int
	var ids []uint32
	const n = 50000
	for i := 0; i < n; i++ {
		b := make([]byte, 1+i%23)
		v := uint32(i * 31 % 9973)
		for j := range b {
			b[j] = byte(v >> (8 * (j % 4)))
		}
		one.Intern(b)
		enc = append(enc, b...)
		ends = append(ends, len(enc))
		if len(ends) == 300 || i%977 == 0 || i == n-1 {
			ids = all.InternAll(enc, ends, ids[:0])
			start := 0
			for k, end := range ends {
				if got, _ := one.Lookup(enc[start:end]); got != ids[k] {
					t.Fatalf("batch id %d, one by one %d", ids[k], got)
				}
				start = end
			}
			enc, ends = enc[:0], ends[:0]
		}
	}
	if one.Len() != all.Len() {
		t.Fatalf("%d strings one by one, %d in batches", one.Len(), all.Len())
	}
}

// TestEncode: the one-byte fast path writes exactly the varint encoding,
// and decode inverts it, around every width boundary.
func TestEncode(t *testing.T) {
	vals := []int64{0, 1, -1, 63, -64, 64, -65, 127, 128, -129, 1 << 20, -1 << 40, 1<<63 - 1, -1 << 63}
	comps := []uint32{0, 1, 127, 128, 1<<32 - 1}
	for _, c := range comps {
		for _, v := range vals {
			cs, vs := []uint32{c, 5}, []int64{v, 3, -v}
			s := &Proc{ncomp: len(cs)}
			var want []byte
			for _, c := range cs {
				want = binary.AppendUvarint(want, uint64(c))
			}
			for _, v := range vs {
				want = binary.AppendVarint(want, v)
			}
			got := s.encode([]byte{9}, cs, vs)
			if string(got[1:]) != string(want) || got[0] != 9 {
				t.Fatalf("encode(%v, %v) = %x, want %x", cs, vs, got[1:], want)
			}
			dc, dv := s.decode(want, nil, nil)
			if !slices.Equal(dc, cs) || !slices.Equal(dv, vs) {
				t.Fatalf("decode(%x) = %v %v, want %v %v", want, dc, dv, cs, vs)
			}
		}
	}
}

// BenchmarkStoreInternAll measures the state store alone on the access
// pattern of a big exploration: a store of a few million 19-byte states,
// looked up in batches of 1250 of which about 80% are present (at random
// places) and the rest new.
func BenchmarkStoreInternAll(b *testing.B) {
	const n, batch = 3 << 20, 1250
	s := newStore()
	key := func(i uint64, dst []byte) []byte {
		x := i * 0x9E3779B97F4A7C15
		dst = binary.LittleEndian.AppendUint64(dst, x)
		dst = binary.LittleEndian.AppendUint64(dst, x>>7^i)
		return append(dst, byte(i), byte(i>>8), byte(i>>16))
	}
	var enc []byte
	var ends []int
	var ids []uint32
	for i := uint64(0); i < n; i += batch {
		enc, ends = enc[:0], ends[:0]
		for j := i; j < min(i+batch, n); j++ {
			enc = key(j, enc)
			ends = append(ends, len(enc))
		}
		ids = s.InternAll(enc, ends, ids[:0])
	}
	next := uint64(n)
	rng := uint64(88172645463325252)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		enc, ends = enc[:0], ends[:0]
		for j := 0; j < batch; j++ {
			rng ^= rng << 13
			rng ^= rng >> 7
			rng ^= rng << 17
			k := rng % n
			if rng>>60 < 3 { // 3/16 new
				k = next
				next++
			}
			enc = key(k, enc)
			ends = append(ends, len(enc))
		}
		ids = s.InternAll(enc, ends, ids[:0])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/lookup")
}

// TestEqBytes: the word-wise comparison agrees with bytes.Equal on every
// length around its fast range, for equal strings and for strings that
// differ in exactly one byte at each position.
func TestEqBytes(t *testing.T) {
	for n := 0; n <= 30; n++ {
		a := make([]byte, n)
		for i := range a {
			a[i] = byte(i*7 + n)
		}
		if !eqBytes(a, slices.Clone(a)) {
			t.Fatalf("len %d: equal strings differ", n)
		}
		for i := 0; i < n; i++ {
			b := slices.Clone(a)
			b[i] ^= 0x40
			if eqBytes(a, b) || eqBytes(b, a) {
				t.Fatalf("len %d: strings differing at %d compare equal", n, i)
			}
		}
	}
}
