package csp

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// sideCase is a scenario of TestSideSetOracle: a store of width width (-1:
// every string is a side string and ranks are ids; otherwise the side set
// keeps the ids), strings of length first until the switch-th distinct
// side string, then of the lengths after (none: one length throughout).
type sideCase struct {
	name   string
	width  int
	first  int
	after  []int
	inline bool // some strings have the store's width
}

// TestSideSetOracle checks the side set against a Go map that numbers
// strings in the order they are first met: ids of Intern and of InternAll
// batches (duplicates inside and across batches), Lookup of present and
// absent strings, Get of every id after every growth of the table, and
// the layout: one length keeps the records dense (no arena, no id or
// length stored), a second length moves them to the arena at a random
// moment (or at the second record). The strings' bytes widen at random
// moments (values below 4, then 16, then any byte, or from 4 values
// straight to any byte): a packed layout must repack then. Odd runs
// release the old tables' pages as they grow (releaseMin and
// releaseBlock lowered): what is released must have been moved.
func TestSideSetOracle(t *testing.T) {
	// The side set beside an inline table: the store must not move its
	// states to a side set without ids (toSide; TestSideFromAgree).
	defer func(n int) { sideFrom = n }(sideFrom)
	sideFrom = 1 << 30
	defer func(m int, b uint64) { releaseMin, releaseBlock = m, b }(releaseMin, releaseBlock)
	rel0 := released.Load()
	cases := []sideCase{
		{name: "dense28", width: -1, first: 28},
		{name: "dense5", width: -1, first: 5},
		{name: "dense1", width: -1, first: 1},
		{name: "dense0", width: -1, first: 0},
		{name: "dense33", width: -1, first: 33},
		{name: "dense8", width: -1, first: 8},
		{name: "dense15", width: -1, first: 15},
		{name: "dense17", width: -1, first: 17},
		{name: "dense32", width: -1, first: 32},
		{name: "dense64", width: -1, first: 64},
		{name: "dense65", width: -1, first: 65},
		{name: "dense-ids15", width: 6, first: 15, inline: true},
		{name: "dense-ids", width: 18, first: 28, inline: true},
		{name: "switch", width: -1, first: 28, after: []int{28, 29, 5, 200, 0}},
		{name: "switch-ids", width: 18, first: 28, after: []int{28, 31, 0, 17}, inline: true},
		{name: "switch-short", width: -1, first: 12, after: []int{12, 13}},
		{name: "mixed", width: -1, first: -1, after: []int{3, 28, 40, 0, 130}},
	}
	runs := 12
	if testing.Short() {
		runs = 4
	}
	packed := map[uint]int{} // dense runs by their final packing
	for _, tc := range cases {
		for run := range runs {
			releaseMin, releaseBlock = 16<<20, 1<<16
			if run%2 == 1 {
				releaseMin, releaseBlock = 0, 512
			}
			rng := rand.New(rand.NewPCG(uint64(run), 77))
			if err := sideOracle(tc, rng, run == 0, packed); err != nil {
				t.Errorf("%s run %d: %v", tc.name, run, err)
			}
		}
	}
	if !testing.Short() && (packed[2] == 0 || packed[4] == 0 || packed[8] == 0) {
		t.Errorf("dense runs ending at 2, 4 and 8 bits a byte: %v", packed)
	}
	t.Logf("dense runs ending at 2, 4 and 8 bits a byte: %v; %d pages released", packed, released.Load()-rel0)
	if runtime.GOOS == "linux" && released.Load() == rel0 {
		t.Errorf("no page released")
	}
}

// packedBits is the packing of dense side records of length ln (2, 4 or
// 8 bits a byte) that the side strings among all call for: 2 if every
// byte is below 4 and ln is pack2Min to pack2Max, else 4 if every byte is
// below 16 and ln is packMin to packMax.
func packedBits(all [][]byte, ln int) uint {
	if packOff || ln < packMin || ln > packMax {
		return 8
	}
	top := byte(0)
	for _, k := range all {
		if len(k) == ln {
			for _, c := range k {
				top = max(top, c)
			}
		}
	}
	switch {
	case top >= 16:
		return 8
	case top >= 4 || pack2Off || ln < pack2Min || ln > pack2Max:
		return 4
	}
	return 2
}

// packedLen is the length of a dense record of ln bytes packed at bits
// bits a byte.
func packedLen(ln int, bits uint) int {
	switch bits {
	case 2:
		return (ln + 3) / 4
	case 4:
		return (ln + 1) / 2
	}
	return ln
}

