//go:build race

package csp

// raceOn: the race detector makes sync.Pool drop items, so allocation
// counts are meaningless.
const raceOn = true
