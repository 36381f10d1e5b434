package eval

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// castToNested converts to ARRAY, MAP or STRUCT: text parses as the
// Doris text form ('[1, 2]', '{"k":1}'), a value that does not parse is
// NULL (an error on the strict load path); a nested value of the same
// kind converts its elements.
func (ev *evaluator) castToNested(a vec, from, to types.T, o castOpts) (vec, error) {
	if from.IsString() || from.Kind == types.JSON {
		src := a.arr.(*array.String)
		b := array.NewBuilder(ev.mem, to.Arrow())
		defer b.Release()
		for i := 0; i < src.Len(); i++ {
			if src.IsNull(i) {
				b.AppendNull()
				continue
			}
			if !types.AppendNested(b, src.Value(i), to) {
				if o.strict {
					return vec{}, o.errValue(to.String(), src.Value(i), i)
				}
				o.failed(to.String(), src.Value(i), false)
			}
		}
		return vec{arr: b.NewArray(), scalar: a.scalar, owned: true}, nil
	}
	if from.Kind != to.Kind {
		return vec{}, sqlerr.Doris.New(fmt.Sprintf("can not cast from origin type %s to target type=%s", from, to))
	}
	out, err := ev.castNestedArray(a.arr, from, to, o)
	if err != nil {
		return vec{}, err
	}
	return vec{arr: out, scalar: a.scalar, owned: true}, nil
}

// castChild converts one child array (its own length) from → to.
func (ev *evaluator) castChild(child arrow.Array, from, to types.T, o castOpts) (arrow.Array, error) {
	sub := &evaluator{ctx: ev.ctx, mem: ev.mem, n: child.Len()}
	v, err := sub.cast(vec{arr: child}, from, to, o)
	if err != nil {
		return nil, err
	}
	return sub.materialize(v, to), nil
}

// castNestedArray rebuilds arr's layout around converted children.
func (ev *evaluator) castNestedArray(arr arrow.Array, from, to types.T, o castOpts) (arrow.Array, error) {
	d := arr.Data()
	var kids []arrow.ArrayData
	switch a := arr.(type) {
	case *array.Map:
		fk, fv := from.MapKV()
		tk, tv := to.MapKV()
		k, err := ev.castChild(a.Keys(), fk, tk, o)
		if err != nil {
			return nil, err
		}
		defer k.Release()
		v, err := ev.castChild(a.Items(), fv, tv, o)
		if err != nil {
			return nil, err
		}
		defer v.Release()
		mt := to.Arrow().(*arrow.MapType)
		entries := d.Children()[0]
		sd := array.NewData(mt.Elem(), entries.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{k.Data(), v.Data()}, 0, 0)
		defer sd.Release()
		kids = []arrow.ArrayData{sd}
	case *array.List:
		c, err := ev.castChild(a.ListValues(), from.Elem(), to.Elem(), o)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		kids = []arrow.ArrayData{c.Data()}
	case *array.Struct:
		ff, tf := from.Fields(), to.Fields()
		if len(ff) != len(tf) {
			return nil, sqlerr.Doris.New(fmt.Sprintf("can not cast from origin type %s to target type=%s", from, to))
		}
		for i := range tf {
			// Struct children span the parent's whole (unsliced) range.
			c, err := ev.castChild(a.Field(i), ff[i].T, tf[i].T, o)
			if err != nil {
				return nil, err
			}
			defer c.Release()
			kids = append(kids, c.Data())
		}
		// Field(i) is already sliced to the parent's offset.
		nd := array.NewData(to.Arrow(), d.Len(), []*memory.Buffer{sliceValidity(arr)}, kids, arr.NullN(), 0)
		defer nd.Release()
		return array.MakeFromData(nd), nil
	default:
		return nil, sqlerr.Assertf("eval: nested cast of %T", arr)
	}
	nd := array.NewData(to.Arrow(), d.Len(), d.Buffers(), kids, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd), nil
}

// sliceValidity is arr's validity bitmap starting at bit 0 (nil without
// NULLs), for rebuilding a sliced array at offset 0.
func sliceValidity(arr arrow.Array) *memory.Buffer {
	if arr.NullN() == 0 {
		return nil
	}
	bm := make([]byte, bitutil.BytesForBits(int64(arr.Len())))
	bitutil.CopyBitmap(arr.NullBitmapBytes(), arr.Data().Offset(), arr.Len(), bm, 0)
	return memory.NewBufferBytes(bm)
}
