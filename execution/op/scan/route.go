package scan

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/sql/types"
)

// RowBuckets is each row's bucket of nb: the hash of the distribution
// columns (cols), or, with none (DISTRIBUTED BY RANDOM), one bucket for the
// whole batch, rotating per batch through *rr.
func RowBuckets(cols []arrow.Array, n, nb int, rr *int) []int {
	buckets := make([]int, n)
	if len(cols) > 0 {
		hs := make([]uint64, n)
		types.HashColumns(cols, hs)
		for i, h := range hs {
			buckets[i] = types.Bucket(h, nb)
		}
		return buckets
	}
	b := *rr % nb
	*rr++
	for i := range buckets {
		buckets[i] = b
	}
	return buckets
}

// TabletSlots groups rows by tablet (partition parts[i] × bucket
// buckets[i] of nb) with a counting sort, no map: the rows of slot s are
// idx[counts[s]:counts[s+1]], in row order, for s = partition*nb + bucket.
func TabletSlots(parts, buckets []int, nParts, nb int) (counts, idx []int32) {
	slot := make([]int32, len(parts))
	counts = make([]int32, nParts*nb+1)
	for i := range slot {
		sl := int32(parts[i]*nb + buckets[i])
		slot[i] = sl
		counts[sl+1]++
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	idx = make([]int32, len(parts))
	next := slices.Clone(counts[:len(counts)-1])
	for i, sl := range slot {
		idx[next[sl]] = int32(i)
		next[sl]++
	}
	return counts, idx
}
