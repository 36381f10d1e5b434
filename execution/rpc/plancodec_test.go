package rpc_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage/meta"
)

// filler sets every wire field (exported, not json:"-") of a value to a
// distinct non-zero value, so a field the codec drops or mixes up shows
// as a difference after a round trip.
type filler struct {
	n     int
	depth int // of nested plan nodes still allowed
}

var (
	exType    = reflect.TypeOf(fragment.Ex{})
	datumType = reflect.TypeOf(types.Datum{})
	nodeType  = reflect.TypeOf(fragment.Node{})
)

func (f *filler) next() int { f.n++; return f.n }

func (f *filler) fill(v reflect.Value) {
	switch v.Type() {
	case exType:
		v.Set(reflect.ValueOf(fragment.Ex{Expr: allExprs(f.next())}))
		return
	case datumType:
		v.Set(reflect.ValueOf(datums()[f.next()%len(datums())]))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == nodeType {
			f.depth--
			defer func() { f.depth++ }()
		}
		for i := 0; i < v.NumField(); i++ {
			sf := v.Type().Field(i)
			if !sf.IsExported() || sf.Tag.Get("json") == "-" {
				continue
			}
			f.fill(v.Field(i))
		}
	case reflect.Pointer:
		if v.Type().Elem() == nodeType && f.depth <= 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		if v.Type().Elem() == nodeType || v.Type().Elem().Kind() == reflect.Pointer && v.Type().Elem().Elem() == nodeType {
			if f.depth <= 0 {
				return
			}
		}
		if v.Type().Elem().Kind() == reflect.Uint8 { // []byte
			v.SetBytes([]byte{byte(f.next()), 0, 255})
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k)
			f.fill(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			f.fill(v.Index(i))
		}
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.next()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(-int64(f.next()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.next()))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.next()) + 0.25)
	default:
		panic(fmt.Sprintf("filler: no rule for %s", v.Type()))
	}
}

// datums are values of every representation: NULL, integers, floats
// JSON cannot carry, strings, decimals and LARGEINT (128 bits), and the
// serialization mirrors.
func datums() []types.Datum {
	return []types.Datum{
		types.IntDatum(-7),
		types.NullDatum(types.IntT),
		types.FloatDatum(math.Inf(-1)),
		types.FloatDatum(math.Copysign(0, -1)),
		types.StringDatum("héllo\x00"),
		{T: types.DecimalT(38, 4), Dec: decimal128.New(-3, 12345)},
		{T: types.T{Kind: types.LargeInt}, Dec: decimal128.New(math.MaxInt64, math.MaxUint64)},
		{T: types.DecimalT(10, 2), DecS: "123", FS: "NaN"},
		{T: types.T{Kind: types.Varchar, Length: 3, Sub: "x"}, S: "abc", I: 1, F: 2},
	}
}

// allExprs is an expression holding every kind of expression node, and
// the edge cases of each (no CASE operand or ELSE, a call without
// arguments, nil and empty), nested under a cast.
func allExprs(seed int) expr.Expr {
	col := &expr.ColRef{Index: seed, Table: "t", Name: "k", T: types.BigIntT, Null: true}
	var consts []expr.Expr
	for _, d := range datums() {
		consts = append(consts, &expr.Const{Val: d})
	}
	in := &expr.Call{Fn: "in", Args: append([]expr.Expr{col}, consts...), T: types.BoolT}
	now := &expr.Call{Fn: "now", T: types.DateTimeT}                  // nil Args
	pi := &expr.Call{Fn: "pi", Args: []expr.Expr{}, T: types.DoubleT} // empty Args
	searched := &expr.Case{Whens: []expr.When{{Cond: in, Then: now}}, T: types.DateTimeT}
	simple := &expr.Case{Operand: &expr.Param{Index: 2, T: types.IntT},
		Whens: []expr.When{{Cond: consts[0], Then: pi}, {Cond: col, Then: consts[2]}}, Else: consts[3], T: types.DoubleT}
	return &expr.Cast{Arg: &expr.Call{Fn: "coalesce", Args: []expr.Expr{searched, simple}, T: types.DoubleT, Null: true},
		To: types.VarcharT(65533), Explicit: true}
}

