package csp

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestRec2Lengths: the 2-bit records of every length pack2Min to
// pack2Max are stored at ceil(len/4) bytes (5 to 8), in chunks of a few
// records (denseChunkMax lowered: a chunk's last record is read as a word
// that ends in the chunk's slack), through Intern, InternAll and
// InternWords, with repeats; the ids (first-met order), Lookup and Get
// agree with a map before and after a string with a byte of 4 or more
// repacks the records at 4 bits, or a string of another length moves
// them to the arena.
func TestRec2Lengths(t *testing.T) {
	defer func(c int) { denseChunkMax = c }(denseChunkMax)
	rng := rand.New(rand.NewPCG(21, 14))
	for _, chunk := range []int{64, 1000, storeChunk} {
		denseChunkMax = chunk
		for n := pack2Min; n <= pack2Max; n++ {
			for _, then := range []string{"repack", "arena", "none"} {
				if err := rec2Case(rng, n, then, chunk < 1000); err != nil {
					t.Fatalf("chunk %d, length %d, then %s: %v", chunk, n, then, err)
				}
			}
		}
	}
}

// rec2Case is one case of TestRec2Lengths: strings of n bytes below 4
// (600 distinct ones, met about 3 times each), then (then) a string
// with a byte of 4 or more, or one of n+1 bytes, then more of them.
// chunks: the records must fill several chunks.
func rec2Case(rng *rand.Rand, n int, then string, chunks bool) error {
	s := newStore(-1)
	pool := make([][]byte, 600)
	for i := range pool {
		pool[i] = make([]byte, n)
		for j := range pool[i] {
			pool[i][j] = byte(rng.IntN(4))
		}
	}
	want := map[string]uint32{}
	var keys []string
	note := func(b []byte, id uint32) error {
		if old, ok := want[string(b)]; ok {
			if id != old {
				return fmt.Errorf("%x: id %d, earlier %d", b, id, old)
			}
			return nil
		}
		if id != uint32(len(keys)) {
			return fmt.Errorf("%x: new id %d, want %d", b, id, len(keys))
		}
		want[string(b)] = id
		keys = append(keys, string(b))
		return nil
	}
	run := func(steps int) error {
		var enc []byte
		var ends []int
		var words []uint64
		var ids []uint32
		for step := 0; step < steps; {
			switch rng.IntN(3) {
			case 0:
				b := pool[rng.IntN(len(pool))]
				step++
				id, _ := s.Intern(b)
				if err := note(b, id); err != nil {
					return fmt.Errorf("step %d: Intern %v", step, err)
				}
			case 1, 2:
				// A batch of InternAll, or of InternWords whose
				// strings are half words (empty strings), half bytes.
				byWords := rng.IntN(2) == 0
				enc, ends, words = enc[:0], ends[:0], words[:0]
				var batch [][]byte
				for range rng.IntN(70) {
					b := pool[rng.IntN(len(pool))]
					step++
					batch = append(batch, b)
					if byWords && len(b) == n && rng.IntN(2) == 0 {
						w0, w1, _ := pack32(b)
						words = append(words, w0, w1)
					} else {
						enc = append(enc, b...)
						words = append(words, 0, 0)
					}
					ends = append(ends, len(enc))
				}
				if byWords {
					ids = s.InternWords(enc, ends, words, n, ids[:0])
				} else {
					ids = s.InternAll(enc, ends, ids[:0])
				}
				for k, b := range batch {
					if err := note(b, ids[k]); err != nil {
						return fmt.Errorf("step %d: batch (words %v) %v", step, byWords, err)
					}
				}
			}
		}
		return nil
	}
	check := func(when string) error {
		if s.Len() != len(keys) {
			return fmt.Errorf("%s: %d states, want %d", when, s.Len(), len(keys))
		}
		for id, k := range keys {
			if got := s.Get(uint32(id)); string(got) != k {
				return fmt.Errorf("%s: Get(%d) = %x, want %x", when, id, got, k)
			}
			if got, ok := s.Lookup([]byte(k)); !ok || got != uint32(id) {
				return fmt.Errorf("%s: Lookup(%x) = %d %v, want %d", when, k, got, ok, id)
			}
		}
		if e := checkIDs(s); e != "" {
			return fmt.Errorf("%s: %s", when, e)
		}
		return nil
	}
	if err := run(1800); err != nil {
		return err
	}
	d := &s.side
	if d.pbits != 2 || d.plen != (n+3)/4 || d.recLen != n {
		return fmt.Errorf("records of %d bytes at %d bits, %d bytes each; want 2 bits, %d bytes", d.recLen, d.pbits, d.plen, (n+3)/4)
	}
	// The word at each chunk's last record is in its room.
	if e := checkDenseRoom(d); e != "" {
		return errors.New(e)
	}
	used := 0
	for _, c := range d.dense {
		used += len(c)
	}
	if used != d.n*d.plen {
		return fmt.Errorf("%d records of %d bytes take %d bytes", d.n, d.plen, used)
	}
	if chunks && len(d.dense) < 3 {
		return fmt.Errorf("%d records in %d chunks", d.n, len(d.dense))
	}
	if err := check("2-bit records"); err != nil {
		return err
	}
	var b []byte
	switch then {
	case "repack":
		b = append([]byte(nil), pool[0]...)
		b[rng.IntN(n)] = byte(4 + rng.IntN(12))
	case "arena":
		b = append(append([]byte(nil), pool[0]...), 1)
	}
	if b != nil {
		id, _ := s.Intern(b)
		if err := note(b, id); err != nil {
			return err
		}
		if then == "repack" && (d.pbits != 4 || d.plen != (n+1)/2) || then == "arena" && d.recLen != arenaLen {
			return fmt.Errorf("after %s: records of %d bytes at %d bits", then, d.recLen, d.pbits)
		}
		pool = append(pool, b)
	}
	if err := run(600); err != nil {
		return err
	}
	return check("at the end")
}

