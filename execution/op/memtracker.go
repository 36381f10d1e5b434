package op

import (
	"sync/atomic"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// MemTracker counts the bytes a query's operators hold (hash tables, sort
// buffers) against exec_mem_limit. Trackers form a tree: each operator
// charges its own child tracker, which also charges every ancestor, so the
// limit is per query while the error names the operator that crossed it.
// A nil *MemTracker is valid and unlimited.
type MemTracker struct {
	name   string
	parent *MemTracker
	limit  int64 // ≤ 0: unlimited
	used   atomic.Int64
	peak   atomic.Int64
}

// NewMemTracker returns a root tracker; limit ≤ 0 means unlimited.
func NewMemTracker(limit int64) *MemTracker { return &MemTracker{name: "query", limit: limit} }

// Name is the operator (or "query") the tracker belongs to.
func (t *MemTracker) Name() string { return t.name }

// Child returns a tracker for one operator, charging t as well.
func (t *MemTracker) Child(name string) *MemTracker {
	if t == nil {
		return nil
	}
	return &MemTracker{name: name, parent: t}
}

// Consume charges n bytes. Over a limit on t or an ancestor it charges
// nothing and returns MemLimitExceeded naming the operator t belongs to.
func (t *MemTracker) Consume(n int64) error {
	if t == nil || n == 0 {
		return nil
	}
	for a := t; a != nil; a = a.parent {
		u := a.used.Add(n)
		if a.limit > 0 && u > a.limit {
			for b := t; b != a.parent; b = b.parent {
				b.used.Add(-n)
			}
			return sqlerr.MemLimitExceeded.New(a.limit, t.name)
		}
		for {
			p := a.peak.Load()
			if u <= p || a.peak.CompareAndSwap(p, u) {
				break
			}
		}
	}
	return nil
}

// Release returns n bytes previously consumed.
func (t *MemTracker) Release(n int64) {
	for a := t; a != nil && n != 0; a = a.parent {
		a.used.Add(-n)
	}
}

// Used is the number of bytes currently charged.
func (t *MemTracker) Used() int64 {
	if t == nil {
		return 0
	}
	return t.used.Load()
}

// Peak is the highest Used seen.
func (t *MemTracker) Peak() int64 {
	if t == nil {
		return 0
	}
	return t.peak.Load()
}

// MemCharge is an operator's running charge on its tracker, released as a
// whole on Close.
type MemCharge struct {
	Tracker *MemTracker
	Bytes   int64
}

func (c *MemCharge) Add(n int64) error {
	if err := c.Tracker.Consume(n); err != nil {
		return err
	}
	c.Bytes += n
	return nil
}

func (c *MemCharge) ReleaseAll() {
	c.Tracker.Release(c.Bytes)
	c.Bytes = 0
}

// RootLimit is the first limit from t up (what an error reports).
func (t *MemTracker) RootLimit() int64 {
	for a := t; a != nil; a = a.parent {
		if a.limit > 0 {
			return a.limit
		}
	}
	return 0
}

// Limit is the tracker's own limit (≤ 0: unlimited).
func (t *MemTracker) Limit() int64 {
	if t == nil {
		return 0
	}
	return t.limit
}
