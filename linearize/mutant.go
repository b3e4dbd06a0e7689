package linearize

// SetTagMutant sets the hand mutant of the late arguments (tests only:
// 0 is none) and returns a function that restores the previous one.
func SetTagMutant(m int) func() {
	old := tagMutant
	tagMutant = m
	return func() { tagMutant = old }
}