// TestPlanRoundTrip builds a request whose fragment has a node of every
// kind (each with every spec and field filled), sink, scan ranges and
// table sink, and checks decode(encode(req)) equals req, both with Root
// and with Root pre-encoded (RootWire, as the coordinator sends it).
func TestPlanRoundTrip(t *testing.T) {
	for k := fragment.NodeKind(0); k < fragment.NodeKindCount; k++ {
		f := &filler{n: int(k) * 1000, depth: 3}
		var req rpc.ExecFragmentReq
		f.fill(reflect.ValueOf(&req).Elem())
		req.RootWire = nil
		req.Root.Kind = k
		fragment.Walk(req.Root, func(n *fragment.Node) {
			if n.Apply == nil {
				t.Fatalf("%v: filler left a spec unset", k)
			}
		})

		b, err := rpc.MarshalExecReq(&req)
		if err != nil {
			t.Fatalf("%v: encode: %v", k, err)
		}
		got, err := rpc.UnmarshalExecReq(b)
		if err != nil {
			t.Fatalf("%v: decode: %v", k, err)
		}
		if !reflect.DeepEqual(got, &req) {
			t.Fatalf("%v: round trip differs at %s", k, diff(reflect.ValueOf(got), reflect.ValueOf(&req), "req"))
		}

		root := req.Root
		if req.RootWire, err = rpc.EncodeRoot(root); err != nil {
			t.Fatal(err)
		}
		req.Root = nil
		if b, err = rpc.MarshalExecReq(&req); err != nil {
			t.Fatal(err)
		}
		if got, err = rpc.UnmarshalExecReq(b); err != nil {
			t.Fatal(err)
		}
		if got.RootWire != nil || !reflect.DeepEqual(got.Root, root) {
			t.Fatalf("%v: RootWire round trip differs at %s", k, diff(reflect.ValueOf(got.Root), reflect.ValueOf(root), "root"))
		}

		// Truncations fail cleanly (an error, not a panic or a half plan).
		for _, n := range []int{1, len(b) / 2, len(b) - 1} {
			if _, err := rpc.UnmarshalExecReq(b[:n]); err == nil {
				t.Fatalf("%v: decoding %d of %d bytes succeeded", k, n, len(b))
			}
		}
	}
}

// TestReportRoundTrip: every field of an instance's report travels.
func TestReportRoundTrip(t *testing.T) {
	var rep rpc.InstanceReport
	(&filler{depth: 1}).fill(reflect.ValueOf(&rep).Elem())
	b, err := rpc.MarshalReport(&rep)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rpc.UnmarshalReport(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(reflect.ValueOf(got), reflect.ValueOf(&rep), "report"); d != "" {
		t.Fatalf("round trip differs at %s", d)
	}
}

// diff names the first path where a and b differ ("" if none).
func diff(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return path + ": type"
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil %v vs %v", path, a.IsNil(), b.IsNil())
			}
			return ""
		}
		return diff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := diff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() || a.Kind() == reflect.Slice && a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: len %d vs %d (nil %v vs %v)", path, a.Len(), b.Len(), a.Kind() == reflect.Slice && a.IsNil(), b.Kind() == reflect.Slice && b.IsNil())
		}
		for i := 0; i < a.Len(); i++ {
			if d := diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return path + ": map size"
		}
		for _, k := range a.MapKeys() {
			if d := diff(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); d != "" {
				return d
			}
		}
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
	}
	return ""
}

