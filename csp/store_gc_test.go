package csp

import (
	"context"
	"encoding/binary"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestGrowCollectsOldTable: a table that growing leaves behind, once it is
// big (bigOld, lowered here), is collected at once, so the heap holds
// little more than the store, with the collector otherwise off (as it
// nearly is in a large exploration, budget.TuneGC). The side set's table
// (28-byte strings) and the inline one (20-byte strings).
func TestGrowCollectsOldTable(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer func(b int) { bigOld = b }(bigOld)
	bigOld = 1 << 20
	for _, width := range []int{-1, 20} {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		s := newStore(width)
		n := 28
		if width > 0 {
			n = width
		}
		b := make([]byte, n)
		for i := uint64(0); s.Len() < 600_000; i++ {
			binary.LittleEndian.PutUint64(b, i*0x9E3779B97F4A7C15)
			binary.LittleEndian.PutUint64(b[8:], i)
			s.Intern(b)
		}
		runtime.ReadMemStats(&ms)
		held, live := int64(ms.HeapAlloc-base), s.Bytes()
		t.Logf("width %d: heap %d MB, store %d MB", width, held>>20, live>>20)
		// The old tables below bigOld and the small arrays' old copies
		// may stay; the last table left behind (4 MiB and more) may not.
		if held > live+3<<20 {
			t.Errorf("width %d: the heap holds %d bytes, the store %d: a table left behind was not collected", width, held, live)
		}
		runtime.KeepAlive(s)
	}
}

// TestGrowCollectsOldTableParallel: the parallel rounds' growing of the
// side set's table collects the big tables it leaves behind too: at least
// as many collections as the sequential search's growing (the rounds make
// room for a round's strings, so their table ends at least as large).
func TestGrowCollectsOldTableParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer func(b int) { bigOld = b }(bigOld)
	bigOld = 32 << 10
	src := `
var a[30];
P(i) = [] k:{0..8} @ ([a[k] < 2] s.i.k{a[k] = a[k] + 1} -> P(i));
Sys = ||| i:{0..1} @ P(i);
`
	var gcs []uint32
	for _, w := range []int{1, 2} {
		p := compileSrc(t, src)
		sys, err := p.ProcessByName("Sys")
		if err != nil {
			t.Fatal(err)
		}
		// (Counted by collectOld: freeBefore collects too, before a
		// table is allocated, which the rounds do ahead, not as often.)
		n0 := oldCollected.Load()
		r, err := Explore(context.Background(), sys, Options{Workers: w})
		if err != nil || r.Stats.States != 19683 {
			t.Fatalf("%d workers: %v, %+v", w, err, r.Stats)
		}
		gcs = append(gcs, uint32(oldCollected.Load()-n0))
	}
	if gcs[0] == 0 || gcs[1] < gcs[0] {
		t.Errorf("collections while growing: one worker %d, two %d", gcs[0], gcs[1])
	}
}
