package csp

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// withSideFrom runs f with sideFrom set to n.
func withSideFrom(n int, f func()) {
	defer func(old int) { sideFrom = old }(sideFrom)
	sideFrom = n
	f()
}

// TestSideFromAgree compares searches whose stores move their states from
// the inline table to the side set (toSide) early, after 1, 40 or 700
// inline states, with searches whose stores never move them: every
// state's id, terms and variables, every transition, and how the search
// ended, with one worker, the parallel rounds of one worker (parForce)
// and of two. The models have states of the inline table's widths: the
// philosophers at 6, 9 and 12 (12 to 24 bytes), a value above 15 once a
// thread is done (the side set repacks at 8 bits), a thread whose codes
// pass 15, and random models of 9 to 24 bytes, some with a value above
// 63 (a longer state: a side state beside the inline ones before the
// move).
func TestSideFromAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 14))
	n := 120
	if testing.Short() {
		n = 30
	}
	fixed := []string{philosophers(6), philosophers(9), philosophers(12), philosophers(6) + bigLater, fmt.Sprintf(longThread, 10),
		// A value above 63 from the first step: longer states, kept
		// with their ids beside the inline ones until the move.
		philosophers(6) + bigEarly, philosophers(7) + bigEarly, philosophers(8) + bigEarly}
	moves0 := sideMoves.Load()
	bad, total := 0, 0
	for i := range n + len(fixed) {
		src := ""
		if i < len(fixed) {
			src = fixed[i]
		} else {
			src = randomModel(rng, true)
		}
		mk := func() *Proc {
			p := compileSrc(t, src)
			if i%2 == 0 {
				p.heatBlocks()
			}
			name := "Sys"
			if i < 3 {
				name = "College"
			}
			sys, err := p.ProcessByName(name)
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}
		at := []int{1, 40, 700}[i%3]
		for _, workers := range []int{0, 1, 2} {
			var want, got string
			withSideFrom(1<<30, func() { want, _, _ = wordExploreWith(t, mk, false, 4000, workers) })
			withSideFrom(at, func() { got, _, _ = wordExploreWith(t, mk, false, 4000, workers) })
			total++
			if got != want {
				if bad++; bad <= 3 {
					t.Errorf("model %d, moved at %d, %d workers, differs:\n%s\n%s", i, at, workers, src, firstDiff(got, want))
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d searches differ", bad, total)
	}
	moves := sideMoves.Load() - moves0
	t.Logf("%d searches, %d stores moved to the side set", total, moves)
	if moves < int64(total)/2 {
		t.Errorf("only %d of %d searches moved their stores", moves, total)
	}
}

// TestInlineFitsBeforeMove: an inline store keeps a load of at most 1/2
// below sideFrom; the batch that takes it past sideFrom fills its table
// up to 3/4 instead of doubling it (inlineFits); a single Intern after
// that batch doubles it (the load of 1/2 again: the batch is over), and
// the next batch moves the store to the side set.
func TestInlineFitsBeforeMove(t *testing.T) {
	withSideFrom(1000, func() {
		s := newStore(24)
		next := uint64(0)
		key := func() []byte {
			next++
			return storeKey(next*7919, 24)
		}
		batch := func(k int) {
			var enc []byte
			var ends []int
			for range k {
				enc = append(enc, key()...)
				ends = append(ends, len(enc))
			}
			s.InternAll(enc, ends, nil)
		}
		for s.inline+100 < 1000 {
			batch(100)
			if uint64(s.inline)*2 > s.slots {
				t.Fatalf("%d states in %d slots below the threshold", s.inline, s.slots)
			}
		}
		batch(200)
		if s.width < 0 || s.inline <= 1024 || s.slots != 2048 {
			t.Fatalf("after the batch past the threshold: width %d, %d states in %d slots; want more than 1024 in 2048", s.width, s.inline, s.slots)
		}
		s.Intern(key())
		if uint64(s.inline)*2 > s.slots {
			t.Fatalf("a single Intern left %d states in %d slots", s.inline, s.slots)
		}
		batch(10)
		if s.width >= 0 {
			t.Fatalf("not moved at %d states", s.inline)
		}
	})
}

// bigEarly adds to the philosophers a process that stores 100 in big
// (two bytes) once, at any time from the start.
const bigEarly = `var big = 0;
T() = w{big = 100} -> Skip;
Sys() = College() ||| T();
`

// TestSideFromLibrary is TestSideFromAgree on the processes the library
// and test models assert about, and on their symmetry reductions, the
// stores moved after 50 inline states: the first 3,000 states of each.
func TestSideFromLibrary(t *testing.T) {
	limit := 3000
	if testing.Short() {
		limit = 500
	}
	moves0 := sideMoves.Load()
	procs := compareLibrary(t, func(mk func() *Proc) (want, got string) {
		withSideFrom(1<<30, func() { want, _ = wordExplore(t, mk, false, limit) })
		withSideFrom(50, func() { got, _ = wordExplore(t, mk, false, limit) })
		return want, got
	})
	moves := sideMoves.Load() - moves0
	t.Logf("%d processes, %d stores moved to the side set", procs, moves)
	if moves == 0 {
		t.Error("no store moved to the side set")
	}
}

// movedInternAll makes TestInternAll keep the lowered sideFrom.
var movedInternAll bool

// TestInternAllMoved is TestInternAll with the stores moved to the side
// set after 1,000 inline strings (strings of several lengths: toSide
// interns them again): the batches' ids are those of the store that
// interns one by one (which never moves), before and after. Then stores
// of one length whose values fit 2, 4 and 8 bits (toSide's records
// written in place, then the table rebuilt) are moved after 1,000 to
// 3,000 strings and compared with a map: every id, Get and Lookup, the
// inline table and id index gone, and the inline table not doubled by the
// batch that passes the threshold.
func TestInternAllMoved(t *testing.T) {
	withSideFrom(1000, func() {
		movedInternAll = true
		defer func() { movedInternAll = false }()
		moves0 := sideMoves.Load()
		TestInternAll(t)
		if m := sideMoves.Load() - moves0; m != 3 {
			t.Errorf("%d moves, want 3 (widths 5, 12 and 18)", m)
		}
	})
	for _, tc := range []struct{ width, vals, at int }{{24, 4, 1000}, {20, 16, 2000}, {12, 256, 3000}, {5, 4, 500}} {
		withSideFrom(tc.at, func() {
			rng := rand.New(rand.NewPCG(uint64(tc.width), 9))
			s := newStore(tc.width)
			want := map[string]uint32{}
			var keys []string
			maxSlots := uint64(0)
			for batch := range 40 {
				var enc []byte
				var ends []int
				for range 200 {
					b := make([]byte, tc.width)
					for j := range b {
						b[j] = byte(rng.IntN(tc.vals))
					}
					if rng.IntN(3) == 0 && len(keys) > 0 {
						copy(b, keys[rng.IntN(len(keys))]) // a string seen before
					}
					enc = append(enc, b...)
					ends = append(ends, len(enc))
				}
				ids := s.InternAll(enc, ends, nil)
				if s.width >= 0 {
					maxSlots = max(maxSlots, s.slots)
				}
				for k, id := range numberFirst(want, enc, ends) {
					if ids[k] != id {
						t.Fatalf("width %d, batch %d: string %d has id %d, want %d", tc.width, batch, k, ids[k], id)
					}
				}
				keys = slices.Grow(keys[:0], len(want))[:len(want)]
				for k, id := range want {
					keys[id] = k
				}
			}
			if s.width >= 0 || s.table != nil || s.index != nil || s.inline != 0 {
				t.Fatalf("width %d: not moved (width %d, %d inline, index %v)", tc.width, s.width, s.inline, s.index != nil)
			}
			// The batch that passes sideFrom fills the table up to 3/4
			// rather than doubling it (inlineFits).
			if p := uint64(1) << bits.Len(uint(tc.at-1)); maxSlots > 2*p {
				t.Errorf("width %d: an inline table of %d slots before the move at %d states", tc.width, maxSlots, tc.at)
			}
			for id, k := range keys {
				if got := string(s.Get(uint32(id))); got != k {
					t.Fatalf("width %d: Get(%d) = %x, want %x", tc.width, id, got, k)
				}
				if got, ok := s.Lookup([]byte(k)); !ok || got != uint32(id) {
					t.Fatalf("width %d: Lookup = %d %v, want %d", tc.width, got, ok, id)
				}
			}
		})
	}
}

// BenchmarkToSide moves a store of 65,536 states of 24 bytes (values
// below 4, as the philosophers' at N = 12) to the side set.
func BenchmarkToSide(b *testing.B) {
	for _, n := range []int{1 << 13, 1 << 16} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchToSide(b, n) })
	}
}

