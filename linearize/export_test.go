package linearize

// SetPruneMutant turns on a hand mutant of Wrapper.Reduce (0: none), for
// the tests that show the oracle notices a wrong pruning rule.
func SetPruneMutant(m int) { pruneMutant = m }