// sideOracle runs one scenario; switchAt1 puts the switch at the second
// side string. packed counts the dense runs by their final packing.
func sideOracle(tc sideCase, rng *rand.Rand, switchAt1 bool, packed map[uint]int) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("panic: %v", e)
		}
	}()
	n := 20000 + rng.IntN(20000)
	switchAt := 1 + rng.IntN(n/2)
	if switchAt1 {
		switchAt = 1
	}
	// The byte alphabet widens at two random moments (to 16 values, then
	// to any byte); a third of the runs (by rng's first draw) stop before
	// the second, another third before the first.
	widen1, widen2 := rng.IntN(n), rng.IntN(n)
	widen1, widen2 = min(widen1, widen2), max(widen1, widen2)
	switch rng.IntN(4) { // (a last batch may take step past n)
	case 1:
		widen2 = 2 * n
	case 2:
		widen1, widen2 = 2*n, 2*n
	case 3:
		widen1 = widen2 // from 4 values to any byte
	}
	s := newStore(tc.width)
	want := map[string]uint32{}
	var keys []string
	sideSeen := 0
	str := func(step int) []byte {
		top := 4
		if step >= widen2 {
			top = 256
		} else if step >= widen1 {
			top = 16
		}
		ln := tc.first
		if tc.inline && rng.IntN(3) == 0 {
			ln = tc.width
		} else if tc.first < 0 || len(tc.after) > 0 && sideSeen >= switchAt {
			ln = tc.after[rng.IntN(len(tc.after))]
		}
		if len(keys) > 0 && rng.IntN(3) == 0 {
			// A string met before (its length may be another).
			k := keys[rng.IntN(len(keys))]
			if len(k) == ln || tc.first < 0 || len(tc.after) > 0 && sideSeen >= switchAt {
				return []byte(k)
			}
		}
		b := make([]byte, ln)
		for i := range b {
			// Mostly small values, as states are, so that strings share
			// bytes and differ in one or two.
			b[i] = byte(rng.IntN(min(top, 4)))
			if rng.IntN(4) == 0 {
				b[i] = byte(rng.IntN(top))
			}
		}
		return b
	}
	// note records b, interned with id (added: new), against the map.
	note := func(b []byte, id uint32, added bool) error {
		old, seen := want[string(b)]
		switch {
		case seen && (added || id != old):
			return fmt.Errorf("%x: id %d added %v, want %d", b, id, added, old)
		case !seen && (!added || id != uint32(len(keys))):
			return fmt.Errorf("%x: id %d added %v, want new %d", b, id, added, len(keys))
		case !seen:
			want[string(b)] = id
			keys = append(keys, string(b))
			if len(b) != tc.width {
				sideSeen++
			}
		}
		return nil
	}
	checkAll := func() error {
		for id, k := range keys {
			if got := s.Get(uint32(id)); string(got) != k {
				return fmt.Errorf("Get(%d) = %x, want %x", id, got, k)
			}
		}
		return nil
	}
	var enc []byte
	var ends []int
	var ids []uint32
	table := s.side.slotCount()
	for step := 0; step < n; {
		if rng.IntN(2) == 0 {
			b := str(step)
			step++
			id, added := s.Intern(b)
			if err := note(b, id, added); err != nil {
				return fmt.Errorf("step %d: Intern %v", step, err)
			}
		} else {
			// A batch: its new strings get ids in batch order, so the
			// map is told in that order.
			enc, ends = enc[:0], ends[:0]
			for range rng.IntN(70) {
				enc = append(enc, str(step)...)
				ends = append(ends, len(enc))
				step++
			}
			before := len(keys)
			ids = s.InternAll(enc, ends, ids[:0])
			start := 0
			for k, end := range ends {
				b := enc[start:end]
				start = end
				_, seen := want[string(b)]
				if err := note(b, ids[k], !seen); err != nil {
					return fmt.Errorf("step %d: InternAll %v", step, err)
				}
			}
			if s.Len() != len(keys) {
				return fmt.Errorf("step %d: %d strings after a batch, want %d (%d before)", step, s.Len(), len(keys), before)
			}
		}
		if s.side.slotCount() != table {
			table = s.side.slotCount()
			if err := checkAll(); err != nil {
				return fmt.Errorf("after growing to %d slots: %v", table, err)
			}
		}
	}
	if s.Len() != len(keys) {
		return fmt.Errorf("%d strings, want %d", s.Len(), len(keys))
	}
	if err := checkAll(); err != nil {
		return err
	}
	for id, k := range keys {
		if got, ok := s.Lookup([]byte(k)); !ok || got != uint32(id) {
			return fmt.Errorf("Lookup(%x) = %d %v, want %d", k, got, ok, id)
		}
	}
	for range 200 {
		b := make([]byte, max(tc.first, 1)+rng.IntN(3))
		for i := range b {
			b[i] = byte(200 + rng.IntN(56)) // (if met before: skipped)
		}
		if _, seen := want[string(b)]; seen {
			continue
		}
		if id, ok := s.Lookup(b); ok {
			return fmt.Errorf("absent %x found as %d", b, id)
		}
	}
	// The layout.
	d := &s.side
	side := 0
	for _, k := range keys {
		if len(k) != tc.width {
			side++
		}
	}
	if d.n != side {
		return fmt.Errorf("%d side records, want %d", d.n, side)
	}
	lens := map[int]bool{}
	for _, k := range keys {
		if len(k) != tc.width {
			lens[len(k)] = true
		}
	}
	if len(lens) == 1 {
		if d.recLen != tc.first || len(d.chunks) != 0 || len(d.refs) != 0 {
			return fmt.Errorf("one length: dense length %d, %d arena chunks, %d refs blocks", d.recLen, len(d.chunks), len(d.refs))
		}
		// Packed at 4 bits a byte while every side byte seen is below
		// 16, the length allowing.
		var all [][]byte
		for _, k := range keys {
			all = append(all, []byte(k))
		}
		bits := packedBits(all, tc.first)
		plen := packedLen(tc.first, bits)
		used := 0
		for _, c := range d.dense {
			used += len(c)
		}
		if d.pbits != bits || d.plen != plen || used != d.n*plen {
			return fmt.Errorf("dense records of %d bytes at %d bits a byte (%d bytes each) take %d bytes for %d; want %d bits, %d bytes each", tc.first, d.pbits, d.plen, used, d.n, bits, plen)
		}
		packed[bits]++
	} else if len(lens) > 1 && (d.recLen != arenaLen || len(d.dense) != 0) {
		return fmt.Errorf("%d lengths: dense length %d, %d dense chunks", len(lens), d.recLen, len(d.dense))
	}
	return slotLayout(d)
}

