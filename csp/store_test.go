package csp

import (
	"context"
	"encoding/binary"
	"runtime"
	"slices"
	"testing"
)

// storeKey is string i of a test: n bytes that differ for every i (up to
// 2^(8n)), many sharing their first bytes, as states do.
func storeKey(i uint64, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[n-1-j] = byte(i >> (8 * (j % 8)))
		if j >= 8 {
			b[n-1-j] ^= byte(j)
		}
	}
	return b
}

// TestStore checks dense ids, lookups and byte identity across growth
// against a map, for stores with several inline widths (none, tiny, the
// word-compare range 8..24, longer, exactly maxWidth and just above) and
// strings of the width, of other lengths (the side set) and mixed. Get
// must find every state after every growth of the table.
func TestStore(t *testing.T) {
	for _, tc := range []struct {
		name  string
		width int
		lens  []int // string i has length lens[i%len(lens)]
	}{
		{"inline12", 12, []int{12}},
		{"inline18", 18, []int{18}},
		{"inline7", 7, []int{7}},
		{"inline24", 24, []int{24}},
		{"inline25", 25, []int{25}},
		{"inline8", 8, []int{8}},
		{"inline9", 9, []int{9}},
		{"inline16", 16, []int{16}},
		{"inline17", 17, []int{17}},
		{"max-width", maxWidth, []int{maxWidth}},
		{"above-max-width", maxWidth + 1, []int{maxWidth + 1}},
		{"no-inline", -1, []int{12}},
		{"mixed", 18, []int{18, 17, 18, 19, 18, 0, 18, 3}},
		{"all-side", 18, []int{17, 19}},
		{"width0", 0, []int{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(tc.width)
			n := 60000
			if testing.Short() {
				n = 6000
			}
			want := map[string]uint32{}
			var keys [][]byte
			lastSlots := s.slots
			checkAll := func() {
				for id, k := range keys {
					if got := s.Get(uint32(id)); string(got) != string(k) {
						t.Fatalf("Get(%d) = %x, want %x", id, got, k)
					}
				}
			}
			for i := 0; i < n; i++ {
				ln := tc.lens[i%len(tc.lens)]
				// Every string comes twice, the second time much later.
				j := uint64(i)
				if i%3 == 2 {
					j = uint64(i / 2)
				}
				b := storeKey(j*7919, ln)
				id, added := s.Intern(b)
				old, seen := want[string(b)]
				switch {
				case seen && (added || id != old):
					t.Fatalf("string %d: id %d added %v, want %d", i, id, added, old)
				case !seen && (!added || id != uint32(len(keys))):
					t.Fatalf("string %d: id %d added %v, want new %d", i, id, added, len(keys))
				case !seen:
					want[string(b)] = id
					keys = append(keys, b)
				}
				if s.slots != lastSlots {
					lastSlots = s.slots
					checkAll()
				}
			}
			if s.Len() != len(keys) {
				t.Fatalf("len %d, want %d", s.Len(), len(keys))
			}
			checkAll()
			for id, k := range keys {
				if got, ok := s.Lookup(k); !ok || got != uint32(id) {
					t.Fatalf("Lookup(%x) = %d %v, want %d", k, got, ok, id)
				}
			}
			for _, ln := range tc.lens {
				if _, ok := s.Lookup(storeKey(1<<40+3, ln)); ok && ln > 5 {
					t.Fatalf("found an absent string of length %d", ln)
				}
			}
			inline := 0
			for _, k := range keys {
				if len(k) == tc.width && tc.width <= maxWidth {
					inline++
				}
			}
			if s.inline != inline || s.side.n != len(keys)-inline {
				t.Fatalf("%d inline, %d side; want %d, %d", s.inline, s.side.n, inline, len(keys)-inline)
			}
		})
	}
}

// TestStoreSmallAlphabet: strings over {0, 1, 2} that differ in few
// bytes, as states do (the word compare must see a difference in any one
// byte): every string of nine digits spread over the width is distinct
// and interned once.
func TestStoreSmallAlphabet(t *testing.T) {
	for _, width := range []int{5, 8, 9, 16, 17, 20, 24, 30} {
		s := newStore(width)
		digits := min(width, 9)
		n := 1
		for range digits {
			n *= 3
		}
		key := func(i int) []byte {
			b := make([]byte, width)
			for j := 0; j < digits; j++ {
				b[j*width/digits] = byte(i % 3)
				i /= 3
			}
			return b
		}
		for round := 0; round < 2; round++ {
			for i := 0; i < n; i++ {
				id, added := s.Intern(key(i))
				if id != uint32(i) || added != (round == 0) {
					t.Fatalf("width %d round %d: string %d got id %d added %v", width, round, i, id, added)
				}
			}
		}
		for i := 0; i < n; i++ {
			if string(s.Get(uint32(i))) != string(key(i)) {
				t.Fatalf("width %d: Get(%d) = %x", width, i, s.Get(uint32(i)))
			}
		}
	}
}

