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

// TestGroupTablePacked groups narrow columns (8- and 16-bit ints, a
// boolean, two 1-byte strings, all with NULLs) by packed words, against a
// map of their rendered rows; a later batch with a string too long for
// its field turns the table to byte keys, and the groups seen before must
// keep their ids.
func TestGroupTablePacked(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	strs := []string{"", "A", "N", "R", "\x00"}
	for _, longAt := range []int{-1, 7} {
		g := newGroupTable()
		want := map[string]int32{}
		var gids, newRows []int32
		for batch := 0; batch < 12; batch++ {
			mem := memory.DefaultAllocator
			ib, db, bb := array.NewInt8Builder(mem), array.NewInt16Builder(mem), array.NewBooleanBuilder(mem)
			s1, s2 := array.NewStringBuilder(mem), array.NewStringBuilder(mem)
			keys := make([]string, 600)
			// Every other batch is a slice (as a filter or an exchange
			// hands on): its columns start at an offset, after values
			// that must not count.
			lead := 0
			if batch%2 == 1 {
				lead = 3
				for j := 0; j < lead; j++ {
					ib.Append(9)
					db.Append(9)
					bb.Append(true)
					s1.Append("Z")
					s2.Append("Q")
				}
			}
			for i := range keys {
				k := ""
				if r.Intn(9) == 0 {
					ib.AppendNull()
					k += "n|"
				} else {
					v := int8(r.Intn(5) - 2)
					ib.Append(v)
					k += string(rune('a'+v+2)) + "|"
				}
				if r.Intn(9) == 0 {
					db.AppendNull()
					k += "n|"
				} else {
					v := int16(r.Intn(3)*10000 - 10000)
					db.Append(v)
					k += string(rune('b'+v/10000)) + "|"
				}
				if r.Intn(9) == 0 {
					bb.AppendNull()
					k += "n|"
				} else {
					v := r.Intn(2) == 0
					bb.Append(v)
					k += map[bool]string{false: "f|", true: "t|"}[v]
				}
				for _, sb := range []*array.StringBuilder{s1, s2} {
					if r.Intn(9) == 0 {
						sb.AppendNull()
						k += "n|"
						continue
					}
					v := strs[r.Intn(len(strs))]
					if batch >= longAt && longAt >= 0 && r.Intn(50) == 0 {
						v = "a string longer than any field"
					}
					sb.Append(v)
					k += "s" + v + "|"
				}
				keys[i] = k
			}
			cols := []arrow.Array{ib.NewArray(), db.NewArray(), bb.NewArray(), s1.NewArray(), s2.NewArray()}
			for _, b := range []array.Builder{ib, db, bb, s1, s2} {
				b.Release()
			}
			if lead > 0 {
				for c, a := range cols {
					cols[c] = array.NewSlice(a, int64(lead), int64(a.Len()))
					a.Release()
				}
			}
			before := int32(g.len())
			gids, newRows = g.insert(cols, gids, newRows)
			if batch == 0 && g.mode != 3 {
				t.Fatalf("mode %d, want packed", g.mode)
			}
			created := 0
			for i, k := range keys {
				id, ok := want[k]
				if !ok {
					want[k] = gids[i]
					created++
					if gids[i] < before {
						t.Fatalf("new key %q got old group %d", k, gids[i])
					}
				} else if id != gids[i] {
					t.Fatalf("batch %d: key %q in group %d, want %d", batch, k, gids[i], id)
				}
			}
			if created != len(newRows) || g.len() != int(before)+created {
				t.Fatalf("created %d groups, newRows %d, len %d→%d", created, len(newRows), before, g.len())
			}
			look := g.lookup(cols, nil)
			for i := range look {
				if look[i] != gids[i] {
					t.Fatalf("lookup row %d = %d, insert said %d", i, look[i], gids[i])
				}
			}
			op.ReleaseAll(cols)
		}
		if wantMode := map[bool]int8{true: 1, false: 3}[longAt >= 0]; g.mode != wantMode {
			t.Fatalf("longAt %d: mode %d, want %d", longAt, g.mode, wantMode)
		}
	}
}
