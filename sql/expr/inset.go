package expr

import (
	"sync"

	"github.com/dorisgo/dorisgo/sql/types"
)

// ValueSet is the constant items of an IN list as a set of their values,
// keyed by Key, so x IN (100,000 constants) is one lookup per row instead
// of a comparison with every item. Null records a NULL item (x IN (…, NULL)
// is NULL, not FALSE, when x matches nothing).
type ValueSet struct {
	Vals map[types.Datum]struct{}
	Null bool
}

// Key is the set key of a non-NULL value: its value fields alone (the
// items share one type).
func Key(d types.Datum) types.Datum { return types.Datum{I: d.I, F: d.F, S: d.S, Dec: d.Dec} }

// InSets keeps a query's ValueSets, one per IN call, built on first use.
// The query's operators share it from their goroutines.
type InSets struct {
	mu   sync.Mutex
	sets map[*Call]*ValueSet
}

// Get returns c's set, building it the first time (build returns nil when
// the items do not suit a set; that answer is kept too).
func (s *InSets) Get(c *Call, build func() *ValueSet) *ValueSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.sets[c]; ok {
		return v
	}
	v := build()
	if s.sets == nil {
		s.sets = map[*Call]*ValueSet{}
	}
	s.sets[c] = v
	return v
}
