package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dorisgo/dorisgo/sql/types"
)

func TestAggregateMerge(t *testing.T) {
	s := openStore(t)
	decT := types.DecimalT(38, 2)
	sc := &TabletSchema{Keys: AggKeys, NumKeys: 1,
		Columns: []types.Column{
			{Name: "k", Type: types.IntT},
			{Name: "sum", Type: types.BigIntT, Nullable: true},
			{Name: "max", Type: types.IntT, Nullable: true},
			{Name: "min", Type: types.VarcharT(8), Nullable: true},
			{Name: "rep", Type: types.BigIntT, Nullable: true},
			{Name: "rnn", Type: types.BigIntT, Nullable: true},
			{Name: "dsum", Type: decT, Nullable: true},
			{Name: "fsum", Type: types.DoubleT, Nullable: true},
		},
		Agg: []AggType{AggNone, AggSum, AggMax, AggMin, AggReplace, AggReplaceIfNotNull, AggSum, AggSum},
	}
	if err := s.CreateTablet(1, sc); err != nil {
		t.Fatal(err)
	}
	null := func(c int) types.Datum { return types.NullDatum(sc.Columns[c].Type) }
	r := func(k int64, sum types.Datum, mx types.Datum, mn types.Datum, rep, rnn types.Datum, dec types.Datum, f types.Datum) row {
		return row{{T: types.IntT, I: k}, sum, mx, mn, rep, rnn, dec, f}
	}
	i := types.IntDatum
	i32 := func(v int64) types.Datum { return types.Datum{T: types.IntT, I: v} }
	str := func(v string) types.Datum { return types.Datum{T: sc.Columns[3].Type, S: v} }
	dec := func(v int64) types.Datum { return types.Datum{T: decT, Dec: decimal128.FromI64(v)} }
	f := types.FloatDatum
	load(t, s, 1, 1, 2, []row{
		r(1, i(10), i32(5), str("m"), i(1), i(1), dec(150), f(0.5)),
		r(2, null(1), null(2), null(3), i(2), null(5), null(6), null(7)),
		r(1, i(5), i32(9), str("b"), i(2), null(5), dec(-50), f(0.25)),
	})
	load(t, s, 1, 2, 3, []row{
		r(1, null(1), i32(-1), null(3), null(4), null(5), dec(1), null(7)),
		r(2, null(1), null(2), str("z"), i(3), i(7), null(6), null(7)),
		r(3, i(1), i32(1), str(""), i(1), i(1), dec(maxInt), f(1)),
	})
	v2 := []row{
		r(1, i(15), i32(9), str("b"), i(2), i(1), dec(100), f(0.75)),
		r(2, null(1), null(2), null(3), i(2), null(5), null(6), null(7)),
	}
	v3 := []row{
		r(1, i(15), i32(9), str("b"), null(4), i(1), dec(101), f(0.75)),
		r(2, null(1), null(2), str("z"), i(3), i(7), null(6), null(7)),
		r(3, i(1), i32(1), str(""), i(1), i(1), dec(maxInt), f(1)),
	}
	all := allCols(8)
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: all}), v2)
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 3, Columns: all}), v3)
	if err := s.Compact(1, 3); err != nil {
		t.Fatal(err)
	}
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 3, Columns: all}), v3)
	// Merging continues across a compacted rowset.
	load(t, s, 1, 3, 4, []row{r(3, i(2), i32(0), str("a"), i(9), null(5), dec(-maxInt), f(1))})
	v4 := slices.Clone(v3)
	v4[2] = r(3, i(3), i32(1), str(""), i(9), i(1), dec(0), f(2))
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 4, Columns: all}), v4)
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: all}), v2)
}

const maxInt = int64(^uint64(0) >> 1)

