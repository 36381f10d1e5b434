package storage

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Key prefixes of a BE store (doc.go draws the whole layout). Every id after
// the prefix is 8 bytes big-endian with the sign bit flipped, so byte order
// equals numeric order and a prefix iteration is sorted.
const (
	pfxSchema  byte = 'S' // S tablet                      → schema (JSON)
	pfxRowset  byte = 'R' // R tablet end rowset            → rowsetMeta
	pfxData    byte = 'D' // D tablet rowset seg(4) tag(4)   → segment meta (tag 0) / column tag-1
	pfxPending byte = 'P' // P txn tablet                   → pendingMeta
	pfxCompact byte = 'C' // C tablet rowset                → in-progress compaction output
	pfxBitmap  byte = 'B' // B tablet rowset seg(4) version → delete bitmap (mow.go)
)

// segMetaTag is the tag of a segment's metadata key; column c is tag c+1.
const segMetaTag = 0

var errCorrupt = errors.New("storage: corrupt key or value")

func putID(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(v)^(1<<63))
}

func getID(b []byte) int64 { return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)) }

func schemaKey(t TabletID) []byte { return putID([]byte{pfxSchema}, int64(t)) }

func tabletPrefix(pfx byte, t TabletID) []byte { return putID([]byte{pfx}, int64(t)) }

func rowsetKey(t TabletID, end Version, rs rowsetID) []byte {
	k := make([]byte, 0, 25)
	k = append(k, pfxRowset)
	k = putID(k, int64(t))
	k = putID(k, int64(end))
	return putID(k, int64(rs))
}

func decodeRowsetKey(k []byte) (t TabletID, end Version, rs rowsetID, err error) {
	if len(k) != 25 || k[0] != pfxRowset {
		return 0, 0, 0, errCorrupt
	}
	return TabletID(getID(k[1:])), Version(getID(k[9:])), rowsetID(getID(k[17:])), nil
}

// rowsetDataPrefix covers every segment key of one rowset.
func rowsetDataPrefix(t TabletID, rs rowsetID) []byte {
	k := make([]byte, 0, 25)
	k = append(k, pfxData)
	k = putID(k, int64(t))
	return putID(k, int64(rs))
}

func dataKey(t TabletID, rs rowsetID, seg int, tag int) []byte {
	k := make([]byte, 0, 25)
	return appendDataKey(k, t, rs, seg, tag)
}

func appendDataKey(k []byte, t TabletID, rs rowsetID, seg int, tag int) []byte {
	k = append(k, pfxData)
	k = putID(k, int64(t))
	k = putID(k, int64(rs))
	k = binary.BigEndian.AppendUint32(k, uint32(seg))
	return binary.BigEndian.AppendUint32(k, uint32(tag))
}

func decodeDataKey(k []byte) (t TabletID, rs rowsetID, seg, tag int, err error) {
	if len(k) != 25 || k[0] != pfxData {
		return 0, 0, 0, 0, errCorrupt
	}
	return TabletID(getID(k[1:])), rowsetID(getID(k[9:])),
		int(binary.BigEndian.Uint32(k[17:])), int(binary.BigEndian.Uint32(k[21:])), nil
}

func pendingKey(txn TxnID, t TabletID) []byte {
	k := make([]byte, 0, 17)
	k = append(k, pfxPending)
	k = putID(k, int64(txn))
	return putID(k, int64(t))
}

func decodePendingKey(k []byte) (TxnID, TabletID, error) {
	if len(k) != 17 || k[0] != pfxPending {
		return 0, 0, errCorrupt
	}
	return TxnID(getID(k[1:])), TabletID(getID(k[9:])), nil
}

func compactKey(t TabletID, rs rowsetID) []byte {
	k := make([]byte, 0, 17)
	k = append(k, pfxCompact)
	k = putID(k, int64(t))
	return putID(k, int64(rs))
}

func decodeCompactKey(k []byte) (TabletID, rowsetID, error) {
	if len(k) != 17 || k[0] != pfxCompact {
		return 0, 0, errCorrupt
	}
	return TabletID(getID(k[1:])), rowsetID(getID(k[9:])), nil
}

// prefixEnd is the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil // p is all 0xff: unbounded
}

// rowsetID names a rowset inside one store; allocated from a counter that
// Open restores from the maximum id found in rowset, pending and compaction keys.
type rowsetID int64

