package aggregate

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/execution/op"
)

// groupTable maps key byte strings to dense group ids 0..n-1, chaining
// colliding groups through next (ids+1; 0 ends a chain).
type groupTable struct {
	b      uint
	first  []int32
	next   []int32
	hashes []uint64
	keys   []byte
	koffs  []int32 // group g's key is keys[koffs[g]:koffs[g+1]]
	enc    op.EncKeys
	hs     []uint64

	// One 8-byte key column (GROUP BY an integer or date, the common
	// case) is keyed by its value: fkeys[g] is group g's, hashed with
	// FixedHash, with no byte encoding or byte comparison. NULL is its own
	// group, nullID (-1: none yet). mode: 0 undecided, 1 bytes, 2 fixed,
	// 3 packed (narrow columns in one word, fkeys too; see packing).
	mode   int8
	fkeys  []uint64
	nullID int32
	vals   []uint64
	pack   *packing
}

func newGroupTable() *groupTable {
	g := &groupTable{b: 10, koffs: []int32{0}, nullID: -1}
	g.first = make([]int32, 1<<g.b)
	return g
}

func (g *groupTable) len() int { return len(g.hashes) }

// memBytes approximates the table's memory.
func (g *groupTable) memBytes() int64 {
	return int64(cap(g.first)*4 + cap(g.next)*4 + cap(g.hashes)*8 + cap(g.keys) + cap(g.koffs)*4 + cap(g.fkeys)*8)
}

func (g *groupTable) grow() {
	g.b++
	g.first = make([]int32, 1<<g.b)
	for id, h := range g.hashes {
		bk := op.BucketOf(h, g.b)
		g.next[id] = g.first[bk]
		g.first[bk] = int32(id + 1)
	}
}

// decide picks, on the first batch, how the table is keyed; a packed
// table whose batch has a string too long for its field turns to bytes.
func (g *groupTable) decide(cols []arrow.Array) int8 {
	switch g.mode {
	case 0:
		g.mode = 1
		if op.ValueKeyed(cols) {
			g.mode = 2
		} else if p, ok := newPacking(cols); ok {
			g.mode, g.pack = 3, p
		}
	case 3:
		if !g.pack.fits(cols) {
			g.unpackKeys()
		}
	}
	return g.mode
}

// unpackKeys turns a packed table into a byte-keyed one: the groups keep
// their ids, their keys encoded and hashed as byte keys are.
func (g *groupTable) unpackKeys() {
	cols := g.pack.unpack(memory.DefaultAllocator, g.fkeys)
	defer op.ReleaseAll(cols)
	g.enc.Encode(cols, nil)
	g.hashes = op.HashKeys(cols, g.hashes)
	g.keys = g.keys[:0]
	g.koffs = append(g.koffs[:0], 0)
	for id := range g.fkeys {
		g.keys = append(g.keys, g.enc.Key(id)...)
		g.koffs = append(g.koffs, int32(len(g.keys)))
	}
	g.mode, g.pack, g.fkeys = 1, nil, nil
	g.b--
	g.grow()
}

// insertPacked is insert for a packed table: fixed keys with no NULL group
// apart (a NULL is part of the packed word).
func (g *groupTable) insertPacked(cols []arrow.Array, gids []int32, newRows []int32) ([]int32, []int32) {
	n := cols[0].Len()
	g.vals = op.GrowU64(g.vals, n)
	g.pack.pack(cols, g.vals)
	gids = op.GrowInt32(gids, n)
	newRows = newRows[:0]
	for i, v := range g.vals {
		h := op.FixedHash(v)
		bk := op.BucketOf(h, g.b)
		id := g.first[bk]
		for id != 0 && g.fkeys[id-1] != v {
			id = g.next[id-1]
		}
		if id == 0 {
			id = g.addFixed(v, h, bk) + 1
			newRows = append(newRows, int32(i))
		}
		gids[i] = id - 1
	}
	return gids, newRows
}

// insertFixed is insert for a value-keyed table.
func (g *groupTable) insertFixed(col arrow.Array, gids []int32, newRows []int32) ([]int32, []int32) {
	n := col.Len()
	g.vals = op.FixedKeyValues(col, op.GrowU64(g.vals, n))
	gids = op.GrowInt32(gids, n)
	newRows = newRows[:0]
	nulls := col.NullN() > 0
	for i, v := range g.vals {
		if nulls && col.IsNull(i) {
			if g.nullID < 0 {
				g.addFixed(0, 0, -1)
				newRows = append(newRows, int32(i))
			}
			gids[i] = g.nullID
			continue
		}
		h := op.FixedHash(v)
		bk := op.BucketOf(h, g.b)
		id := g.first[bk]
		for id != 0 && g.fkeys[id-1] != v {
			id = g.next[id-1]
		}
		if id == 0 {
			id = g.addFixed(v, h, bk) + 1
			newRows = append(newRows, int32(i))
		}
		gids[i] = id - 1
	}
	return gids, newRows
}