// slotLayout checks the side table's layout, the same after a search
// with one worker or in parallel rounds: 4-byte slots while the records
// are dense and the table has up to 1<<slot4Max slots, else 8-byte ones;
// a 4-byte slot's rank field takes log2(slots) bits, and no slot is
// provisional (every occupied slot's rank field is a rank+1 up to n; an
// 8-byte slot has no provBit).
func slotLayout(d *sideSet) error {
	bits := uint(0)
	for 1<<bits < d.slotCount() {
		bits++
	}
	if four := !slot4Off && !d.wide && d.recLen != arenaLen && bits <= slot4Max; four != (d.t4 != nil) || four == (d.table != nil) || four && d.rbits != bits {
		return fmt.Errorf("dense length %d, 2^%d slots: 4-byte table %v (%d rank bits), 8-byte table %v", d.recLen, bits, d.t4 != nil, d.rbits, d.table != nil)
	}
	used := 0
	// Every record has exactly one slot, whose fingerprint is its
	// hash's, with no empty slot between its home and it (linear
	// probing finds it).
	seen := map[uint64]bool{}
	home := func(i int, loc uint64) error {
		if seen[loc] {
			return fmt.Errorf("slot %d: location %d has two slots", i, loc)
		}
		seen[loc] = true
		for j := d.hashAt(loc) >> d.shift; int(j) != i; j = (j + 1) & d.mask {
			if d.t4 != nil && d.t4[j] == 0 || d.table != nil && d.table[j] == 0 {
				return fmt.Errorf("slot %d (location %d): empty slot %d between its home and it", i, loc, j)
			}
		}
		return nil
	}
	for i, v := range d.t4 {
		if v == 0 {
			continue
		}
		used++
		k := v & d.rmask
		if k == 0 || int(k) > d.n {
			return fmt.Errorf("4-byte slot %d of %d: %#x, rank field %d of %d records", i, len(d.t4), v, k, d.n)
		}
		if fp := d.fp4(d.hashAt(uint64(k - 1))); v&^d.rmask != fp {
			return fmt.Errorf("4-byte slot %d: %#x, fingerprint of record %d %#x", i, v, k-1, fp)
		}
		if err := home(i, uint64(k-1)); err != nil {
			return err
		}
	}
	for i, v := range d.table {
		if v == 0 {
			continue
		}
		used++
		if v&provBit != 0 {
			return fmt.Errorf("8-byte slot %d of %d: %#x is provisional", i, len(d.table), v)
		}
		loc := v&(1<<offBits-1) - 1
		if h := d.hashAt(loc); v>>offBits != h>>offBits {
			return fmt.Errorf("8-byte slot %d: %#x, fingerprint of the record at %d %#x", i, v, loc, h>>offBits)
		}
		if err := home(i, loc); err != nil {
			return err
		}
	}
	if used != d.n {
		return fmt.Errorf("%d slots used for %d records", used, d.n)
	}
	return nil
}

