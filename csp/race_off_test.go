//go:build !race

package csp

const raceOn = false
