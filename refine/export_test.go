package refine

// WithRoundBatch returns o with levelRounds' batches of n pairs, and the
// workers expanding every level however small (tests of the csp rounds).
func WithRoundBatch(o Options, n int) Options {
	o.roundBatch, o.parallelAll = n, true
	return o
}

// SetNoPrefetch turns the search's prefetches off (on) and returns a
// function that restores the setting.
func SetNoPrefetch(off bool) func() {
	old := noPrefetch
	noPrefetch = off
	return func() { noPrefetch = old }
}