// TestSideSlot4 runs TestSideSetOracle's scenarios with the side table's
// slot width forced by its hooks: 8-byte slots throughout (slot4Off);
// 4-byte slots up to 2^9 slots, then 8-byte ones rebuilt from the records
// (slot4Max 9); and 4-byte slots with the hashes cut to their top 16 bits
// (sideHashMask), so that the 4-byte fingerprints (bits 32 to 63-rbits of
// the hash) are all zero past 2^16 slots and mostly equal below: every
// probe compares records.
func TestSideSlot4(t *testing.T) {
	// The side set beside an inline table: the store must not move its
	// states to a side set without ids (toSide; TestSideFromAgree).
	defer func(n int) { sideFrom = n }(sideFrom)
	sideFrom = 1 << 30
	defer func(o bool, m uint, h uint64) { slot4Off, slot4Max, sideHashMask = o, m, h }(slot4Off, slot4Max, sideHashMask)
	cases := []sideCase{
		{name: "dense28", width: -1, first: 28},
		{name: "dense5", width: -1, first: 5},
		{name: "dense0", width: -1, first: 0},
		{name: "dense33", width: -1, first: 33},
		{name: "dense15", width: -1, first: 15},
		{name: "dense65", width: -1, first: 65},
		{name: "dense-ids", width: 18, first: 28, inline: true},
		{name: "switch", width: -1, first: 28, after: []int{28, 29, 5, 200, 0}},
		{name: "switch-ids", width: 18, first: 28, after: []int{28, 31, 0, 17}, inline: true},
		{name: "mixed", width: -1, first: -1, after: []int{3, 28, 40, 0, 130}},
	}
	modes := []struct {
		name string
		off  bool
		max  uint
		mask uint64
	}{
		{"8-byte", true, 27, ^uint64(0)},
		{"max9", false, 9, ^uint64(0)},
		{"weak", false, 27, 0xFFFF << 48},
	}
	runs := 4
	if testing.Short() {
		runs = 2
	}
	for _, m := range modes {
		slot4Off, slot4Max, sideHashMask = m.off, m.max, m.mask
		packed := map[uint]int{}
		for _, tc := range cases {
			for run := range runs {
				rng := rand.New(rand.NewPCG(uint64(run), 78))
				if err := sideOracle(tc, rng, run == 0, packed); err != nil {
					t.Errorf("%s %s run %d: %v", m.name, tc.name, run, err)
				}
			}
		}
	}
}

// denseSwitchModel returns a maker of TestDenseSwitchParallel's model:
// with top -1 every byte of its 30-byte states stays below 4, with top 0
// below 16, with 50 some pass 15 in the middle of the search, with 70 z
// takes two bytes (the arena).
func denseSwitchModel(t *testing.T, top int) func() *Proc {
	return denseSwitchModelStride(t, top, 1)
}

// denseSwitchModelStride is denseSwitchModel with process i counting in
// a[i*stride] (top >= 0 only: with stride 7 the four counters lie in
// each of the four words a 30-byte record is compared by, bytes 0-7,
// 8-15, 16-23 and 22-29, where with stride 1 bytes 16 to 23 never
// change).
func denseSwitchModelStride(t *testing.T, top, stride int) func() *Proc {
	amax, vars, procs := 2, 24, 3
	if top < 0 {
		amax, vars, procs = 1, 16, 11
	}
	if procs*stride >= vars {
		t.Fatalf("stride %d: a[%d] past a[%d]", stride, procs*stride, vars-1)
	}
	src := fmt.Sprintf(`
var a[%[1]d];
var z = 0;
P(i) = [a[i*%[5]d] < %[2]d] s.i{a[i*%[5]d] = a[i*%[5]d] + 1} -> P(i) [] [a[i*%[5]d] > 0] d.i{a[i*%[5]d] = a[i*%[5]d] - 1} -> P(i);
Q = [z < %[3]d] up{z = z + 9} -> Q [] [z > 0] down{z = z - 5} -> Q;
Sys = (||| i:{0..%[4]d} @ P(i)) ||| Q;
`, vars, amax, top, procs, stride)
	return func() *Proc {
		sys, err := compileSrc(t, src).ProcessByName("Sys")
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}
}

