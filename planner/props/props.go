package props

import (
	"slices"

	"github.com/dorisgo/dorisgo/planner/logical"
)

// UnknownKey stands for a key the plan cannot name (a distribution column
// it does not read): it never equals another key, itself included. Keys
// below it are expressions, each id one expression over the same columns
// (physical's keyIDs).
const UnknownKey logical.ColumnID = -1

// ReqKind is what a parent asks of one child.
type ReqKind uint8

const (
	ReqAny        ReqKind = iota // anything
	ReqSingle                    // all rows in one instance
	ReqHash                      // equal Keys in one instance (execution hash or storage buckets)
	ReqBucket                    // rows in the instance owning their bucket of Layout
	ReqReplicated                // every row in every instance
	// ReqExecRandom: rows spread in any placement over the instances of an
	// exchange-fed fragment (one per alive backend): a UNION ALL fed by
	// its children's RANDOM sinks.
	ReqExecRandom
)

var reqNames = [...]string{"ANY", "SINGLE", "HASH", "BUCKET", "REPLICATED", "EXEC_RANDOM"}

func (k ReqKind) String() string { return reqNames[k] }

// DelKind is how a subtree's output is spread over instances.
type DelKind uint8

const (
	DelSingle          DelKind = iota // one instance
	DelExecHash                       // hashed on Keys by an exchange (types.HashColumns mod instances)
	DelStorageBucketed                // as stored: bucket of Keys, by Layout
	DelRandom                         // no known placement
	DelReplicated                     // every instance holds all rows
	DelExecRandom                     // spread by exchanges over an exchange-fed fragment's instances
)

var delNames = [...]string{"SINGLE", "EXEC_HASH", "STORAGE_BUCKETED", "RANDOM", "REPLICATED", "EXEC_RANDOM"}

func (k DelKind) String() string { return delNames[k] }

// BucketLayout names the storage buckets that made a layout. Two layouts are
// the same iff they come from the same colocate group (Group != 0) or the
// same table (Group == 0), with the same bucket count.
type BucketLayout struct {
	Group   int64 // colocate group id, 0 if none
	Table   int64 // the anchor table
	Buckets int
	// BucketBackends[b] is the backend reading bucket b (informational).
	BucketBackends []int64
}

// Same reports whether a and b place bucket i of a row in the same instance.
func (a *BucketLayout) Same(b *BucketLayout) bool {
	if a == nil || b == nil || a.Buckets != b.Buckets {
		return false
	}
	if a.Group != 0 || b.Group != 0 {
		return a.Group == b.Group
	}
	return a.Table == b.Table
}

// Required is asked of one child.
type Required struct {
	Kind ReqKind
	Keys []logical.ColumnID
	// Subset: any hash on a non-empty subset of Keys will do (aggregation);
	// otherwise the child must be hashed on exactly Keys, in order.
	Subset bool
	Layout *BucketLayout // ReqBucket
}

// Delivered is produced by a subtree.
type Delivered struct {
	Kind   DelKind
	Keys   []logical.ColumnID
	Layout *BucketLayout // DelStorageBucketed
}

// EquivClasses groups columns known equal in every row (inner equi join
// keys, projections of a bare column), so a hash on one stands for a hash on
// the other.
type EquivClasses struct {
	parent map[logical.ColumnID]logical.ColumnID
}

// NewEquivClasses returns an empty relation.
func NewEquivClasses() *EquivClasses {
	return &EquivClasses{parent: map[logical.ColumnID]logical.ColumnID{}}
}

func (e *EquivClasses) find(c logical.ColumnID) logical.ColumnID {
	if e == nil {
		return c
	}
	for {
		p, ok := e.parent[c]
		if !ok || p == c {
			return c
		}
		c = p
	}
}

// Union records a = b.
func (e *EquivClasses) Union(a, b logical.ColumnID) {
	ra, rb := e.find(a), e.find(b)
	if ra != rb {
		e.parent[ra] = rb
	}
}

// Equal reports whether a and b are known equal.
func (e *EquivClasses) Equal(a, b logical.ColumnID) bool { return e.find(a) == e.find(b) }

func (e *EquivClasses) in(c logical.ColumnID, set []logical.ColumnID) bool {
	return slices.ContainsFunc(set, func(x logical.ColumnID) bool { return e.Equal(c, x) })
}

func (e *EquivClasses) sameList(a, b []logical.ColumnID) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] == UnknownKey || b[i] == UnknownKey || !e.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Satisfies reports whether output delivered as d meets r without an exchange.
func (d Delivered) Satisfies(r Required, eq *EquivClasses) bool {
	switch r.Kind {
	case ReqAny:
		return true
	case ReqSingle:
		return d.Kind == DelSingle
	case ReqReplicated:
		return d.Kind == DelReplicated
	case ReqExecRandom:
		// A scan's RANDOM lies where its tablets are, not over the
		// exchange-fed instances, so only an exchange (or an operator fed
		// by ones) delivers this.
		return d.Kind == DelExecRandom
	case ReqBucket:
		return d.Kind == DelStorageBucketed && d.Layout.Same(r.Layout) && eq.sameList(d.Keys, r.Keys)
	case ReqHash:
		if d.Kind == DelSingle {
			return r.Subset // a single instance holds every group
		}
		if d.Kind != DelExecHash && d.Kind != DelStorageBucketed {
			return false
		}
		if !r.Subset {
			return d.Kind == DelExecHash && eq.sameList(d.Keys, r.Keys)
		}
		if len(d.Keys) == 0 {
			return false
		}
		for _, k := range d.Keys {
			if k == UnknownKey || !eq.in(k, r.Keys) {
				return false
			}
		}
		return true
	}
	return false
}

// Enforced is what an exchange built for r delivers.
func Enforced(r Required) Delivered {
	switch r.Kind {
	case ReqSingle:
		return Delivered{Kind: DelSingle}
	case ReqHash:
		return Delivered{Kind: DelExecHash, Keys: r.Keys}
	case ReqBucket:
		return Delivered{Kind: DelStorageBucketed, Keys: r.Keys, Layout: r.Layout}
	case ReqReplicated:
		return Delivered{Kind: DelReplicated}
	case ReqExecRandom:
		return Delivered{Kind: DelExecRandom}
	}
	return Delivered{Kind: DelRandom}
}
