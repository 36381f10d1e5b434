//go:build race

package server_test

// raceEnabled: the race detector slows execution several times over;
// tests sized by time use less data under it.
const raceEnabled = true