func TestPublishIdempotentAbortPending(t *testing.T) {
	s := openStore(t)
	if err := s.CreateTablet(1, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTablet(2, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	write := func(txn TxnID, tab TabletID, rows ...row) {
		rec := buildRecord(t, intSchema(DupKeys, "k", "v").Columns, rows)
		defer rec.Release()
		if err := s.Write(txn, tab, rec); err != nil {
			t.Fatal(err)
		}
	}
	write(10, 1, ints(1, 1))
	write(10, 2, ints(2, 2))
	write(11, 1, ints(3, 3))
	if p, _ := s.PendingTxns(); !slices.Equal(p, []TxnID{10, 11}) {
		t.Fatalf("pending %v", p)
	}
	if _, err := s.Prepare(10); err != nil {
		t.Fatal(err)
	}
	// Tablet 3 has no pending data and gets nothing.
	vs := map[TabletID]Version{1: 2, 2: 2, 3: 2}
	for i := 0; i < 2; i++ {
		if err := s.Publish(10, vs); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Abort(11); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(11, map[TabletID]Version{1: 3}); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.PendingTxns(); len(p) != 0 {
		t.Fatalf("pending %v", p)
	}
	for tab, want := range map[TabletID][]row{1: {ints(1, 1)}, 2: {ints(2, 2)}} {
		equalRows(t, scanRows(t, s, ScanRequest{Tablet: tab, Version: 9, Columns: []int{0, 1}}), want)
		if st, _ := s.TabletStats(tab, 9); st.Rowsets != 1 {
			t.Fatalf("tablet %d: %+v", tab, st)
		}
	}
	// Older version sees nothing.
	if got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 1, Columns: []int{0}}); len(got) != 0 {
		t.Fatalf("version 1 sees %v", got)
	}
	if err := s.DropTablet(1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Scan(context.Background(), ScanRequest{Tablet: 1, Version: 9}); err == nil {
		t.Fatal("scan of a dropped tablet succeeded")
	}
	if ids := s.Tablets(); !slices.Equal(ids, []TabletID{2}) {
		t.Fatalf("tablets %v", ids)
	}
}

func TestCompactionDupAndStale(t *testing.T) {
	s := openStore(t)
	if err := s.CreateTablet(1, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	var want []row
	for v := Version(2); v < 7; v++ {
		rows := []row{ints(int64(v), 1), ints(int64(v), 2)}
		load(t, s, 1, TxnID(v), v, rows)
		want = append(want, rows...)
	}
	// A scan opened before compaction keeps its snapshot.
	it, err := s.Scan(context.Background(), ScanRequest{Tablet: 1, Version: 6, Columns: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(1, 5); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.TabletStats(1, 6); st.Rowsets != 2 || st.Rows != 10 {
		t.Fatalf("stats %+v", st)
	}
	got := drain(t, it)
	equalRows(t, got, want)
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 6, Columns: []int{0, 1}}), want)
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 3, Columns: []int{0, 1}}), want[:4])
	// Compacting past the newest version only covers existing rowsets: a
	// later publish stays visible.
	if err := s.Compact(1, 100); err != nil {
		t.Fatal(err)
	}
	load(t, s, 1, 50, 7, []row{ints(7, 7)})
	want = append(want, ints(7, 7))
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 7, Columns: []int{0, 1}}), want)
	// GC of stale inputs after the grace period.
	s.staleGrace = 0
	if err := s.gcStale(timeNowPlusHour()); err != nil {
		t.Fatal(err)
	}
	all, _ := readRowsets(s.db, 1)
	if len(all) != 2 {
		t.Fatalf("after GC %d rowsets remain: %+v", len(all), all)
	}
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 7, Columns: []int{0, 1}}), want)
	// An old version whose rowsets were merged and deleted fails rather
	// than returning part of its rows.
	if _, err := s.Scan(context.Background(), ScanRequest{Tablet: 1, Version: 3, Columns: []int{0, 1}}); err == nil ||
		!strings.Contains(err.Error(), "already compacted") {
		t.Fatalf("scan at a compacted-away version: %v", err)
	}
}

func TestAutoCompaction(t *testing.T) {
	s := openStore(t)
	done := make(chan TabletID, 4)
	s.onCompacted = func(id TabletID) { done <- id }
	if err := s.CreateTablet(1, intSchema(UniqueKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	for v := Version(2); v <= compactAfter+2; v++ {
		load(t, s, 1, TxnID(v), v, []row{ints(int64(v)%3, int64(v))})
	}
	<-done
	st, _ := s.TabletStats(1, compactAfter+2)
	if st.Rowsets > 2 {
		t.Fatalf("rowsets after auto compaction: %+v", st)
	}
	got := scanRows(t, s, ScanRequest{Tablet: 1, Version: compactAfter + 2, Columns: []int{0, 1}})
	equalRows(t, got, []row{ints(0, 9), ints(1, 10), ints(2, 8)})
}

func TestCrashRecovery(t *testing.T) {
	cols := intSchema(DupKeys, "k", "v").Columns
	for seed := uint64(0); seed < 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			fs := vfs.NewCrashableMem()
			s, err := Open("db", Options{FS: fs})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.CreateTablet(1, &TabletSchema{Columns: cols, NumKeys: 1}); err != nil {
				t.Fatal(err)
			}
			load(t, s, 1, 1, 2, []row{ints(1, 1)}) // published
			rec := buildRecord(t, cols, []row{ints(2, 2)})
			_ = s.Write(2, 1, rec) // prepared, not published
			rec.Release()
			if _, err := s.Prepare(2); err != nil {
				t.Fatal(err)
			}
			rec = intRecord(segmentRows+10, func(i int) int64 { return int64(i) }, func(int) int64 { return 3 })
			// Unprepared; one segment reaches Pebble unsynced.
			_ = s.Write(3, 1, rec)
			rec.Release()
			crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: int(seed * 33), RNG: rand.New(rand.NewPCG(seed, 9))})
			_ = s.Close()

			s, err = Open("db", Options{FS: crashed})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if p, _ := s.PendingTxns(); !slices.Equal(p, []TxnID{2}) {
				t.Fatalf("pending after crash: %v", p)
			}
			req := ScanRequest{Tablet: 1, Version: 10, Columns: []int{0, 1}}
			equalRows(t, scanRows(t, s, req), []row{ints(1, 1)})
			if err := s.Publish(2, map[TabletID]Version{1: 3}); err != nil {
				t.Fatal(err)
			}
			equalRows(t, scanRows(t, s, req), []row{ints(1, 1), ints(2, 2)})
			// The discarded txn's data is gone, not half there.
			if st, _ := s.TabletStats(1, 10); st.Rows != 2 {
				t.Fatalf("stats %+v", st)
			}
			n := 0
			_ = scanPrefix(s.db, []byte{pfxData}, func(k, v []byte) error { n++; return nil })
			if n != 2*3 {
				t.Fatalf("%d data keys left, want 6", n)
			}
		})
	}
}

