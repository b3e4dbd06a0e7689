//go:build race

package refine_test

// raceOn: the race detector slows the searches tenfold.
const raceOn = true
