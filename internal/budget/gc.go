package budget

import (
	"os"
	"runtime/debug"
	"sync/atomic"
)

// GCPercent is the collector's growth target while searching (GOGC).
//
// A search's heap is almost all state tables that live until the search
// ends; its garbage is the smaller table each growth leaves behind. With the
// runtime's default (collect whenever the heap doubles), every collection
// re-marks the same live tables and the compiled model to free little: in a
// small refinement check it was a third of the time (Table 1, QF 1, seg 3:
// 3.9 ms at GOGC=100, 2.5 ms at 400 and 2.6 ms with the collector off).
// Collecting at every fivefold growth keeps that cost small, and the memory
// limit (SetMemoryLimit) makes the collector work harder, not the search fail,
// when garbage brings the heap near the user's budget.
const GCPercent = 400

// BigHeap is the heap size from which a search tuned by TuneGC goes back
// to the runtime's default pace (GOGC 100), up to the next search. A
// search whose heap has grown this far is a long one: its collections are
// few and cheap (its tables hold no pointers), while at GCPercent the
// garbage it makes as its pair sets, memos and visited sets grow (each
// growth leaves the smaller table behind) could stay up to four times the
// live heap: the `linearizes` check of the segmented queue with four
// segments peaked at 1.61 GB with GCPercent and at 1.35 GB at the default
// pace, for the same CPU time (docs/engine-log.md, "Tables left behind").
const BigHeap = 128 << 20

// paceAt is the heap size at which Exceeded lowers the collector's pace
// (0: never; TuneGC sets it when it sets GCPercent, and each new search,
// New, sets it again: a short check after a large one is paced for speed).
var paceAt atomic.Int64

// tuned: TuneGC set the pace (and has not restored it).
var tuned atomic.Bool

// rearm gives a new search the pace TuneGC set, if a search before it
// lowered it.
func rearm() {
	if tuned.Load() && paceAt.Load() == 0 && paceAt.CompareAndSwap(0, BigHeap) {
		debug.SetGCPercent(GCPercent)
	}
}

// slowDown returns the collector to the default pace if the heap h has
// passed paceAt (once).
func slowDown(h int64) {
	if at := paceAt.Load(); at > 0 && h >= at && paceAt.CompareAndSwap(at, 0) {
		debug.SetGCPercent(100)
	}
}

// TuneGC sets the collector for searching: GCPercent up to a heap of
// BigHeap and the default pace beyond (within each search), unless the
// user set GOGC, and a soft memory limit of maxBytes (when positive),
// unless the user set GOMEMLIMIT. It returns a function that restores the
// previous settings.
func TuneGC(maxBytes int64) (restore func()) {
	percent, limit := -2, int64(-1)
	if os.Getenv("GOGC") == "" {
		percent = debug.SetGCPercent(GCPercent)
		paceAt.Store(BigHeap)
		tuned.Store(true)
	}
	if maxBytes > 0 && os.Getenv("GOMEMLIMIT") == "" {
		limit = debug.SetMemoryLimit(maxBytes)
	}
	return func() {
		if percent != -2 {
			tuned.Store(false)
			paceAt.Store(0)
			debug.SetGCPercent(percent)
		}
		if limit >= 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}
