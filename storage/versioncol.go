package storage

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The version column of a UNIQUE KEY table (TabletSchema.VersionCol,
// Doris's __DORIS_VERSION_COL__) holds the version each row was written
// at. A load cannot know its version before it publishes, so it stores 0,
// and a read of a stored 0 yields the version of the rowset the row is in
// (a load's rowset has one version). Compaction reads through here and
// stores what it read, so a compacted row keeps the version it was
// written at rather than taking the compacted rowset's.

// withVersion is a (BIGINT) with its zeros replaced by v; it takes a's
// reference.
func withVersion(a arrow.Array, v Version) arrow.Array {
	in, ok := a.(*array.Int64)
	if !ok {
		return a
	}
	vals := in.Int64Values()
	zero := false
	for i, x := range vals {
		if x == 0 && in.IsValid(i) {
			zero = true
			break
		}
	}
	if !zero {
		return a
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(len(vals))
	for i, x := range vals {
		switch {
		case in.IsNull(i):
			b.AppendNull()
		case x == 0:
			b.UnsafeAppend(int64(v))
		default:
			b.UnsafeAppend(x)
		}
	}
	a.Release()
	return b.NewArray()
}
