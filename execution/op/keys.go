package op

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Row keys. Hash joins, aggregation, DISTINCT and set operations compare
// multi-column keys by encoding each row's key values, column by column
// (one typed loop per column, never per-row dispatch), into one byte
// string per row; equal values give equal bytes. Integer kinds (and BOOLEAN,
// DATE, DATETIME) encode as int64 as types.HashColumns hashes them, so keys
// of different integer widths still meet. Sorting uses a second,
// order-preserving encoding (sortkeys.go).

// encKeys holds the encoded keys of one batch.
type encKeys struct {
	buf  []byte
	offs []int32 // row i is buf[offs[i]:offs[i+1]]
	// null[i]: row i has a NULL in a column compared with '=' (never equal).
	null    []bool
	anyNull bool
	pos     []int32 // scratch: each row's write position
}

func (k *encKeys) key(i int) []byte { return k.buf[k.offs[i]:k.offs[i+1]] }

// fixedWidth is the encoded width of a non-string value (0 for strings).
func fixedWidth(a arrow.Array) int {
	switch a.DataType().ID() {
	case arrow.STRING:
		return 0
	case arrow.DECIMAL128:
		return 16
	case arrow.NULL:
		return 0
	}
	return 8
}

// valueKeyed says whether cols is one column whose rows fixedKeyValues
// turns into 8-byte values that are equal exactly when the keys are.
func valueKeyed(cols []arrow.Array) bool { return len(cols) == 1 && fixedWidth(cols[0]) == 8 }

// encode fills k from cols. nullSafe[c] marks a '<=>' column (NULL equals
// NULL); nil means every column is null-safe (GROUP BY, DISTINCT, set ops).
func (k *encKeys) encode(cols []arrow.Array, nullSafe []bool) {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	k.offs = growInt32(k.offs, n+1)
	k.null = growBool(k.null, n)
	clear(k.null)
	k.anyNull = false
	stride, varLen := 0, false
	for _, c := range cols {
		if c.DataType().ID() == arrow.STRING {
			varLen = true
		}
		stride += 1 + fixedWidth(c)
	}
	if !varLen {
		for i := 0; i <= n; i++ {
			k.offs[i] = int32(i * stride)
		}
	} else {
		for i := 0; i <= n; i++ {
			k.offs[i] = 0
		}
		for _, c := range cols {
			w := int32(1 + fixedWidth(c))
			s, isStr := c.(*array.String)
			if !isStr {
				for i := 0; i < n; i++ {
					k.offs[i+1] += w
				}
				continue
			}
			// A string is its marker, a 4-byte length and its bytes (a NULL
			// only the marker): offsets straight from Arrow's.
			vo := s.ValueOffsets()
			nulls := c.NullN() > 0
			for i := 0; i < n; i++ {
				if nulls && c.IsNull(i) {
					k.offs[i+1] += w
				} else {
					k.offs[i+1] += w + 4 + vo[i+1] - vo[i]
				}
			}
		}
		for i := 1; i <= n; i++ {
			k.offs[i] += k.offs[i-1]
		}
	}
	total := int(k.offs[n])
	if cap(k.buf) < total {
		k.buf = make([]byte, total)
	}
	k.buf = k.buf[:total]
	k.pos = growInt32(k.pos, n)
	pos := k.pos
	copy(pos, k.offs[:n])
	for ci, c := range cols {
		strict := nullSafe != nil && !nullSafe[ci]
		if c.NullN() > 0 {
			for i := 0; i < n; i++ {
				if c.IsNull(i) {
					k.anyNull = true
					if strict {
						k.null[i] = true
					}
				}
			}
		}
		encodeColumn(c, k.buf, pos)
	}
}

