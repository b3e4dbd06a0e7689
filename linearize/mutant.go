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

// SetKeepMutant sets KeepsReduced's switch (tests only): 0 as shipped,
// -1 off (every new set is reduced), 1 the hand mutant that claims every
// event keeps a set reduced, 2 the one that claims every choice does
// (also one compressed with its response). It returns a function that
// restores the previous setting.
func SetKeepMutant(m int) func() {
	old := keepMutant
	keepMutant = m
	return func() { keepMutant = old }
}

// SetPruneMutant turns on a hand mutant of Wrapper.Reduce (0: none), for
// the tests that show the oracle notices a wrong pruning rule (tests
// only, of this package and others).
func SetPruneMutant(m int) { pruneMutant = m }