// TestSideCollisionsParallel: with the side hashes cut to their top 4
// bits (16 fingerprints and home slots for thousands of states), every
// lookup of the sequential and parallel searches compares records whose
// fingerprints agree but whose bytes differ (at 2, 4 and 8 bits a value,
// and in the arena) and probe runs cross the partitions; the searches
// must still give the ids, transitions and counterexample of the
// sequential search with the full hash.
func TestSideCollisionsParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(r int) { parRound = r }(parRound)
	defer func(m, set uint64, o bool, x uint) { sideHashMask, sideHashSet, slot4Off, slot4Max = m, set, o, x }(sideHashMask, sideHashSet, slot4Off, slot4Max)
	for _, tc := range []struct{ top, stride int }{{-1, 1}, {0, 1}, {50, 1}, {70, 1}, {0, 7}, {50, 7}, {70, 7}} {
		top := tc.top
		mk := denseSwitchModelStride(t, top, tc.stride)
		const limit = 100000
		sideHashMask = ^uint64(0)
		parRound = 2048
		want := recordSearch(t, mk, 1, limit)
		// The homes at the start of 16 blocks of slots (set 0), or near
		// their ends (set 0xF<<56): then the probe runs cross the
		// partitions and the table's end, and the rounds' rebuilds
		// leave records to the serial pass.
		for _, set := range []uint64{0, 0xF << 56} {
			sideHashSet = set
			weakHashSearches(t, mk, want, top, tc.stride, set)
		}
		sideHashSet = 0
	}
}

// weakHashSearches is TestSideCollisionsParallel's searches with the weak
// hash (sideHashMask, sideHashSet = set) against want.
func weakHashSearches(t *testing.T, mk func() *Proc, want searchRecord, top, stride int, set uint64) {
	t.Helper()
	const limit = 100000
	sideHashMask = 0xF << 60
	defer func() { sideHashMask = ^uint64(0) }()
	failed, cases := 0, 0
	var paths [9]int
	// With 4-byte slots and with 8-byte ones (slot4Off), one worker
	// or in the parallel rounds (each has its own compare loops);
	// max: slot4Max, 10 for rounds that move to 8-byte slots in the
	// middle of the search (up to 10,300 states: 2^14 slots).
	for _, c := range []struct {
		w, round int
		off      bool
		max      uint
	}{{1, 2048, false, 27}, {1, 2048, true, 27}, {2, 2048, false, 27}, {2, 64, false, 27}, {4, 2048, false, 27}, {4, 64, false, 27},
		{2, 2048, true, 27}, {4, 64, true, 27}, {2, 64, false, 10}} {
		parRound, slot4Off, slot4Max = c.round, c.off, c.max
		cases++
		got := recordSearch(t, mk, c.w, limit)
		for i, n := range got.paths {
			paths[i] += n
		}
		// Rounds on 4-byte slots exactly when the set has them at
		// the first round (dense records, not slot4Off).
		if c.w > 1 && (got.paths[4] > 0) == c.off {
			t.Errorf("top %d stride %d workers %d slot4Off %v: %s %v", top, stride, c.w, c.off, pathNames, got.paths)
		}
		slot4Off, slot4Max = false, 27
		if !sameSearch(t, fmt.Sprintf("top %d stride %d workers %d round %d slot4Off %v slot4Max %d", top, stride, c.w, c.round, c.off, c.max), want, got, false, false) {
			failed++
		}
	}
	t.Logf("top %d stride %d set %#x: %d states; %s %v; %d of %d weak-hash searches differ", top, stride, set, want.count, pathNames, paths, failed, cases)
	if paths[4] == 0 || paths[5] == 0 {
		t.Errorf("top %d stride %d set %#x: %s %v: no round on 4-byte slots, or none rebuilt", top, stride, set, pathNames, paths)
	}
	if set != 0 && paths[6] == 0 {
		t.Errorf("top %d stride %d set %#x: %s %v: no rebuild left records to the serial pass", top, stride, set, pathNames, paths)
	}
}