// encodeColumn appends column c's value of row i at buf[pos[i]] and
// advances pos[i]. A NULL writes only its marker byte (and zero padding for
// fixed widths, so that strides stay fixed).
func encodeColumn(c arrow.Array, buf []byte, pos []int32) {
	nulls := c.NullN() > 0
	put8 := func(i int, v uint64) {
		p := pos[i]
		if nulls && c.IsNull(i) {
			buf[p] = 0
			binary.LittleEndian.PutUint64(buf[p+1:], 0)
		} else {
			buf[p] = 1
			binary.LittleEndian.PutUint64(buf[p+1:], v)
		}
		pos[i] = p + 9
	}
	switch a := c.(type) {
	case *array.Int8:
		for i, v := range a.Int8Values() {
			put8(i, uint64(int64(v)))
		}
	case *array.Int16:
		for i, v := range a.Int16Values() {
			put8(i, uint64(int64(v)))
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			put8(i, uint64(int64(v)))
		}
	case *array.Int64:
		for i, v := range a.Int64Values() {
			put8(i, uint64(v))
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			put8(i, uint64(int64(v)))
		}
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			put8(i, uint64(int64(v)))
		}
	case *array.Float32:
		for i, v := range a.Float32Values() {
			put8(i, floatKey(float64(v)))
		}
	case *array.Float64:
		for i, v := range a.Float64Values() {
			put8(i, floatKey(v))
		}
	case *array.Boolean:
		for i := 0; i < a.Len(); i++ {
			v := uint64(0)
			if a.Value(i) {
				v = 1
			}
			put8(i, v)
		}
	case *array.Decimal128:
		for i := 0; i < a.Len(); i++ {
			p := pos[i]
			if nulls && a.IsNull(i) {
				buf[p] = 0
				clear(buf[p+1 : p+17])
			} else {
				v := a.Value(i)
				buf[p] = 1
				binary.LittleEndian.PutUint64(buf[p+1:], v.LowBits())
				binary.LittleEndian.PutUint64(buf[p+9:], uint64(v.HighBits()))
			}
			pos[i] = p + 17
		}
	case *array.String:
		vo, data := a.ValueOffsets(), a.ValueBytes()
		base := vo[0] // ValueBytes starts at the array's first value
		for i := 0; i < a.Len(); i++ {
			p := pos[i]
			if nulls && a.IsNull(i) {
				buf[p] = 0
				pos[i] = p + 1
				continue
			}
			v := data[vo[i]-base : vo[i+1]-base]
			buf[p] = 1
			binary.LittleEndian.PutUint32(buf[p+1:], uint32(len(v)))
			copy(buf[p+5:], v)
			pos[i] = p + 5 + int32(len(v))
		}
	case *array.Null:
		for i := range pos {
			buf[pos[i]] = 0
			pos[i]++
		}
	default:
		panic("op: key of unsupported type " + c.DataType().String())
	}
}

// fixedKeyValues writes the 8-byte key value of every row of a (as
// encodeColumn encodes it, so integer widths still meet; NULL rows get 0)
// into dst (len a.Len()).
func fixedKeyValues(a arrow.Array, dst []uint64) []uint64 {
	switch c := a.(type) {
	case *array.Int8:
		for i, v := range c.Int8Values() {
			dst[i] = uint64(int64(v))
		}
	case *array.Int16:
		for i, v := range c.Int16Values() {
			dst[i] = uint64(int64(v))
		}
	case *array.Int32:
		for i, v := range c.Int32Values() {
			dst[i] = uint64(int64(v))
		}
	case *array.Int64:
		for i, v := range c.Int64Values() {
			dst[i] = uint64(v)
		}
	case *array.Date32:
		for i, v := range c.Date32Values() {
			dst[i] = uint64(int64(v))
		}
	case *array.Timestamp:
		for i, v := range c.TimestampValues() {
			dst[i] = uint64(int64(v))
		}
	case *array.Float32:
		for i, v := range c.Float32Values() {
			dst[i] = floatKey(float64(v))
		}
	case *array.Float64:
		for i, v := range c.Float64Values() {
			dst[i] = floatKey(v)
		}
	case *array.Boolean:
		for i := range dst {
			dst[i] = 0
			if c.Value(i) {
				dst[i] = 1
			}
		}
	default:
		panic("op: fixed key of unsupported type " + a.DataType().String())
	}
	if a.NullN() > 0 {
		for i := range dst {
			if a.IsNull(i) {
				dst[i] = 0
			}
		}
	}
	return dst
}

// fixedHash mixes a key value (murmur3's finalizer) so that its top bits,
// which pick the bucket, depend on every input bit.
func fixedHash(v uint64) uint64 {
	v ^= v >> 33
	v *= 0xff51afd7ed558ccd
	v ^= v >> 33
	v *= 0xc4ceb9fe1a85ec53
	return v ^ v>>33
}