// addFixed creates a group of value v (bucket bk; -1: the NULL group,
// which is in no chain) and returns its id.
func (g *groupTable) addFixed(v, h uint64, bk int) int32 {
	e := int32(len(g.hashes))
	g.hashes = append(g.hashes, h)
	g.fkeys = append(g.fkeys, v)
	g.next = append(g.next, 0)
	if bk >= 0 {
		g.next[e] = g.first[bk]
		g.first[bk] = e + 1
	} else {
		g.nullID = e
	}
	if len(g.hashes) > len(g.first) {
		g.growFixed()
	}
	return e
}

func (g *groupTable) growFixed() {
	g.b++
	g.first = make([]int32, 1<<g.b)
	for id, h := range g.hashes {
		if int32(id) == g.nullID {
			continue
		}
		bk := op.BucketOf(h, g.b)
		g.next[id] = g.first[bk]
		g.first[bk] = int32(id + 1)
	}
}

// insert assigns every row of cols a group id (gids, len rows), creating
// groups for unseen keys; it returns the rows that created groups, in order.
func (g *groupTable) insert(cols []arrow.Array, gids []int32, newRows []int32) ([]int32, []int32) {
	switch g.decide(cols) {
	case 2:
		return g.insertFixed(cols[0], gids, newRows)
	case 3:
		return g.insertPacked(cols, gids, newRows)
	}
	g.enc.Encode(cols, nil)
	g.hs = op.HashKeys(cols, g.hs)
	n := len(g.hs)
	gids = op.GrowInt32(gids, n)
	newRows = newRows[:0]
	for i, h := range g.hs {
		k := g.enc.Key(i)
		bk := op.BucketOf(h, g.b)
		id := g.first[bk]
		for id != 0 {
			e := id - 1
			if g.hashes[e] == h && bytes.Equal(g.keys[g.koffs[e]:g.koffs[e+1]], k) {
				break
			}
			id = g.next[e]
		}
		if id == 0 {
			e := int32(len(g.hashes))
			g.hashes = append(g.hashes, h)
			g.keys = append(g.keys, k...)
			g.koffs = append(g.koffs, int32(len(g.keys)))
			g.next = append(g.next, g.first[bk])
			g.first[bk] = e + 1
			id = e + 1
			newRows = append(newRows, int32(i))
			if len(g.hashes) > len(g.first) {
				g.grow()
			}
		}
		gids[i] = id - 1
	}
	return gids, newRows
}

// lookup sets gids[i] to row i's group or -1.
func (g *groupTable) lookup(cols []arrow.Array, gids []int32) []int32 {
	mode := g.decide(cols)
	if mode == 3 {
		n := cols[0].Len()
		g.vals = op.GrowU64(g.vals, n)
		g.pack.pack(cols, g.vals)
		gids = op.GrowInt32(gids, n)
		for i, v := range g.vals {
			id := g.first[op.BucketOf(op.FixedHash(v), g.b)]
			for id != 0 && g.fkeys[id-1] != v {
				id = g.next[id-1]
			}
			gids[i] = id - 1
		}
		return gids
	}
	if mode == 2 {
		col := cols[0]
		n := col.Len()
		g.vals = op.FixedKeyValues(col, op.GrowU64(g.vals, n))
		gids = op.GrowInt32(gids, n)
		nulls := col.NullN() > 0
		for i, v := range g.vals {
			if nulls && col.IsNull(i) {
				gids[i] = g.nullID
				continue
			}
			id := g.first[op.BucketOf(op.FixedHash(v), g.b)]
			for id != 0 && g.fkeys[id-1] != v {
				id = g.next[id-1]
			}
			gids[i] = id - 1
		}
		return gids
	}
	g.enc.Encode(cols, nil)
	g.hs = op.HashKeys(cols, g.hs)
	gids = op.GrowInt32(gids, len(g.hs))
	for i, h := range g.hs {
		k := g.enc.Key(i)
		id := g.first[op.BucketOf(h, g.b)]
		for id != 0 {
			e := id - 1
			if g.hashes[e] == h && bytes.Equal(g.keys[g.koffs[e]:g.koffs[e+1]], k) {
				break
			}
			id = g.next[e]
		}
		gids[i] = id - 1
	}
	return gids
}
