package expr

import (
	"sync"
	"sync/atomic"
)

// MaxWarnings is how many warning messages a statement keeps (MySQL's
// max_error_count default); every warning is counted.
const MaxWarnings = 64

// Warnings collects one statement's warnings from every batch and every
// pipeline task of a fragment instance (it is safe for concurrent use).
type Warnings struct {
	n    atomic.Int64
	mu   sync.Mutex
	msgs []Warning
}

// Warning is one SHOW WARNINGS row.
type Warning struct {
	Code    int    `json:"code"`
	Message string `json:"msg"`
}

// Add records a warning (nil w drops it).
func (w *Warnings) Add(code int, msg string) {
	if w == nil {
		return
	}
	if w.n.Add(1) > MaxWarnings {
		return
	}
	w.mu.Lock()
	if len(w.msgs) < MaxWarnings {
		w.msgs = append(w.msgs, Warning{Code: code, Message: msg})
	}
	w.mu.Unlock()
}

// Merge adds n warnings of which msgs are the kept ones (another
// instance's report).
func (w *Warnings) Merge(n int64, msgs []Warning) {
	if w == nil || n == 0 {
		return
	}
	w.n.Add(n)
	w.mu.Lock()
	for _, m := range msgs {
		if len(w.msgs) >= MaxWarnings {
			break
		}
		w.msgs = append(w.msgs, m)
	}
	w.mu.Unlock()
}

// Count is the number of warnings added, kept or not.
func (w *Warnings) Count() int64 {
	if w == nil {
		return 0
	}
	return w.n.Load()
}

// List returns the kept warnings, in the order they were added.
func (w *Warnings) List() []Warning {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Warning(nil), w.msgs...)
}