func benchToSide(b *testing.B, n int) {
	var enc []byte
	var ends []int
	rng := rand.New(rand.NewPCG(1, 2))
	for range n {
		for range 24 {
			enc = append(enc, byte(rng.IntN(4)))
		}
		ends = append(ends, len(enc))
	}
	for b.Loop() {
		b.StopTimer()
		s := newStore(24)
		withSideFrom(1<<30, func() { s.InternAll(enc, ends, nil) })
		b.StartTimer()
		s.toSide()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/state")
}

// BenchmarkSideFrom explores the philosophers (24-byte states at N = 12)
// with one worker, the store moved to the side set at 2^13 or 2^17
// inline states (sideFrom), at the first batch (0), or never: where the
// move pays (docs/engine-log.md, "Small tables inline, large ones on the
// side"). It reports the CPU milliseconds of a search.
//
//	go test ./csp -run '^$' -bench SideFrom -count 6
func BenchmarkSideFrom(b *testing.B) {
	for _, n := range []int{9, 10, 11, 12} {
		for _, at := range []int{1 << 30, 1 << 13, 1 << 17, 0} {
			name := fmt.Sprintf("N=%d/from=%d", n, at)
			if at == 1<<30 {
				name = fmt.Sprintf("N=%d/from=never", n)
			}
			b.Run(name, func(b *testing.B) {
				src := philosophers(n)
				var cpu float64
				withSideFrom(at, func() {
					for b.Loop() {
						sys, err := compileSrc(b, src).ProcessByName("College")
						if err != nil {
							b.Fatal(err)
						}
						c0 := cpuSeconds()
						x := newBFS(context.Background(), sys, Options{Workers: 1})
						x.run(func(lts.State, []lts.Transition) bool { return false })
						cpu += cpuSeconds() - c0
					}
				})
				b.ReportMetric(cpu/float64(b.N)*1e3, "cpu-ms")
			})
		}
	}
}

// TestMoveKeepsWide: a side set told to keep 8-byte slots (widen, as
// BenchmarkParPhases' wide variants do) keeps them through the move to
// the side set, on the fast path (every state of the width) and on the
// slow one (states of another length too), and every state keeps its id.
func TestMoveKeepsWide(t *testing.T) {
	withSideFrom(100, func() {
		for _, mixed := range []bool{false, true} {
			s := newStore(24)
			s.side.widen()
			var keys [][]byte
			for b := range 5 {
				var enc []byte
				var ends []int
				for i := range 100 {
					k := uint64(b*100 + i + 1)
					key := storeKey(k*7919, 24)
					if mixed && k%10 == 0 {
						key = storeKey(k*7919, 20)
					}
					keys = append(keys, key)
					enc = append(enc, key...)
					ends = append(ends, len(enc))
				}
				s.InternAll(enc, ends, nil)
			}
			d := &s.side
			if s.width >= 0 || !d.wide || d.t4 != nil || d.table == nil {
				t.Fatalf("mixed %v: after the move: width %d, wide %v, 4-byte table %v, 8-byte table %v", mixed, s.width, d.wide, d.t4 != nil, d.table != nil)
			}
			for id, key := range keys {
				if got, ok := s.Lookup(key); !ok || got != uint32(id) {
					t.Fatalf("mixed %v: state %d is %d after the move", mixed, id, got)
				}
			}
			if s.n != len(keys) {
				t.Fatalf("mixed %v: %d states, want %d", mixed, s.n, len(keys))
			}
		}
	})
}
