package storage

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// countingPredicate counts the rows a compiled condition was evaluated on.
type countingPredicate struct {
	Predicate
	rows *atomic.Int64
}

func (c countingPredicate) Matches(cols []arrow.Array, n int) (*array.Boolean, error) {
	c.rows.Add(int64(n))
	return c.Predicate.Matches(cols, n)
}

// evalCompiler is what a backend passes, counting evaluated rows.
func evalCompiler(evaluated *atomic.Int64) Compiler {
	return func(cond []byte, cols []types.Column) (Predicate, error) {
		p, err := eval.CompileRowPredicate(cond, cols)
		if err != nil {
			return nil, err
		}
		return countingPredicate{p, evaluated}, nil
	}
}

func openDeleteStore(t *testing.T, fs vfs.FS, dir string, evaluated *atomic.Int64) *Store {
	t.Helper()
	if evaluated == nil {
		evaluated = new(atomic.Int64)
	}
	if dir == "" {
		dir = t.TempDir()
	}
	s, err := Open(dir, Options{FS: fs, Predicates: evalCompiler(evaluated)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// cond builds the delete condition `name fn v` over a BIGINT column, with
// the range it implies when fn is a comparison.
func cond(t *testing.T, name, fn string, v int64) DeleteCond {
	t.Helper()
	ref := &expr.ColRef{Name: name, T: types.BigIntT, Null: true}
	e, err := expr.NewCall(fn, ref, expr.Lit(types.IntDatum(v)))
	if err != nil {
		t.Fatal(err)
	}
	return deleteCondOf(t, e, name, fn, v)
}

func deleteCondOf(t *testing.T, e expr.Expr, name, fn string, v int64) DeleteCond {
	t.Helper()
	js, err := expr.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	c := DeleteCond{Cond: js}
	col := map[string]int{"k": 0, "v": 1}[name]
	d := types.IntDatum(v)
	switch fn {
	case "eq":
		c.Ranges = []ColumnRange{{Column: col, Lo: &d, LoIncl: true, Hi: &d, HiIncl: true}}
	case "gt", "ge":
		c.Ranges = []ColumnRange{{Column: col, Lo: &d, LoIncl: fn == "ge"}}
	case "lt", "le":
		c.Ranges = []ColumnRange{{Column: col, Hi: &d, HiIncl: fn == "le"}}
	}
	return c
}

// deleteAt runs a delete transaction on one tablet, published at v.
func deleteAt(t *testing.T, s *Store, tab TabletID, txn TxnID, v Version, c DeleteCond) {
	t.Helper()
	if err := s.WriteDelete(txn, tab, c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(txn); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(txn, map[TabletID]Version{tab: v}); err != nil {
		t.Fatal(err)
	}
}

func keepRows(rows []row, drop func(row) bool) []row {
	var out []row
	for _, r := range rows {
		if !drop(r) {
			out = append(out, r)
		}
	}
	return out
}

func intOr(d types.Datum, null int64) int64 {
	if d.Null {
		return null
	}
	return d.I
}

// TestDeleteAtRead: a delete drops the matching rows of every older
// rowset at read, NULL keeps a row, later loads are untouched, scans below
// its version still see everything, and every projection agrees.
func TestDeleteAtRead(t *testing.T) {
	s := openDeleteStore(t, nil, "", nil)
	if err := s.CreateTablet(1, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	null := types.NullDatum(types.BigIntT)
	var v2 []row
	for k := int64(1); k <= 12; k++ {
		r := ints(k, k%3)
		if k%4 == 0 {
			r[1] = null
		}
		v2 = append(v2, r)
	}
	load(t, s, 1, 1, 2, v2)
	v3 := []row{ints(20, 1), ints(21, 2)}
	load(t, s, 1, 2, 3, v3)
	deleteAt(t, s, 1, 3, 4, cond(t, "v", "eq", 1)) // v = 1: NULL v stays
	v5 := []row{ints(30, 1), {types.IntDatum(31), null}}
	load(t, s, 1, 4, 5, v5)

	scan := func(v Version, cols ...int) []row {
		return scanRows(t, s, ScanRequest{Tablet: 1, Version: v, Columns: cols})
	}
	all := slices.Concat(v2, v3)
	equalRows(t, scan(3, 0, 1), all)
	live := keepRows(all, func(r row) bool { return intOr(r[1], -1) == 1 })
	equalRows(t, scan(4, 0, 1), live)
	equalRows(t, scan(5, 0, 1), slices.Concat(live, v5))
	// A projection without the condition's column reads it anyway.
	var keys []row
	for _, r := range slices.Concat(live, v5) {
		keys = append(keys, row{r[0]})
	}
	equalRows(t, scan(5, 0), keys)

	// A second delete covers the first one's survivors and the newer load.
	deleteAt(t, s, 1, 5, 6, cond(t, "k", "gt", 10))
	after := keepRows(slices.Concat(live, v5), func(r row) bool { return r[0].I > 10 })
	equalRows(t, scan(6, 0, 1), after)
	equalRows(t, scan(5, 0, 1), slices.Concat(live, v5))
	if st, _ := s.TabletStats(1, 6); st.Rows != int64(len(all)+len(v5)) || st.Rowsets != 5 {
		t.Fatalf("stats before compaction %+v (deleted rows stay until compacted)", st)
	}
}

// TestDeleteCompactionFolds: a compaction from the first rowset applies the
// deletes among its inputs and drops them; one that leaves older rowsets
// out carries them for those rowsets; scans at every version stay exact.
func TestDeleteCompactionFolds(t *testing.T) {
	s := openDeleteStore(t, nil, "", nil)
	if err := s.CreateTablet(1, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	s.foldRows = 10
	const base = compactSmallRows // not small: cumulative compaction leaves it
	loadInts(t, s, 1, 1, 2, base, func(i int) int64 { return int64(i) }, func(i int) int64 { return int64(i % 10) })
	deleteAt(t, s, 1, 2, 3, cond(t, "v", "eq", 3))
	loadInts(t, s, 1, 3, 4, 10, func(i int) int64 { return int64(base + i) }, func(int) int64 { return 3 })
	deleteAt(t, s, 1, 4, 5, cond(t, "k", "ge", base+5))
	loadInts(t, s, 1, 5, 6, 5, func(i int) int64 { return int64(2*base + i) }, func(int) int64 { return 3 })

	want := func(v Version) []row {
		var out []row
		for i := int64(0); i < base; i++ {
			if v < 3 || i%10 != 3 {
				out = append(out, ints(i, i%10))
			}
		}
		for i := int64(0); v >= 4 && i < 10; i++ {
			if v < 5 || base+i < base+5 {
				out = append(out, ints(base+i, 3))
			}
		}
		for i := int64(0); v >= 6 && i < 5; i++ {
			out = append(out, ints(2*base+i, 3))
		}
		return out
	}
	check := func(what string) {
		t.Helper()
		for v := Version(2); v <= 6; v++ {
			t.Run(fmt.Sprintf("%s@%d", what, v), func(t *testing.T) {
				got := scanRows(t, s, ScanRequest{Tablet: 1, Version: v, Columns: []int{0, 1}})
				slices.SortFunc(got, func(a, b row) int { return cmp.Compare(a[0].I, b[0].I) })
				equalRows(t, got, want(v))
			})
		}
	}
	check("before compaction")

	// Cumulative: the base (100 rows > foldRows) stays, the newer run is
	// merged with the deletes applied to its older members and carried.
	if err := s.compact(1, 100, true); err != nil {
		t.Fatal(err)
	}
	all, _ := readRowsets(s.db, 1)
	vis := visibleRowsets(all, 100)
	if len(vis) != 2 || vis[1].Start != 3 || vis[1].End != 6 || vis[1].Rows != 10 || len(vis[1].Deletes) != 2 {
		t.Fatalf("after cumulative compaction: %+v", vis)
	}
	check("after cumulative compaction")

	// A full compaction folds them: no condition is left, rows are gone.
	if err := s.Compact(1, 100); err != nil {
		t.Fatal(err)
	}
	all, _ = readRowsets(s.db, 1)
	vis = visibleRowsets(all, 100)
	if len(vis) != 1 || len(vis[0].Deletes) != 0 || vis[0].Rows != int64(len(want(6))) {
		t.Fatalf("after full compaction: %+v", vis)
	}
	check("after full compaction")
	before := s.rowsDeleted.Load()
	scanRows(t, s, ScanRequest{Tablet: 1, Version: 6, Columns: []int{0, 1}})
	if d := s.rowsDeleted.Load() - before; d != 0 {
		t.Fatalf("a scan of the compacted tablet still dropped %d rows", d)
	}

	// The background policy folds at once when the older part is small.
	s.foldRows = defaultFoldRows
	deleteAt(t, s, 1, 6, 7, cond(t, "k", "lt", 50))
	loadInts(t, s, 1, 7, 8, 1, func(int) int64 { return 1 }, func(int) int64 { return 1 })
	if err := s.compact(1, 100, true); err != nil {
		t.Fatal(err)
	}
	all, _ = readRowsets(s.db, 1)
	if vis = visibleRowsets(all, 100); len(vis) != 1 || len(vis[0].Deletes) != 0 {
		t.Fatalf("background compaction did not fold a delete over a small base: %+v", vis)
	}
	got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 8, Columns: []int{0, 1}})
	wantRows := slices.Concat(keepRows(want(6), func(r row) bool { return r[0].I < 50 }), []row{ints(1, 1)})
	slices.SortFunc(got, func(a, b row) int { return cmp.Compare(a[0].I, b[0].I) })
	slices.SortFunc(wantRows, func(a, b row) int { return cmp.Compare(a[0].I, b[0].I) })
	equalRows(t, got, wantRows)
}

// TestDeleteKeyModels: on UNIQUE and AGGREGATE tablets a delete applies to
// older rows before they merge, so a key loaded after it starts over.
func TestDeleteKeyModels(t *testing.T) {
	s := openDeleteStore(t, nil, "", nil)
	if err := s.CreateTablet(1, intSchema(UniqueKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	agg := intSchema(AggKeys, "k", "v")
	agg.Agg = []AggType{AggNone, AggSum}
	if err := s.CreateTablet(2, agg); err != nil {
		t.Fatal(err)
	}
	for tab := TabletID(1); tab <= 2; tab++ {
		txn := TxnID(tab * 100)
		load(t, s, tab, txn, 2, []row{ints(1, 10), ints(2, 20), ints(3, 30)})
		load(t, s, tab, txn+1, 3, []row{ints(1, 1), ints(3, 3)})
		deleteAt(t, s, tab, txn+2, 4, cond(t, "k", "le", 2))
		load(t, s, tab, txn+3, 5, []row{ints(1, 5)})
	}
	scan := func(tab TabletID, v Version) []row {
		return scanRows(t, s, ScanRequest{Tablet: tab, Version: v, Columns: []int{0, 1}})
	}
	equalRows(t, scan(1, 3), []row{ints(1, 1), ints(2, 20), ints(3, 3)})
	equalRows(t, scan(1, 4), []row{ints(3, 3)})
	equalRows(t, scan(1, 5), []row{ints(1, 5), ints(3, 3)})
	equalRows(t, scan(2, 3), []row{ints(1, 11), ints(2, 20), ints(3, 33)})
	equalRows(t, scan(2, 4), []row{ints(3, 33)})
	equalRows(t, scan(2, 5), []row{ints(1, 5), ints(3, 33)})
	for tab := TabletID(1); tab <= 2; tab++ {
		if err := s.Compact(tab, 100); err != nil {
			t.Fatal(err)
		}
	}
	equalRows(t, scan(1, 5), []row{ints(1, 5), ints(3, 3)})
	equalRows(t, scan(2, 5), []row{ints(1, 5), ints(3, 33)})
}

// TestDeleteZoneMaps: a segment whose zone maps rule out the condition's
// ranges is read without evaluating it, and query ranges still prune
// correctly beside a delete.
func TestDeleteZoneMaps(t *testing.T) {
	var evaluated atomic.Int64
	s := openDeleteStore(t, nil, "", &evaluated)
	if err := s.CreateTablet(1, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	// Two segments: k in [0, 65536) and [65536, 65546).
	n := segmentRows + 10
	loadInts(t, s, 1, 1, 2, n, func(i int) int64 { return int64(i) }, func(i int) int64 { return int64(i % 7) })
	deleteAt(t, s, 1, 2, 3, cond(t, "k", "ge", int64(segmentRows+5)))
	got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 3, Columns: []int{0}})
	if len(got) != segmentRows+5 || got[len(got)-1][0].I != int64(segmentRows+4) {
		t.Fatalf("got %d rows, last %v", len(got), got[len(got)-1])
	}
	if e := evaluated.Load(); e != 10 {
		t.Fatalf("condition evaluated on %d rows, want 10 (the first segment is pruned)", e)
	}
	lo := types.IntDatum(int64(segmentRows))
	got = scanRows(t, s, ScanRequest{Tablet: 1, Version: 3, Columns: []int{0, 1}, Ranges: []ColumnRange{{Column: 0, Lo: &lo, LoIncl: true}}})
	if len(got) != 5 || got[0][0].I != int64(segmentRows) {
		t.Fatalf("range scan beside a delete: %v", got)
	}
}

// TestDeleteCrash: a prepared delete survives a crash and publishes after
// it; an unprepared one vanishes; neither is ever half applied.
func TestDeleteCrash(t *testing.T) {
	for seed := uint64(0); seed < 3; seed++ {
		fs := vfs.NewCrashableMem()
		s, err := Open("db", Options{FS: fs, Predicates: evalCompiler(new(atomic.Int64))})
		if err != nil {
			t.Fatal(err)
		}
		for tab := TabletID(1); tab <= 2; tab++ {
			if err := s.CreateTablet(tab, intSchema(DupKeys, "k", "v")); err != nil {
				t.Fatal(err)
			}
			load(t, s, tab, TxnID(tab), 2, []row{ints(1, 1), ints(2, 2), ints(3, 3)})
		}
		for tab := TabletID(1); tab <= 2; tab++ {
			if err := s.WriteDelete(10, tab, cond(t, "k", "eq", 1)); err != nil {
				t.Fatal(err)
			}
			if err := s.WriteDelete(11, tab, cond(t, "k", "eq", 2)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Prepare(10); err != nil {
			t.Fatal(err)
		}
		crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: int(seed * 50), RNG: rand.New(rand.NewPCG(seed, 3))})
		_ = s.Close()

		s = openDeleteStore(t, crashed, "db", nil)
		if p, _ := s.PendingTxns(); !slices.Equal(p, []TxnID{10}) {
			t.Fatalf("pending after crash: %v", p)
		}
		for tab := TabletID(1); tab <= 2; tab++ {
			equalRows(t, scanRows(t, s, ScanRequest{Tablet: tab, Version: 3, Columns: []int{0}}), []row{ints(1), ints(2), ints(3)})
		}
		if err := s.Publish(10, map[TabletID]Version{1: 3, 2: 3}); err != nil {
			t.Fatal(err)
		}
		for tab := TabletID(1); tab <= 2; tab++ {
			equalRows(t, scanRows(t, s, ScanRequest{Tablet: tab, Version: 3, Columns: []int{0}}), []row{ints(2), ints(3)})
		}
		// Recovery left the delete of a tablet a load; loading rows into
		// it is refused.
		rec := buildRecord(t, intSchema(DupKeys, "k", "v").Columns, []row{ints(9, 9)})
		if err := s.Write(12, 1, rec); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteDelete(12, 1, cond(t, "k", "eq", 9)); err == nil {
			t.Fatal("a transaction both loaded and deleted a tablet")
		}
		rec.Release()
		_ = s.Close()
	}
}

// TestDeletedRowsCached: the rows a segment keeps under its delete
// conditions are cached, so a second scan evaluates no condition and reads
// the same rows; a scan at a version before the delete, and one after a
// newer delete, each get their own rows.
func TestDeletedRowsCached(t *testing.T) {
	var evaluated atomic.Int64
	s := openDeleteStore(t, nil, "", &evaluated)
	if err := s.CreateTablet(1, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	loadInts(t, s, 1, 1, 2, 100, func(i int) int64 { return int64(i) }, func(i int) int64 { return int64(i % 10) })
	deleteAt(t, s, 1, 2, 3, cond(t, "v", "eq", 3))
	count := func(v Version) int {
		return len(scanRows(t, s, ScanRequest{Tablet: 1, Version: v, Columns: []int{0}}))
	}
	if n := count(3); n != 90 {
		t.Fatalf("first scan after the delete: %d rows, want 90", n)
	}
	first := evaluated.Load()
	// One copy of the scanned column stays cached: its surviving rows, not
	// also the column as stored (the condition's column v, read to
	// evaluate it, stays as stored for the next miss).
	cachedDels := func() map[Version]int {
		cc := columnCache()
		cc.mu.Lock()
		defer cc.mu.Unlock()
		out := map[Version]int{}
		for k := range cc.items {
			if k.store == s.id && k.tab == 1 && k.col == 0 {
				out[k.del]++
			}
		}
		return out
	}
	if got := cachedDels(); got[0] != 0 || got[3] == 0 {
		t.Fatalf("cached columns of tablet 1 by delete version after the first scan: %v, want only version 3's", got)
	}
	hits, _ := s.ColumnCacheStats()
	if n := count(3); n != 90 {
		t.Fatalf("second scan: %d rows, want 90", n)
	}
	if d := evaluated.Load() - first; first == 0 || d != 0 {
		t.Fatalf("the condition was evaluated on %d rows by the first scan, %d by the second; want some, then none", first, d)
	}
	if h, _ := s.ColumnCacheStats(); h <= hits {
		t.Fatal("the second scan did not hit the cache")
	}
	if n := count(2); n != 100 {
		t.Fatalf("scan before the delete: %d rows, want 100", n)
	}
	deleteAt(t, s, 1, 3, 4, cond(t, "v", "eq", 4))
	if n := count(4); n != 80 {
		t.Fatalf("after a second delete: %d rows, want 80", n)
	}
	if got := cachedDels(); got[0] != 0 || got[3] != 0 || got[4] == 0 {
		t.Fatalf("cached columns of tablet 1 by delete version after the second delete: %v, want only version 4's", got)
	}
	if n := count(3); n != 90 {
		t.Fatalf("at the first delete's version again: %d rows, want 90", n)
	}
}

// TestDeleteCompiledOncePerSchema: a DELETE over many tablets of one schema
// compiles its condition once (the cache is keyed by what compiling reads,
// not by tablet), while a tablet whose columns differ (another table, or
// the same after a rename) gets its own compile, and every tablet drops
// exactly its matching rows.
func TestDeleteCompiledOncePerSchema(t *testing.T) {
	var compiles atomic.Int64
	inner := evalCompiler(new(atomic.Int64))
	s, err := Open(t.TempDir(), Options{Predicates: func(cond []byte, cols []types.Column) (Predicate, error) {
		compiles.Add(1)
		return inner(cond, cols)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	const tablets = 6
	for tab := TabletID(1); tab <= tablets; tab++ {
		if err := s.CreateTablet(tab, intSchema(DupKeys, "k", "v")); err != nil {
			t.Fatal(err)
		}
		load(t, s, tab, TxnID(tab), 2, []row{ints(int64(tab), 1), ints(int64(tab)+100, 2)})
	}
	// Tablet 7 has the same positions but its second column is w: the
	// condition on v must not reuse the others' compiled form.
	if err := s.CreateTablet(7, intSchema(DupKeys, "k", "w")); err != nil {
		t.Fatal(err)
	}
	load(t, s, 7, 7, 2, []row{ints(7, 1)})

	c := cond(t, "v", "eq", 1)
	for tab := TabletID(1); tab <= tablets; tab++ {
		if err := s.WriteDelete(20, tab, c); err != nil {
			t.Fatal(err)
		}
	}
	if got := compiles.Load(); got != 1 {
		t.Fatalf("compiled %d times for %d tablets of one schema, want 1", got, tablets)
	}
	if err := s.WriteDelete(21, 7, c); err == nil {
		t.Fatal("a condition on v compiled against a tablet without v")
	}
	if got := compiles.Load(); got != 2 {
		t.Fatalf("the tablet of another schema compiled %d times in all, want 2", got)
	}
	if _, err := s.Prepare(20); err != nil {
		t.Fatal(err)
	}
	vers := map[TabletID]Version{}
	for tab := TabletID(1); tab <= tablets; tab++ {
		vers[tab] = 3
	}
	if err := s.Publish(20, vers); err != nil {
		t.Fatal(err)
	}
	for tab := TabletID(1); tab <= tablets; tab++ {
		equalRows(t, scanRows(t, s, ScanRequest{Tablet: tab, Version: 3, Columns: []int{0, 1}}), []row{ints(int64(tab)+100, 2)})
	}
	if got := compiles.Load(); got != 2 {
		t.Fatalf("scans compiled again (%d compiles in all, want 2)", got)
	}
}