// TestDenseSwitchParallel: the side set moves from dense records to the
// arena in the middle of a search, when a variable first takes two bytes
// (z above 63), in a round of the parallel search; the searches with 2, 4
// and 16 workers, in rounds of every size, give the sequential search's
// ids, transitions and counterexample. The states take 30 bytes (side
// states only); with z below 64 they stay dense.
func TestDenseSwitchParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(r int) { parRound = r }(parRound)
	defer func(m int, b uint64) { releaseMin, releaseBlock = m, b }(releaseMin, releaseBlock)
	rel0 := released.Load()
	defer func() {
		if runtime.GOOS == "linux" && released.Load() == rel0 {
			t.Errorf("no page released")
		}
	}()
	for _, top := range []int{-1, 0, 50, 70} {
		// top -1: twelve P of a[i] 0 or 1 (bytes 0 and 2 in zigzag), z
		// 0: every byte below 4, packed at 2 bits throughout (4096
		// states of 30 bytes); top 0: a[i] up to 2 (byte 4): repacked
		// at 4 bits in the middle.
		mk := denseSwitchModel(t, top)
		// A limit far above the count: a store that loses states
		// (a record cut short never matches again) ends, and fails.
		const limit = 100000
		parRound = 2048
		seq := recordSearch(t, mk, 1, limit)
		if seq.count >= limit {
			t.Fatalf("top %d: %d states", top, seq.count)
		}
		// The layout the sequential search ends with.
		sys := mk()
		if _, err := Explore(context.Background(), sys, Options{Workers: 1}); err != nil {
			t.Fatal(err)
		}
		d := &sys.store.side
		if sys.store.width >= 0 || d.n != sys.NumStates() {
			t.Fatalf("top %d: width %d, %d side states of %d", top, sys.store.width, d.n, sys.NumStates())
		}
		if dense := top < 64; dense != (d.recLen >= 0) {
			t.Fatalf("top %d: dense length %d after %d states", top, d.recLen, d.n)
		}
		// With z at 0 every byte stays below 16: packed throughout; up
		// to 50, z passes 7 (zigzag 16) in the middle of the search,
		// and the records are unpacked there.
		if want := map[int]uint{-1: 2, 0: 4, 50: 8}[top]; want != 0 && d.pbits != want {
			t.Fatalf("top %d: records at %d bits a byte, want %d", top, d.pbits, want)
		}
		failed, cases := 0, 0
		var paths [9]int
		for _, round := range []int{2048, 1, 5, 64} {
			parRound = round
			for _, w := range []int{2, 4, 16} {
				for _, region := range []int{storeChunk, 16} {
					parRegionMax = region
					// The round of 5 releases the old tables' pages as
					// they grow, by blocks of 8 KiB.
					releaseMin, releaseBlock = 16<<20, 1<<16
					if round == 5 {
						releaseMin, releaseBlock = 0, 1024
					}
					cases++
					par := recordSearch(t, mk, w, limit)
					for i, n := range par.paths {
						paths[i] += n
					}
					if !sameSearch(t, fmt.Sprintf("top %d workers %d round %d region %d", top, w, round, region), seq, par, false, false) {
						failed++
					}
				}
				parRegionMax = storeChunk
			}
		}
		t.Logf("top %d: %d states, "+pathNames+" %v; %d of %d parallel searches differ", top, seq.count, paths, failed, cases)
		// At 2 bits a byte throughout (top -1), the folded inserts and
		// the ids by bits do every round but those whose records pass
		// the region.
		if top == -1 && (paths[0] == 0 || paths[1] == 0 || paths[4] == 0 || paths[5] == 0 || paths[6] == 0) {
			t.Errorf("top %d: %s %v: the folded inserts, the ids by bits, the 4-byte slots, their rebuilds or their left records never ran", top, pathNames, paths)
		}
		if failed > 0 {
			t.Errorf("top %d: %d of %d parallel searches differ", top, failed, cases)
		}
		if strings.HasPrefix(seq.trace, "error") {
			t.Errorf("top %d: %s", top, seq.trace)
		}
	}
}

// TestSideSetCollisions: strings whose fingerprints agree (so that they
// share a probe run and only the byte compare tells them apart) and that
// differ only inside one 8-byte window, for every window position and
// lengths around the word-compare range, their other bytes 1, 9 or 100 (so
// that dense records are packed at 4 bits a byte, or not: too long, or a
// byte above 15); each pair must get two ids, by Intern and in batches,
// with the records dense and in the arena. (Random
// strings almost never reach the compare: a 26-bit fingerprint filters
// them.)
func TestSideSetCollisions(t *testing.T) {
	for _, c := range []struct{ ln, base int }{
		{8, 1}, {9, 1}, {16, 1}, {17, 1}, {24, 1}, {25, 1}, {28, 1}, {32, 1}, {33, 1}, {40, 1}, {64, 1}, {65, 1},
		{28, 9}, {33, 9}, {28, 100}, {33, 100},
	} {
		ln := c.ln
		probe := newStore(-1)
		var pairs [][2][]byte
		for j := 0; j+8 <= ln; j += 3 {
			seen := map[uint64][]byte{}
			for v := range 1 << 16 {
				b := make([]byte, ln)
				for i := range b {
					b[i] = byte(c.base)
				}
				for i := range 8 {
					b[j+i] = byte(v >> (2 * i) & 3)
				}
				fp := probe.Hash(b) >> offBits
				if a, ok := seen[fp]; ok {
					pairs = append(pairs, [2][]byte{a, b})
				} else {
					seen[fp] = b
				}
			}
		}
		if len(pairs) < 10 {
			t.Fatalf("length %d: %d pairs", ln, len(pairs))
		}
		// The pairs were found with probe's seed: the stores share it.
		for _, arena := range []bool{false, true} {
			for _, batch := range []bool{false, true} {
				if err := collide(probe, pairs, ln, arena, batch); err != nil {
					t.Errorf("length %d arena %v batch %v: %v", ln, arena, batch, err)
				}
			}
		}
	}
}

