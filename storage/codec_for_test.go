package storage

import (
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestForCodec round-trips integer-like columns through encodeColumn and
// decodeColumn: every width's span (1, 2, 4, 8 bytes), negative bases,
// NULLs, chunks at offsets of a sliced array, and the values it must
// leave plain (an int64 spanning the whole range, a DECIMAL beyond 64
// bits, a width FOR cannot shrink).
func TestForCodec(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	mem := memory.DefaultAllocator
	type tc struct {
		name string
		dt   arrow.DataType
		gen  func() int64
		enc  byte // expected encoding
		dec  bool // as a DECIMAL beyond 64 bits sometimes
	}
	cases := []tc{
		{"int8 small", arrow.PrimitiveTypes.Int8, func() int64 { return int64(r.Intn(200) - 100) }, encPlain, false},
		{"int16 narrow", arrow.PrimitiveTypes.Int16, func() int64 { return int64(r.Intn(200) - 100) }, encFOR, false},
		{"int32 dates", arrow.FixedWidthTypes.Date32, func() int64 { return int64(8000 + r.Intn(2500)) }, encFOR, false},
		{"int32 wide", arrow.PrimitiveTypes.Int32, func() int64 { return int64(r.Int31()) - int64(r.Int31()) }, encPlain, false},
		{"int64 keys", arrow.PrimitiveTypes.Int64, func() int64 { return 6_000_000_000 + int64(r.Intn(70000)) }, encFOR, false},
		{"int64 negative", arrow.PrimitiveTypes.Int64, func() int64 { return -int64(r.Intn(1 << 30)) }, encFOR, false},
		{"int64 full range", arrow.PrimitiveTypes.Int64, func() int64 {
			if r.Intn(2) == 0 {
				return math.MinInt64 + int64(r.Intn(3))
			}
			return math.MaxInt64 - int64(r.Intn(3))
		}, encPlain, false},
		{"datetime", arrow.FixedWidthTypes.Timestamp_us, func() int64 { return 1_700_000_000_000_000 + int64(r.Intn(1e9)) }, encFOR, false},
		{"decimal prices", &arrow.Decimal128Type{Precision: 15, Scale: 2}, func() int64 { return int64(r.Intn(10_000_000)) - 100 }, encFOR, false},
		{"decimal 64-bit span", &arrow.Decimal128Type{Precision: 18, Scale: 0}, func() int64 { return r.Int63() - r.Int63() }, encFOR, false},
		{"decimal beyond 64 bits", &arrow.Decimal128Type{Precision: 38, Scale: 0}, func() int64 { return int64(r.Intn(100)) }, encPlain, true},
	}
	for _, c := range cases {
		for _, nullEvery := range []int{0, 5} {
			b := array.NewBuilder(mem, c.dt)
			var want []*int64
			wide := false
			for i := 0; i < 1000; i++ {
				if nullEvery > 0 && i%nullEvery == 3 {
					b.AppendNull()
					want = append(want, nil)
					continue
				}
				v := c.gen()
				switch bb := b.(type) {
				case *array.Int8Builder:
					bb.Append(int8(v))
				case *array.Int16Builder:
					bb.Append(int16(v))
				case *array.Int32Builder:
					bb.Append(int32(v))
				case *array.Date32Builder:
					bb.Append(arrow.Date32(v))
				case *array.Int64Builder:
					bb.Append(v)
				case *array.TimestampBuilder:
					bb.Append(arrow.Timestamp(v))
				case *array.Decimal128Builder:
					if c.dec && i == 500 {
						bb.Append(decimal128.New(7, 1)) // 7·2^64+1
						wide = true
						want = append(want, nil)
						continue
					}
					bb.Append(decimal128.FromI64(v))
				}
				want = append(want, &v)
			}
			full := b.NewArray()
			b.Release()
			// Rows 10..1000 of a slice starting at 7, in two chunks.
			arr := array.NewSlice(full, 7, int64(full.Len()))
			want = want[7:]
			n := arr.Len()
			chunks := []chunk{{arr: arr, off: 3, n: n - 3}, {arr: arr, off: 0, n: 3}}
			want = append(append([]*int64{}, want[3:]...), want[:3]...)
			buf := encodeColumn(nil, c.dt, chunks, n)
			if buf[0] != c.enc {
				t.Errorf("%s nulls %d: encoding %d, want %d", c.name, nullEvery, buf[0], c.enc)
			}
			got, err := decodeColumn(alignedCopy(buf), c.dt)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if got.Len() != n {
				t.Fatalf("%s: %d rows, want %d", c.name, got.Len(), n)
			}
			for i, w := range want {
				if w == nil {
					if wide && c.dec {
						continue // the 128-bit value, checked below
					}
					if !got.IsNull(i) {
						t.Fatalf("%s row %d: not NULL", c.name, i)
					}
					continue
				}
				if got.IsNull(i) {
					t.Fatalf("%s row %d: NULL, want %d", c.name, i, *w)
				}
				var g int64
				switch a := got.(type) {
				case *array.Int8:
					g = int64(a.Value(i))
				case *array.Int16:
					g = int64(a.Value(i))
				case *array.Int32:
					g = int64(a.Value(i))
				case *array.Date32:
					g = int64(a.Value(i))
				case *array.Int64:
					g = a.Value(i)
				case *array.Timestamp:
					g = int64(a.Value(i))
				case *array.Decimal128:
					d := a.Value(i)
					if d != decimal128.FromI64(int64(d.LowBits())) {
						t.Fatalf("%s row %d: %v is not sign-extended", c.name, i, d)
					}
					g = int64(d.LowBits())
				}
				if g != *w {
					t.Fatalf("%s nulls %d row %d: %d, want %d", c.name, nullEvery, i, g, *w)
				}
			}
			if wide {
				found := false
				for i := 0; i < got.Len(); i++ {
					if !got.IsNull(i) && got.(*array.Decimal128).Value(i) == decimal128.New(7, 1) {
						found = true
					}
				}
				if !found {
					t.Fatalf("%s: the 128-bit value was lost", c.name)
				}
			}
			got.Release()
			arr.Release()
			full.Release()
		}
	}
	// Truncated FOR chunks are refused, not read past their end.
	b := array.NewInt64Builder(mem)
	for i := 0; i < 100; i++ {
		b.Append(int64(i))
	}
	a := b.NewArray()
	buf := encodeColumn(nil, arrow.PrimitiveTypes.Int64, []chunk{{arr: a, n: 100}}, 100)
	if buf[0] != encFOR {
		t.Fatalf("encoding %d, want FOR", buf[0])
	}
	for _, cut := range []int{1, 9, 17, len(buf) - 10} {
		if _, err := decodeColumn(alignedCopy(buf[:cut]), arrow.PrimitiveTypes.Int64); err == nil {
			t.Errorf("a FOR chunk cut at %d of %d bytes decoded", cut, len(buf))
		}
	}
}