// rec2Model is a model whose states are strings of n bytes (17 to 32),
// every byte below 4: k interleaved processes that each count one of the
// first k of n-k variables up to 1 and down (2^k states).
func rec2Model(t *testing.T, n int) (func() *Proc, int) {
	k := min(n/2, 12)
	src := fmt.Sprintf(`
var a[%d];
P(i) = [a[i] < 1] s.i{a[i] = a[i] + 1} -> P(i) [] [a[i] > 0] d.i{a[i] = a[i] - 1} -> P(i);
Sys = ||| i:{0..%d} @ P(i);
`, n-k, k-1)
	return func() *Proc {
		sys, err := compileSrc(t, src).ProcessByName("Sys")
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}, 1 << k
}

// TestRec2Rounds: searches of models whose states are 2-bit records of 17
// to 32 bytes (5 to 8 bytes a record; those of up to 24 bytes moved to
// the side set early, sideFrom lowered, the others on it from the start), in chunks of a few records, give the sequential
// search's ids, transitions and counterexample with 1 and 2 workers
// (the rounds' folded inserts, their deferred lookups and their writes
// of neighbouring records, by bits or serially), also with weak hashes.
func TestRec2Rounds(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(r, c, f, g int) { parRound, denseChunkMax, sideFrom, parRegionMax = r, c, f, g }(parRound, denseChunkMax, sideFrom, parRegionMax)
	defer func(m uint64) { sideHashMask = m }(sideHashMask)
	lengths := []int{17, 20, 21, 24, 25, 28, 29, 32}
	if testing.Short() {
		lengths = []int{20, 24, 28, 32}
	}
	for _, n := range lengths {
		mk, states := rec2Model(t, n)
		const limit = 100000
		parRound, denseChunkMax, sideFrom = 2048, storeChunk, 1<<17
		want := recordSearch(t, mk, 1, limit)
		if want.count != int64(states) {
			t.Fatalf("length %d: %d states, want %d", n, want.count, states)
		}
		sideFrom = states / 8
		for _, chunk := range []int{64, 256} {
			for _, w := range []int{1, 2} {
				for _, rr := range [][2]int{{64, storeChunk}, {2048, storeChunk}, {64, 16}} {
					// A region of 16 bytes: the rounds' ids are given
					// serially (assign, patchSide).
					round, region := rr[0], rr[1]
					parRegionMax = region
					// The chunks of 256 bytes with the hashes cut to
					// their top 4 bits (TestSideCollisionsParallel):
					// every lookup compares records that differ.
					if chunk == 256 {
						sideHashMask = 0xF << 60
					}
					parRound, denseChunkMax = round, chunk
					var sys *Proc
					// (recordSearch's first Proc is the search's.)
					got := recordSearch(t, func() *Proc {
						p := mk()
						if sys == nil {
							sys = p
						}
						return p
					}, w, limit)
					name := fmt.Sprintf("length %d chunk %d workers %d round %d region %d", n, chunk, w, round, region)
					d := &sys.store.side
					if d.pbits != 2 || d.recLen != n || d.plen != (n+3)/4 || len(d.dense) < 3 {
						t.Errorf("%s: records of %d bytes at %d bits, %d bytes each, %d chunks; want 2 bits, %d bytes each, 3 chunks or more", name, d.recLen, d.pbits, d.plen, len(d.dense), (n+3)/4)
					}
					if e := checkDenseRoom(d); e != "" {
						t.Errorf("%s: %s", name, e)
					}
					denseChunkMax, sideHashMask, parRegionMax = storeChunk, ^uint64(0), storeChunk
					sameSearch(t, name, want, got, false, false)
				}
			}
		}
	}
}
