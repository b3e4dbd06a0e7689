//go:build !race

package lts

const raceOn = false
