package storage

import (
	"bytes"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// encIPC is the encoding of ARRAY, MAP and STRUCT chunks: one Arrow IPC
// stream of a one-column record. Nested layouts have a buffer tree per
// type, which IPC already serializes exactly; the plain encoding covers
// the flat types.
const encIPC byte = 2

func isNestedArrow(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.LIST, arrow.MAP, arrow.STRUCT:
		return true
	}
	return false
}

func encodeNested(dst []byte, dt arrow.DataType, chunks []chunk) []byte {
	parts := make([]arrow.Array, 0, len(chunks))
	for _, c := range chunks {
		parts = append(parts, array.NewSlice(c.arr, int64(c.off), int64(c.off+c.n)))
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	var col arrow.Array
	if len(parts) == 0 {
		col = array.MakeArrayOfNull(memory.DefaultAllocator, dt, 0)
	} else {
		var err error
		if col, err = array.Concatenate(parts, memory.DefaultAllocator); err != nil {
			panic(fmt.Sprintf("storage: concatenate %s chunks: %v", dt, err))
		}
	}
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: dt, Nullable: true}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	var buf bytes.Buffer
	buf.WriteByte(encIPC)
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
	if err := w.Write(rec); err != nil {
		panic(fmt.Sprintf("storage: encode %s: %v", dt, err))
	}
	if err := w.Close(); err != nil {
		panic(fmt.Sprintf("storage: encode %s: %v", dt, err))
	}
	return append(dst, buf.Bytes()...)
}

func decodeNested(buf []byte, dt arrow.DataType) (arrow.Array, error) {
	r, err := ipc.NewReader(bytes.NewReader(buf[1:]))
	if err != nil {
		return nil, errCorrupt
	}
	defer r.Release()
	if !r.Next() {
		return nil, errCorrupt
	}
	rec := r.Record()
	if rec.NumCols() != 1 || !arrow.TypeEqual(rec.Column(0).DataType(), dt) {
		return nil, fmt.Errorf("storage: stored %s column read as %s", rec.Column(0).DataType(), dt)
	}
	col := rec.Column(0)
	col.Retain()
	return col, nil
}

// takeNested gathers rows idx of a nested array (arrow's Take handles the
// child buffers).
func takeNested(a arrow.Array, idx []int32) arrow.Array {
	ia := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(idx),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(idx))}, nil, 0, 0))
	defer ia.Release()
	out, err := compute.TakeArray(context.Background(), a, ia)
	if err != nil {
		panic(fmt.Sprintf("storage: take %s: %v", a.DataType(), err))
	}
	return out
}
