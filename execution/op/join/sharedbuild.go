package join

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dorisgo/dorisgo/execution/op"
)

// SharedBuild is a join build side that several pipeline tasks of one
// instance share: a broadcast (or single-instance) join's build rows are
// read and indexed once, not once per task (the PASS_TO_ONE build of seed
// 000). The first task to need it builds it; the others wait. Only join
// types that never mark build rows may share one (they are read-only once
// built).
type SharedBuild struct {
	right op.Operator
	mem   op.MemCharge

	once sync.Once
	done chan struct{}
	err  error
	rec  arrow.Record // the whole build side (nil: empty)
	tbl  *hashTable   // hash joins
	null bool         // a NULL key was seen (NAAJ)

	mu   sync.Mutex
	refs int
}

// NewSharedBuild shares right among users joins.
func NewSharedBuild(right op.Operator, users int, mem *op.MemTracker) *SharedBuild {
	return &SharedBuild{right: right, refs: users, done: make(chan struct{}), mem: op.MemCharge{Tracker: mem.Child("SharedBuild")}}
}

// get builds once with build and waits for the result.
func (s *SharedBuild) get(ctx context.Context, build func(*SharedBuild) error) error {
	s.once.Do(func() {
		s.err = build(s)
		close(s.done)
	})
	select {
	case <-s.done:
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// acquire returns a reference to the build record for one user.
func (s *SharedBuild) acquire() arrow.Record {
	if s.rec != nil {
		s.rec.Retain()
	}
	return s.rec
}

// Release drops one user; the last closes the build input and frees it.
func (s *SharedBuild) Release() {
	s.mu.Lock()
	s.refs--
	last := s.refs == 0
	s.mu.Unlock()
	if !last {
		return
	}
	s.right.Close()
	if s.rec != nil {
		s.rec.Release()
		s.rec = nil
	}
	s.mem.ReleaseAll()
}