// collide interns the pairs (see TestSideSetCollisions) into a store of
// probe's seed and checks their ids, Lookup and Get.
func collide(probe *store, pairs [][2][]byte, ln int, arena, batch bool) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("panic: %v", e)
		}
	}()
	{
		{
			{
				s := newStore(-1)
				s.seed = probe.seed
				s.side.seed, s.side.hk = probe.seed, probe.side.hk
				want := map[string]uint32{}
				var all [][]byte
				if arena {
					all = append(all, make([]byte, ln+1))
				}
				for _, p := range pairs {
					all = append(all, p[0], p[1])
				}
				var enc []byte
				var ends []int
				var ids []uint32
				for k, b := range all {
					if batch {
						enc = append(enc, b...)
						ends = append(ends, len(enc))
						if len(ends) == 37 || k == len(all)-1 {
							ids = s.InternAll(enc, ends, ids)
							enc, ends = enc[:0], ends[:0]
						}
					} else {
						id, _ := s.Intern(b)
						ids = append(ids, id)
					}
				}
				for k, b := range all {
					if id, ok := want[string(b)]; ok && id != ids[k] || !ok && ids[k] != uint32(len(want)) {
						return fmt.Errorf("string %d %x got id %d", k, b, ids[k])
					}
					want[string(b)] = ids[k]
				}
				for b, id := range want {
					if got, ok := s.Lookup([]byte(b)); !ok || got != id || string(s.Get(id)) != b {
						return fmt.Errorf("Lookup %d %v, Get(%d) = %x, want %x", got, ok, id, s.Get(id), b)
					}
				}
				if dense := s.side.recLen >= 0; dense == arena {
					return fmt.Errorf("dense length %d", s.side.recLen)
				}
				if bits := packedBits(all, ln); !arena && s.side.pbits != bits {
					return fmt.Errorf("dense records at %d bits a byte, want %d", s.side.pbits, bits)
				}
			}
		}
	}
	return nil
}

// randPackable returns n random bytes below lo and, one time in three,
// one of them (at big; else big is -1) replaced by a byte in [lo, hi).
func randPackable(rng *rand.Rand, n, lo, hi int) (b []byte, big int) {
	b = make([]byte, n)
	for i := range b {
		b[i] = byte(rng.IntN(lo))
	}
	big = -1
	if rng.IntN(3) == 0 {
		big = rng.IntN(n)
		b[big] = byte(lo + rng.IntN(hi-lo))
	}
	return b, big
}

// TestPack4 checks the packings against a loop over the bytes: up to 32
// bytes, packed byte i is b[i] | b[h+i]<<4 with h = (len(b)+1)/2 (pack32);
// beyond, packed byte j is b[2j] | b[2j+1]<<4 (packLong); unpack4 inverts
// them; ok is false exactly when some byte is 16 or more (at any
// position, including the last of a partial word).
func TestPack4(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 16))
	for n := packMin; n <= packMax; n++ {
		for range 300 {
			b, big := randPackable(rng, n, 16, 256)
			w, ok := packW(b)
			if ok != (big < 0) {
				t.Fatalf("%x: ok %v", b, ok)
			}
			if n <= 32 {
				w0, w1, ok2 := pack32(b)
				if ok2 != ok || ok && (w0 != w[0] || w1 != w[1]) {
					t.Fatalf("%x: pack32 %x %x %v, packW %x %v", b, w0, w1, ok2, w, ok)
				}
			}
			if !ok {
				continue
			}
			var want [packMax/2 + 8]byte
			h := (n + 1) / 2
			for i, c := range b {
				if n <= 32 {
					want[i%h] |= c << (4 * (i / h))
				} else {
					want[i/2] |= c << (4 * (i % 2))
				}
			}
			var got [packMax/2 + 8]byte
			for j, x := range w {
				binary.LittleEndian.PutUint64(got[8*j:], x)
			}
			if got != want {
				t.Fatalf("%x: packed %x, want %x", b, got, want)
			}
			if back := unpack4(nil, got[:(n+1)/2], n); string(back) != string(b) {
				t.Fatalf("%x: unpacked %x", b, back)
			}
			if pw := packedWords(got[:(n+1)/2]); pw != w {
				t.Fatalf("%x: packedWords %x, want %x", b, pw, w)
			}
		}
	}
}

