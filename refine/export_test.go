package refine

// WithRoundBatch returns o with levelRounds' batches of n pairs, and the
// workers expanding every level however small (tests of the csp rounds).
func WithRoundBatch(o Options, n int) Options {
	o.roundBatch, o.parallelAll = n, true
	return o
}
