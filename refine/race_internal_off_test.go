//go:build !race

package refine

// raceDetector is raceOn for the tests inside package refine: the race
// detector slows the searches tenfold.
const raceDetector = false