func TestMetaCrash(t *testing.T) {
	fs := vfs.NewCrashableMem()
	m, err := OpenMeta("meta", Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	var ops []MetaOp
	for i := 0; i < 100; i++ {
		ops = append(ops, MetaOp{Key: fmt.Appendf(nil, "t/%03d", i), Value: fmt.Appendf(nil, "v%d", i)})
	}
	if err := m.Apply(ops); err != nil {
		t.Fatal(err)
	}
	if err := m.Apply([]MetaOp{{Key: []byte("t/000"), Delete: true}, {Key: []byte("u/root"), Value: []byte{}}}); err != nil {
		t.Fatal(err)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	_ = m.Close()
	m, err = OpenMeta("meta", Options{FS: crashed})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	kvs, err := m.Scan([]byte("t/"))
	if err != nil || len(kvs) != 99 || string(kvs[0].Key) != "t/001" || string(kvs[98].Value) != "v99" {
		t.Fatalf("scan after crash: %d %v", len(kvs), err)
	}
	if v, ok, err := m.Get([]byte("u/root")); !ok || err != nil || len(v) != 0 {
		t.Fatalf("get: %q %v %v", v, ok, err)
	}
	if _, ok, _ := m.Get([]byte("t/000")); ok {
		t.Fatal("deleted key survived")
	}
}

func FuzzKeys(f *testing.F) {
	f.Add(int64(1), int64(2), int64(3), uint32(4), uint32(5))
	f.Add(int64(-1), int64(0), int64(1<<62), uint32(0), uint32(1<<31))
	f.Fuzz(func(t *testing.T, a, b, c int64, seg, tag uint32) {
		tb, end, rs, err := decodeRowsetKey(rowsetKey(TabletID(a), Version(b), rowsetID(c)))
		if err != nil || tb != TabletID(a) || end != Version(b) || rs != rowsetID(c) {
			t.Fatalf("rowset key: %v %v %v %v", tb, end, rs, err)
		}
		tb, rs, s2, t2, err := decodeDataKey(dataKey(TabletID(a), rowsetID(c), int(seg), int(tag)))
		if err != nil || tb != TabletID(a) || rs != rowsetID(c) || s2 != int(seg) || t2 != int(tag) {
			t.Fatalf("data key: %v %v %v %v %v", tb, rs, s2, t2, err)
		}
		txn, tb, err := decodePendingKey(pendingKey(TxnID(b), TabletID(a)))
		if err != nil || txn != TxnID(b) || tb != TabletID(a) {
			t.Fatalf("pending key: %v %v %v", txn, tb, err)
		}
		// Byte order is numeric order, so prefix iteration is sorted.
		ka, kb := rowsetKey(1, Version(a), 0), rowsetKey(1, Version(b), 0)
		if cmpBytes(ka, kb) != cmpInt(a, b) {
			t.Fatalf("order of %d, %d", a, b)
		}
		m := rowsetMeta{ID: rowsetID(c), Start: Version(a), End: Version(b), Txn: TxnID(c), Segs: int(seg), Rows: a, Bytes: b}
		got, err := decodeRowsetMeta(rowsetKey(7, m.End, m.ID), m.encode())
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Fatalf("rowset meta %+v != %+v (%v)", got, m, err)
		}
		sm := segMeta{Rows: int(seg), Zones: []zone{
			{Nulls: int64(tag), HasMinMax: true, Min: types.Datum{T: types.BigIntT, I: a}, Max: types.Datum{T: types.BigIntT, I: b}},
			{HasMinMax: true, Min: types.Datum{T: types.StringT, S: fmt.Sprint(a)}, Max: types.Datum{T: types.StringT, S: fmt.Sprint(b)}},
			{HasMinMax: true, Min: types.Datum{T: types.LargeIntT, Dec: decimal128.New(a, uint64(b))}, Max: types.Datum{T: types.LargeIntT}},
			{},
		}}
		cols := []types.Column{{Type: types.BigIntT}, {Type: types.StringT}, {Type: types.LargeIntT}, {Type: types.DoubleT}}
		gm, err := decodeSegMeta(sm.encode(cols), cols)
		if err != nil || !slices.Equal(gm.Zones, sm.Zones) || gm.Rows != sm.Rows {
			t.Fatalf("seg meta %+v != %+v (%v)", gm, sm, err)
		}
	})
}

func cmpBytes(a, b []byte) int { return slices.Compare(a, b) }

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