// floatKey makes -0 equal 0, as SQL compares them.
func floatKey(f float64) uint64 {
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}

func growInt32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func growBool(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}

func growU64(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n)
	}
	return s[:n]
}

// hashKeys fills hs with types.HashColumns of cols.
func hashKeys(cols []arrow.Array, hs []uint64) []uint64 {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	hs = growU64(hs, n)
	clear(hs)
	types.HashColumns(cols, hs)
	return hs
}

// tableBits sizes a power-of-two bucket array for n entries (load ≤ 1).
func tableBits(n int) uint {
	b := uint(bits.Len(uint(n)))
	if b < 4 {
		b = 4
	}
	return b
}

// bucketOf uses the hash's top bits: its low bits are shared by every row
// of one hash-shuffled instance (the exchange routes by hash mod n).
func bucketOf(h uint64, b uint) int { return int(h >> (64 - b)) }

// groupTable maps key byte strings to dense group ids 0..n-1, chaining
// colliding groups through next (ids+1; 0 ends a chain).
type groupTable struct {
	b      uint
	first  []int32
	next   []int32
	hashes []uint64
	keys   []byte
	koffs  []int32 // group g's key is keys[koffs[g]:koffs[g+1]]
	enc    encKeys
	hs     []uint64

	// One 8-byte key column (GROUP BY an integer or date, the common
	// case) is keyed by its value: fkeys[g] is group g's, hashed with
	// fixedHash, with no byte encoding or byte comparison. NULL is its own
	// group, nullID (-1: none yet). mode: 0 undecided, 1 bytes, 2 fixed.
	mode   int8
	fkeys  []uint64
	nullID int32
	vals   []uint64
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
		bk := bucketOf(h, g.b)
		g.next[id] = g.first[bk]
		g.first[bk] = int32(id + 1)
	}
}

// fixedMode decides, on the first batch, whether the table is value keyed.
func (g *groupTable) fixedMode(cols []arrow.Array) bool {
	if g.mode == 0 {
		g.mode = 1
		if valueKeyed(cols) {
			g.mode = 2
		}
	}
	return g.mode == 2
}

// insertFixed is insert for a value-keyed table.
func (g *groupTable) insertFixed(col arrow.Array, gids []int32, newRows []int32) ([]int32, []int32) {
	n := col.Len()
	g.vals = fixedKeyValues(col, growU64(g.vals, n))
	gids = growInt32(gids, n)
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
		h := fixedHash(v)
		bk := bucketOf(h, g.b)
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
		bk := bucketOf(h, g.b)
		g.next[id] = g.first[bk]
		g.first[bk] = int32(id + 1)
	}
}

// insert assigns every row of cols a group id (gids, len rows), creating
// groups for unseen keys; it returns the rows that created groups, in order.
func (g *groupTable) insert(cols []arrow.Array, gids []int32, newRows []int32) ([]int32, []int32) {
	if g.fixedMode(cols) {
		return g.insertFixed(cols[0], gids, newRows)
	}
	g.enc.encode(cols, nil)
	g.hs = hashKeys(cols, g.hs)
	n := len(g.hs)
	gids = growInt32(gids, n)
	newRows = newRows[:0]
	for i, h := range g.hs {
		k := g.enc.key(i)
		bk := bucketOf(h, g.b)
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
	if g.fixedMode(cols) {
		col := cols[0]
		n := col.Len()
		g.vals = fixedKeyValues(col, growU64(g.vals, n))
		gids = growInt32(gids, n)
		nulls := col.NullN() > 0
		for i, v := range g.vals {
			if nulls && col.IsNull(i) {
				gids[i] = g.nullID
				continue
			}
			id := g.first[bucketOf(fixedHash(v), g.b)]
			for id != 0 && g.fkeys[id-1] != v {
				id = g.next[id-1]
			}
			gids[i] = id - 1
		}
		return gids
	}
	g.enc.encode(cols, nil)
	g.hs = hashKeys(cols, g.hs)
	gids = growInt32(gids, len(g.hs))
	for i, h := range g.hs {
		k := g.enc.key(i)
		id := g.first[bucketOf(h, g.b)]
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