// TestPack2 checks the 2-bit packing of the strings of pack2Min to
// pack2Max bytes (fold2 of pack32's words) against a loop over the bytes:
// with h = (len(b)+1)/2, byte i (i < 4) of the word holds b[i] in bits
// 0-1, b[i+4] in bits 2-3, b[h+i] in bits 4-5 and b[h+i+4] in bits 6-7;
// its high half holds the 2k = 2(h-8) values b[8+i], b[h+8+i] (i < k)
// of pack32's second word, the first k in bits 0-1 of its nibbles 0 to
// k-1, the others in their bits 2-3 (0 past a half's end), so that no
// bit from 2*len(b)+2 on (8*ceil(len/4) on: a record's bytes) is set;
// ok is false
// exactly when some byte is 4 or more; unfold2 and unpack32 give the
// string back.
func TestPack2(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 4))
	for n := pack2Min; n <= pack2Max; n++ {
		for range 500 {
			b, big := randPackable(rng, n, 4, 16)
			w0, w1, ok4 := pack32(b)
			if !ok4 {
				t.Fatalf("%x: no 4-bit packing", b)
			}
			x, ok := fold2(w0, w1, fold2Shift(n))
			if ok != (big < 0) {
				t.Fatalf("%x: ok %v", b, ok)
			}
			if !ok {
				continue
			}
			h := (n + 1) / 2
			var want uint64
			for i := range 4 {
				// The first half is b[:h], the second b[h:], each
				// of 8 bytes or more.
				for k, pos := range []int{i, i + 4, h + i, h + i + 4} {
					want |= uint64(b[pos]) << (8*i + 2*k)
				}
			}
			// w1's nibbles: b[8+i] at 2i, b[h+8+i] at 2i+1 (0 past
			// the end), nibble f of 2k at 32+4f or, from k on, at
			// bit 2 of nibble f-k.
			k := h - 8
			for f := range 2 * k {
				pos := 8 + f/2
				if f%2 == 1 {
					pos = h + 8 + f/2
				}
				if pos >= n {
					continue
				}
				at := 32 + 4*f
				if f >= k {
					at = 32 + 4*(f-k) + 2
				}
				want |= uint64(b[pos]) << at
			}
			if x != want {
				t.Fatalf("%x: folded %016x, want %016x", b, x, want)
			}
			if top := 8 * ((n + 3) / 4); top < 64 && x>>top != 0 {
				t.Fatalf("%x: folded %016x has bits from %d on", b, x, top)
			}
			u0, u1 := unfold2(x, fold2Shift(n))
			if u0 != w0 || u1 != w1 {
				t.Fatalf("%x: unfolded %x %x, want %x %x", b, u0, u1, w0, w1)
			}
			if back := unpack32(nil, u0, u1, n); string(back) != string(b) {
				t.Fatalf("%x: unpacked %x", b, back)
			}
		}
	}
}

// TestToArenaEmpty: a side set moved to the arena before its first
// record (no path does this today: the rounds widen the slots first)
// must leave its 4-byte slots, which hold ranks, not arena offsets.
func TestToArenaEmpty(t *testing.T) {
	s := newStore(-1)
	if s.side.t4 == nil && !slot4Off {
		t.Fatal("a new side set has no 4-byte slots")
	}
	s.side.toArena()
	want := map[string]uint32{}
	for i := range 3000 {
		b := []byte(fmt.Sprintf("state %d of some length %d", i, i%7))
		id, _ := s.Intern(b)
		if old, ok := want[string(b)]; ok && old != id {
			t.Fatalf("%q: id %d, then %d", b, old, id)
		}
		want[string(b)] = id
	}
	for b, id := range want {
		if got, ok := s.Lookup([]byte(b)); !ok || got != id || string(s.Get(id)) != b {
			t.Fatalf("Lookup(%q) = %d %v, want %d; Get = %q", b, got, ok, id, s.Get(id))
		}
	}
}

// TestDenseChunksParallel: with dense chunks of 512 or 128 records, the
// parallel rounds fill many of them, and allocate the next one ahead
// during their expansion (wantChunk, handed to growDense as its spare);
// the searches must give the sequential search's ids, transitions and
// counterexample.
func TestDenseChunksParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(r, c int) { parRound, denseChunkMax = r, c }(parRound, denseChunkMax)
	for _, tc := range []struct{ top, stride int }{{-1, 1}, {0, 7}, {50, 7}, {70, 7}} {
		mk := denseSwitchModelStride(t, tc.top, tc.stride)
		const limit = 100000
		parRound, denseChunkMax = 2048, storeChunk
		want := recordSearch(t, mk, 1, limit)
		for _, chunk := range []int{4096, 1024} {
			for _, w := range []int{1, 2, 4} {
				for _, round := range []int{64, 2048} {
					parRound, denseChunkMax = round, chunk
					got := recordSearch(t, mk, w, limit)
					denseChunkMax = storeChunk
					sameSearch(t, fmt.Sprintf("top %d chunk %d workers %d round %d", tc.top, chunk, w, round), want, got, false, false)
				}
			}
		}
	}
}
