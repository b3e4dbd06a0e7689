package budget

import (
	"context"
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector's pace.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestPace: TuneGC paces the collector at GCPercent until the heap passes
// BigHeap, then at the default pace, once, up to the next search (New);
// restoring gives back the pace before; a pace the user set (GOGC) is left
// alone.
func TestPace(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	t.Setenv("GOGC", "")
	restore := TuneGC(0)
	if p := gcPercent(); p != GCPercent {
		t.Fatalf("tuned: pace %d, want %d", p, GCPercent)
	}
	slowDown(BigHeap - 1)
	if p := gcPercent(); p != GCPercent {
		t.Errorf("below BigHeap: pace %d, want %d", p, GCPercent)
	}
	slowDown(BigHeap)
	if p := gcPercent(); p != 100 {
		t.Errorf("at BigHeap: pace %d, want 100", p)
	}
	debug.SetGCPercent(55) // slowDown acts once
	slowDown(2 * BigHeap)
	if p := gcPercent(); p != 55 {
		t.Errorf("second slowDown: pace %d, want 55 (untouched)", p)
	}
	New(context.Background(), 0, 0, 0).Close() // a new search: paced for speed again
	if p := gcPercent(); p != GCPercent {
		t.Errorf("a new search: pace %d, want %d", p, GCPercent)
	}
	slowDown(BigHeap)
	if p := gcPercent(); p != 100 {
		t.Errorf("a new search at BigHeap: pace %d, want 100", p)
	}
	restore()
	if p := gcPercent(); p != 77 {
		t.Errorf("restored: pace %d, want 77", p)
	}
	slowDown(BigHeap) // not tuned any more
	New(context.Background(), 0, 0, 0).Close()
	if p := gcPercent(); p != 77 {
		t.Errorf("after restore: pace %d, want 77", p)
	}

	t.Setenv("GOGC", "200")
	restore = TuneGC(0)
	slowDown(BigHeap)
	if p := gcPercent(); p != 77 {
		t.Errorf("GOGC set by the user: pace %d, want 77 (untouched)", p)
	}
	restore()
}

// TestExceededSlowsDown: a search's polls (Exceeded) lower the pace once
// the heap has passed the mark (here one byte).
func TestExceededSlowsDown(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	t.Setenv("GOGC", "")
	defer TuneGC(0)()
	paceAt.Store(1)
	b := New(context.Background(), 0, 0, 0)
	defer b.Close()
	if r := b.Exceeded(0); r != "" {
		t.Fatal(r)
	}
	if p := gcPercent(); p != 100 {
		t.Errorf("pace %d after a poll, want 100", p)
	}
}
