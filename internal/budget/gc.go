package budget

import (
	"os"
	"runtime/debug"
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

// TuneGC sets the collector for searching: GCPercent, unless the user set
// GOGC, and a soft memory limit of maxBytes (when positive), unless the user
// set GOMEMLIMIT. It returns a function that restores the previous settings.
func TuneGC(maxBytes int64) (restore func()) {
	percent, limit := -2, int64(-1)
	if os.Getenv("GOGC") == "" {
		percent = debug.SetGCPercent(GCPercent)
	}
	if maxBytes > 0 && os.Getenv("GOMEMLIMIT") == "" {
		limit = debug.SetMemoryLimit(maxBytes)
	}
	return func() {
		if percent != -2 {
			debug.SetGCPercent(percent)
		}
		if limit >= 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}
