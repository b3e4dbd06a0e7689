package linearize

// SetTagMutant sets the hand mutant of the late arguments (tests only:
// 0 is none) and returns a function that restores the previous one.
func SetTagMutant(m int) func() {
	old := tagMutant
	tagMutant = m
	return func() { tagMutant = old }
}

// SetEagerTags makes open invocations split into one state per value at
// once (tests compare that with the default, one state whose argument a
// linearization step fixes) and returns a function that restores the
// previous setting.
func SetEagerTags(on bool) func() {
	old := eagerTags
	eagerTags = on
	return func() { eagerTags = old }
}