// rowsetMeta is the value of a rowset key. A published rowset has
// Start == End == its version; a compaction output covers [Start, End].
type rowsetMeta struct {
	ID         rowsetID
	Start, End Version
	Txn        TxnID
	Segs       int
	Rows       int64
	Bytes      int64
	// Deletes are delete conditions applying to every rowset whose End is
	// below their version (delete.go): a delete rowset's own, or those a
	// compaction output carries for the rowsets older than it.
	Deletes []rowsetDelete
	// Cols are the unique ids of the columns its segments store, in stored
	// order; nil for rowsets written before column ids (schema.go).
	Cols []int32
}

func appendCols(b []byte, cols []int32) []byte {
	b = binary.AppendUvarint(b, uint64(len(cols)))
	for _, c := range cols {
		b = binary.AppendVarint(b, int64(c))
	}
	return b
}

func (r *reader) cols() []int32 {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(r.varint())
	}
	return out
}

func (m rowsetMeta) encode() []byte {
	b := make([]byte, 0, 48)
	b = binary.AppendVarint(b, int64(m.Start))
	b = binary.AppendVarint(b, int64(m.Txn))
	b = binary.AppendUvarint(b, uint64(m.Segs))
	b = binary.AppendVarint(b, m.Rows)
	b = binary.AppendVarint(b, m.Bytes)
	if len(m.Deletes) == 0 && m.Cols == nil {
		return b // the format before delete predicates
	}
	b = binary.AppendUvarint(b, uint64(len(m.Deletes)))
	for _, d := range m.Deletes {
		b = binary.AppendVarint(b, int64(d.Version))
		b = appendBytes(b, d.Cond)
	}
	if m.Cols == nil {
		return b // the format before column ids
	}
	return appendCols(b, m.Cols)
}

func decodeRowsetMeta(key, val []byte) (rowsetMeta, error) {
	_, end, id, err := decodeRowsetKey(key)
	if err != nil {
		return rowsetMeta{}, err
	}
	m := rowsetMeta{ID: id, End: end}
	r := reader{b: val}
	m.Start = Version(r.varint())
	m.Txn = TxnID(r.varint())
	m.Segs = int(r.uvarint())
	m.Rows = r.varint()
	m.Bytes = r.varint()
	if len(r.b) > 0 && r.err == nil {
		n := r.uvarint()
		for i := uint64(0); i < n && r.err == nil; i++ {
			d := rowsetDelete{Version: Version(r.varint())}
			d.Cond = r.bytes()
			m.Deletes = append(m.Deletes, d)
		}
	}
	if len(r.b) > 0 && r.err == nil {
		m.Cols = r.cols()
	}
	return m, r.err
}

// pendingMeta is the value of a pending key: a rowset written by a load
// transaction, not yet visible. Prepared is set by the synced Prepare batch;
// Open discards unprepared pending rowsets, so unsynced Writes vanish whole.
type pendingMeta struct {
	ID       rowsetID
	Segs     int
	Rows     int64
	Bytes    int64
	Prepared bool
	// Delete is the condition (DeleteCond JSON) of a delete transaction's
	// rowset, which has no rows; nil for a load.
	Delete []byte
	// Cols are the ids of the columns the rowset stores (nil: written
	// before column ids).
	Cols []int32
	// Partial, with Cols only, marks a partial column update's rowset and
	// Base the rowsets its filled columns came from (rowsetWriter.base).
	Partial *PartialUpdate
	Base    []rowsetID
}

// pendingWithCols marks the prepared byte of a pendingMeta in the format
// with column ids (then a delete flag, the delete, and the ids follow).
const pendingWithCols = 2

func (m pendingMeta) encode() []byte {
	b := make([]byte, 0, 32)
	b = binary.AppendVarint(b, int64(m.ID))
	b = binary.AppendUvarint(b, uint64(m.Segs))
	b = binary.AppendVarint(b, m.Rows)
	b = binary.AppendVarint(b, m.Bytes)
	var flag byte
	if m.Prepared {
		flag = 1
	}
	if m.Cols == nil {
		b = append(b, flag)
		if m.Delete != nil {
			b = appendBytes(b, m.Delete)
		}
		return b
	}
	b = append(b, flag|pendingWithCols)
	if m.Delete != nil {
		b = append(b, 1)
		b = appendBytes(b, m.Delete)
	} else {
		b = append(b, 0)
	}
	b = appendCols(b, m.Cols)
	if m.Partial == nil {
		return b // the format before partial updates' bases
	}
	b = append(b, 1)
	fill := make([]int32, len(m.Partial.Fill))
	for i, c := range m.Partial.Fill {
		fill[i] = int32(c)
	}
	b = appendCols(b, fill)
	b = binary.AppendVarint(b, int64(m.Partial.Sign))
	b = binary.AppendUvarint(b, uint64(len(m.Base)))
	for _, id := range m.Base {
		b = binary.AppendVarint(b, int64(id))
	}
	return b
}

