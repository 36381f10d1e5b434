package aggregate

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/execution/op"
)

// TestGroupTableFixed checks the value-keyed group table against a map over
// batches with NULLs (first seen at various points, also while the table
// grows), zero values (which a NULL must not collide with) and lookups.
func TestGroupTableFixed(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, nullAt := range []int{0, 1, 1000, -1} {
		g := newGroupTable()
		want := map[int64]int32{}
		nullGroup := int32(-1)
		var gids, newRows []int32
		row := 0
		for batch := 0; batch < 20; batch++ {
			b := array.NewInt64Builder(memory.DefaultAllocator)
			var vals []*int64
			for i := 0; i < 700; i++ {
				if (nullAt >= 0 && row >= nullAt && r.Intn(50) == 0) || row == nullAt {
					b.AppendNull()
					vals = append(vals, nil)
				} else {
					v := r.Int63n(5000) - 100
					if r.Intn(20) == 0 {
						v = 0
					}
					b.Append(v)
					vals = append(vals, &v)
				}
				row++
			}
			col := b.NewArray()
			b.Release()
			before := int32(g.len())
			gids, newRows = g.insert(arrays(col), gids, newRows)
			created := 0
			for i, v := range vals {
				if v == nil {
					if nullGroup < 0 {
						nullGroup = gids[i]
						created++
					} else if gids[i] != nullGroup {
						t.Fatalf("NULL row %d in group %d, want %d", i, gids[i], nullGroup)
					}
					continue
				}
				id, ok := want[*v]
				if !ok {
					want[*v] = gids[i]
					created++
					if gids[i] < before {
						t.Fatalf("new value %d got old group %d", *v, gids[i])
					}
				} else if id != gids[i] {
					t.Fatalf("value %d in group %d, want %d", *v, gids[i], id)
				}
			}
			if created != len(newRows) || g.len() != int(before)+created {
				t.Fatalf("created %d groups, newRows %d, len %d→%d", created, len(newRows), before, g.len())
			}
			look := g.lookup(arrays(col), nil)
			for i := range look {
				if look[i] != gids[i] {
					t.Fatalf("lookup row %d = %d, insert said %d", i, look[i], gids[i])
				}
			}
			col.Release()
		}
		if nullAt >= 0 && nullGroup < 0 {
			t.Fatalf("no NULL seen")
		}
	}
}

func arrays(a ...arrow.Array) []arrow.Array { return a }

// TestEncKeysSlicedStrings: a string column that is a slice of a larger
// array (non-zero offset, as batches cut from a bigger one are) encodes
// exactly as a fresh array of the same values.
func TestEncKeysSlicedStrings(t *testing.T) {
	vals := []string{"", "a", "bb", "", "ccc", "dddd", "e", "", "ffffff"}
	build := func(vs []string) arrow.Array {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		defer b.Release()
		for i, v := range vs {
			if i%4 == 3 {
				b.AppendNull()
			} else {
				b.Append(v)
			}
		}
		return b.NewArray()
	}
	whole := build(vals)
	defer whole.Release()
	for from := 0; from < len(vals); from++ {
		for to := from; to <= len(vals); to++ {
			sl := array.NewSlice(whole, int64(from), int64(to))
			// The fresh copy keeps each row's NULL-ness of the whole array.
			b := array.NewStringBuilder(memory.DefaultAllocator)
			for i := from; i < to; i++ {
				if whole.IsNull(i) {
					b.AppendNull()
				} else {
					b.Append(vals[i])
				}
			}
			fresh := b.NewArray()
			b.Release()
			var a, c op.EncKeys
			a.Encode(arrays(sl), nil)
			c.Encode(arrays(fresh), nil)
			for i := 0; i < to-from; i++ {
				if string(a.Key(i)) != string(c.Key(i)) {
					t.Fatalf("slice [%d:%d) row %d: %q, fresh %q", from, to, i, a.Key(i), c.Key(i))
				}
			}
			sl.Release()
			fresh.Release()
		}
	}
}
