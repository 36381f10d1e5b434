package coord

import (
	"sync"
	"time"
)

// lagTick is how often lagMeter wakes; a wake-up more than lagLate after
// its time means this process could not run a goroutine for that long: its
// cores are saturated (a heavy query, garbage collection, a loaded host).
const (
	lagTick = 50 * time.Millisecond
	lagLate = 100 * time.Millisecond
)

// starvedGrace bounds how long heartbeat timeouts are forgiven while this
// process runs late (Doris marks a backend dead after about 10 s of missed
// heartbeats too): a 10,000-branch CASE on two loaded cores delayed every
// goroutine by 200-300 ms, heartbeats took 0.5-1 s, and live in-process
// backends were marked dead, failing the queries on them.
const starvedGrace = 10 * time.Second

// lagMeter records when this process last ran late.
type lagMeter struct {
	mu       sync.Mutex
	lastLate time.Time
}

// run measures until stop is closed.
func (m *lagMeter) run(stop <-chan struct{}) {
	t := time.NewTicker(lagTick)
	defer t.Stop()
	prev := time.Now()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			// The ticker drops ticks it cannot deliver; the gap since the
			// previous wake-up is what a goroutine waited.
			if now.Sub(prev) > lagTick+lagLate || time.Since(now) > lagLate {
				m.mu.Lock()
				m.lastLate = time.Now()
				m.mu.Unlock()
			}
			prev = time.Now()
		}
	}
}

// lateSince reports whether the process ran late at or after t.
func (m *lagMeter) lateSince(t time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.lastLate.Before(t)
}
