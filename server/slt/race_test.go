//go:build race

package slt

const raceEnabled = true