// TestInternAll: interning a batch gives the ids that interning its strings
// one by one gives, duplicates inside the batch included, and strings of
// several lengths (inline and side).
func TestInternAll(t *testing.T) {
	if sideFrom < 1<<30 && !movedInternAll {
		// The inline table's batches: the store must not move
		// (TestInternAllMoved runs this with it moving).
		defer func(n int) { sideFrom = n }(sideFrom)
		sideFrom = 1 << 30
	}
	for _, width := range []int{-1, 5, 12, 18} {
		one, all := newStore(width), newStore(width)
		var enc []byte
		var ends []int
		var ids []uint32
		const n = 50000
		for i := 0; i < n; i++ {
			ln := 1 + i%23
			if i%2 == 0 {
				ln = width
			}
			b := storeKey(uint64(i*31%9973), max(ln, 0))
			one.Intern(b)
			enc = append(enc, b...)
			ends = append(ends, len(enc))
			if len(ends) == 300 || i%977 == 0 || i == n-1 {
				ids = all.InternAll(enc, ends, ids[:0])
				start := 0
				for k, end := range ends {
					if got, _ := one.Lookup(enc[start:end]); got != ids[k] {
						t.Fatalf("width %d: batch id %d, one by one %d", width, ids[k], got)
					}
					start = end
				}
				enc, ends = enc[:0], ends[:0]
			}
		}
		if one.Len() != all.Len() {
			t.Fatalf("width %d: %d strings one by one, %d in batches", width, one.Len(), all.Len())
		}
		for id := 0; id < all.Len(); id++ {
			if string(all.Get(uint32(id))) != string(one.Get(uint32(id))) {
				t.Fatalf("width %d: Get(%d) differs", width, id)
			}
		}
	}
}

// TestStoreBound: the table costs at most 4*(width+4) bytes per state at
// every size, and 2*(width+4) just before a growth (its load stays between
// 1/4 and 1/2); the id index adds 4 bytes per state.
func TestStoreBound(t *testing.T) {
	// Past sideFrom too: a store interned one string at a time never
	// moves and keeps its load (inlineFits).
	defer func(n int) { sideFrom = n }(sideFrom)
	sideFrom = 10000
	s := newStore(18)
	n := 300000
	if testing.Short() {
		n = 30000
	}
	lo, hi := 1e9, 0.0
	for i := 0; i < n; i++ {
		s.Intern(storeKey(uint64(i), 18))
		if i > 1000 {
			per := float64(len(s.table)) / float64(s.Len())
			lo, hi = min(lo, per), max(hi, per)
		}
	}
	if lo < 2*22 || lo > 2*22+0.1 || hi > 4*22 || hi < 4*22-0.1 {
		t.Errorf("table bytes per state from %.2f to %.2f, want 44 to 88", lo, hi)
	}
	var index int
	for _, blk := range s.index {
		index += 4 * cap(blk)
	}
	if index > 4*n+2*4*refBlock {
		t.Errorf("index of %d bytes for %d states", index, n)
	}
}

// BenchmarkStoreInternAll measures the state store alone on the access
// pattern of a big exploration: a store of a few million 19-byte states,
// looked up in batches of 1250 of which about 80% are present (at random
// places) and the rest new; inline, and in the side set.
func BenchmarkStoreInternAll(b *testing.B) {
	b.Run("inline", func(b *testing.B) { benchStore(b, 19) })
	b.Run("side", func(b *testing.B) { benchStore(b, -1) })
}

func benchStore(b *testing.B, width int) {
	const n, batch = 3 << 20, 1250
	s := newStore(width)
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
	for n := 0; n <= 40; n++ {
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

// TestStoreConcurrentProc: a Proc's store is shared by the goroutines of a
// parallel search (under the Proc's lock); the states they intern
// concurrently, in an order that varies, must be exactly the states of a
// sequential search, each once, and Get and Lookup must agree on every id.
func TestStoreConcurrentProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	src := `
var a[5];
var big = 0;
P(i) = [] k:{0..4} @ ([a[k] < 2] s.i.k{a[k] = a[k] + 1; big = (big + 70) % 200} -> P(i));
Sys = ||| i:{0..2} @ P(i);
`
	states := func(workers int) map[string]bool {
		sys, err := compileSrc(t, src).ProcessByName("Sys")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Explore(context.Background(), sys, Options{Workers: workers}); err != nil {
			t.Fatal(err)
		}
		st := sys.store
		set := map[string]bool{}
		for id := 0; id < st.Len(); id++ {
			b := string(st.Get(uint32(id)))
			if set[b] {
				t.Fatalf("workers %d: state %x twice", workers, b)
			}
			set[b] = true
			if got, ok := st.Lookup([]byte(b)); !ok || got != uint32(id) {
				t.Fatalf("workers %d: Lookup(Get(%d)) = %d %v", workers, id, got, ok)
			}
		}
		if st.inline == 0 || st.side.n == 0 {
			t.Fatalf("workers %d: %d inline, %d side states; want both kinds", workers, st.inline, st.side.n)
		}
		return set
	}
	seq := states(1)
	for _, w := range []int{2, 4} {
		par := states(w)
		if len(par) != len(seq) {
			t.Fatalf("workers %d: %d states, sequential %d", w, len(par), len(seq))
		}
		for b := range seq {
			if !par[b] {
				t.Fatalf("workers %d: state %x missing", w, b)
			}
		}
	}
}