// TestPlanDeep: a plan tree deeper than encoding/json's nesting limit and
// an expression nested 20,000 levels travel.
func TestPlanDeep(t *testing.T) {
	col := &expr.ColRef{Index: 0, T: types.BigIntT}
	var e expr.Expr = col
	for i := range 20_000 {
		if i%2 == 0 {
			e = &expr.Call{Fn: "add", Args: []expr.Expr{e, &expr.Const{Val: types.IntDatum(1)}}, T: types.BigIntT}
		} else {
			e = &expr.Case{Whens: []expr.When{{Cond: col, Then: e}}, T: types.BigIntT}
		}
	}
	out := []types.Column{{Name: "k", Type: types.BigIntT}}
	root := &fragment.Node{ID: 0, Kind: fragment.KindScan, Output: out, Scan: &fragment.ScanSpec{Table: "t"}}
	for i := 1; i <= 11_000; i++ {
		root = &fragment.Node{ID: fragment.NodeID(i), Kind: fragment.KindFilter, Output: out, Children: []*fragment.Node{root},
			Filter: &fragment.FilterSpec{Conjuncts: []fragment.Ex{{Expr: col}}}}
	}
	root.Project = &fragment.ProjectSpec{Exprs: []fragment.Ex{{Expr: e}}}
	// The premise: JSON cannot carry this plan.
	js, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, new(fragment.Node)); err == nil || !strings.Contains(err.Error(), "depth") {
		t.Fatalf("encoding/json decoded a plan 11,000 deep (err %v): the test no longer shows the limit", err)
	}
	b, err := rpc.EncodeRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rpc.DecodeRoot(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, root) {
		t.Fatal("deep plan differs after a round trip")
	}
}

// pointQueryReq is the request of `SELECT * FROM t WHERE k = 5`'s one
// fragment: a scan of one tablet with its conjunct and zone-map range,
// sending to the FE.
func pointQueryReq() *rpc.ExecFragmentReq {
	cols := []types.Column{{Name: "k", Type: types.IntT, Nullable: true}, {Name: "v", Type: types.VarcharT(16), Nullable: true},
		{Name: "d", Type: types.DoubleT, Nullable: true}}
	eq := &expr.Call{Fn: "eq", Args: []expr.Expr{&expr.ColRef{Index: 0, Name: "k", T: types.IntT, Null: true},
		&expr.Const{Val: types.Datum{T: types.IntT, I: 5}}}, T: types.BoolT, Null: true}
	five := types.Datum{T: types.IntT, I: 5}
	tablets := []fragment.TabletRef{{Tablet: 10042, Version: 3, Bucket: 1, Replicas: []fragment.BackendID{2}}}
	root := &fragment.Node{ID: 0, Kind: fragment.KindScan, Output: cols, Scan: &fragment.ScanSpec{DB: "pq", Table: "t", TableID: 10040,
		Columns: []int{0, 1, 2}, Conjuncts: fragment.Exs([]expr.Expr{eq}), Tablets: tablets, Partitions: 1, TotalParts: 1, TotalTablets: 3,
		SchemaVersion: 1}}
	root.Scan.Ranges = append(root.Scan.Ranges, meta.ColumnRange{Column: 0, Lo: &five, LoIncl: true, Hi: &five, HiIncl: true})
	return &rpc.ExecFragmentReq{QueryID: "a1b2c3d4-0000-0000-0000-000000000001", Root: root,
		Tablets: map[fragment.NodeID][]fragment.TabletRef{0: tablets}, Exchanges: map[fragment.NodeID]rpc.ExchangeIn{},
		Sink:     rpc.SinkPlan{Kind: fragment.ResultSink, Receivers: []rpc.Dest{{Instance: 0, Pull: true}}},
		NowMicro: 1764650000000000, MemLimit: 2 << 30, Instances: 1, BackendInstances: 1}
}

// BenchmarkPlanCodec: one point-query request encoded by the FE and
// decoded by a backend, as JSON (before) and in the wire form.
func BenchmarkPlanCodec(b *testing.B) {
	req := pointQueryReq()
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			body, err := json.Marshal(req)
			if err != nil {
				b.Fatal(err)
			}
			var got rpc.ExecFragmentReq
			if err := json.Unmarshal(body, &got); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(body)), "bytes")
		}
	})
	b.Run("wire", func(b *testing.B) {
		for b.Loop() {
			body, err := rpc.MarshalExecReq(req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := rpc.UnmarshalExecReq(body); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(body)), "bytes")
		}
	})
}