func decodePendingMeta(val []byte) (pendingMeta, error) {
	r := reader{b: val}
	m := pendingMeta{ID: rowsetID(r.varint()), Segs: int(r.uvarint()), Rows: r.varint(), Bytes: r.varint()}
	flag := r.byte1()
	m.Prepared = flag&1 == 1
	if flag&pendingWithCols != 0 {
		if r.byte1() == 1 {
			m.Delete = r.bytes()
		}
		m.Cols = r.cols()
		if len(r.b) > 0 && r.err == nil && r.byte1() == 1 {
			p := &PartialUpdate{}
			for _, c := range r.cols() {
				p.Fill = append(p.Fill, int(c))
			}
			p.Sign = int(r.varint())
			n := r.uvarint()
			if r.err == nil && n > uint64(len(r.b)) {
				r.fail()
			}
			for i := uint64(0); i < n && r.err == nil; i++ {
				m.Base = append(m.Base, rowsetID(r.varint()))
			}
			m.Partial = p
		}
		return m, r.err
	}
	if len(r.b) > 0 && r.err == nil {
		m.Delete = r.bytes()
	}
	return m, r.err
}

// zone is one column's zone map in one segment.
type zone struct {
	Nulls     int64
	HasMinMax bool // false when all NULL, NaN seen, or strings too long
	Min, Max  types.Datum
}

// segMeta is the value of a segment's metadata key.
type segMeta struct {
	Rows  int
	Zones []zone // one per schema column
}

func (m segMeta) encode(cols []types.Column) []byte {
	b := make([]byte, 0, 16+len(m.Zones)*20)
	b = binary.AppendUvarint(b, uint64(m.Rows))
	b = binary.AppendUvarint(b, uint64(len(m.Zones)))
	for i, z := range m.Zones {
		b = binary.AppendUvarint(b, uint64(z.Nulls))
		if !z.HasMinMax {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = appendDatum(b, cols[i].Type, z.Min)
		b = appendDatum(b, cols[i].Type, z.Max)
	}
	return b
}

func decodeSegMeta(val []byte, cols []types.Column) (segMeta, error) {
	r := reader{b: val}
	m := segMeta{Rows: int(r.uvarint())}
	n := int(r.uvarint())
	if r.err != nil || n != len(cols) {
		return m, errCorrupt
	}
	m.Zones = make([]zone, n)
	for i := range m.Zones {
		z := &m.Zones[i]
		z.Nulls = int64(r.uvarint())
		if r.byte1() == 1 {
			z.HasMinMax = true
			z.Min = r.datum(cols[i].Type)
			z.Max = r.datum(cols[i].Type)
		}
	}
	return m, r.err
}

// appendDatum encodes a non-NULL value of type t: integer-like kinds as a
// varint, floats as IEEE bits, decimals as 16 bytes, strings length-prefixed.
func appendDatum(b []byte, t types.T, d types.Datum) []byte {
	switch t.Kind {
	case types.Float, types.Double:
		return binary.BigEndian.AppendUint64(b, math.Float64bits(d.F))
	case types.Decimal, types.LargeInt:
		b = binary.BigEndian.AppendUint64(b, uint64(d.Dec.HighBits()))
		return binary.BigEndian.AppendUint64(b, d.Dec.LowBits())
	case types.Char, types.Varchar, types.String:
		b = binary.AppendUvarint(b, uint64(len(d.S)))
		return append(b, d.S...)
	}
	return binary.AppendVarint(b, d.I)
}

// reader decodes the varint formats above, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errCorrupt
	}
	r.b = nil
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte1() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) u64() uint64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) datum(t types.T) types.Datum {
	d := types.Datum{T: t}
	switch t.Kind {
	case types.Float, types.Double:
		d.F = math.Float64frombits(r.u64())
	case types.Decimal, types.LargeInt:
		hi := int64(r.u64())
		d.Dec = decimal128.New(hi, r.u64())
	case types.Char, types.Varchar, types.String:
		n := r.uvarint()
		if uint64(len(r.b)) < n {
			r.fail()
			return d
		}
		d.S = string(r.b[:n])
		r.b = r.b[n:]
	default:
		d.I = r.varint()
	}
	return d
}
