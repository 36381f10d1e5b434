package join

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// graceCase is one join run: rows are (k, v) on the left and (k, w) on
// the right; key "int" and "string" join on k, "two" on (k, v) = (k, w).
type graceCase struct {
	typ         fragment.JoinType
	key         string
	nullSafe    bool
	residual    bool
	left, right []optest.Row
	batch       int
}

type graceRun struct {
	rows  []string
	stats op.SpillStats
	depth int32
	err   error
}

func (c graceCase) keyType() types.T {
	if c.key == "string" {
		return types.StringT
	}
	return types.BigIntT
}

func (c graceCase) spec(limit int64) HashJoinSpec {
	kt := c.keyType()
	l := optest.Cols("lk", kt, "v", types.BigIntT)
	r := optest.Cols("rk", kt, "w", types.BigIntT)
	out := append(append([]types.Column{}, l...), r...)
	switch c.typ {
	case fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti:
		out = l
	case fragment.JoinRightSemi, fragment.JoinRightAnti:
		out = r
	}
	s := HashJoinSpec{Type: c.typ, LeftKeys: []expr.Expr{optest.ColRef(0, kt)}, RightKeys: []expr.Expr{optest.ColRef(0, kt)},
		NullSafe: []bool{c.nullSafe}, Output: out, Mem: op.NewMemTracker(limit)}
	if c.key == "two" {
		s.LeftKeys = append(s.LeftKeys, optest.ColRef(1, types.BigIntT))
		s.RightKeys = append(s.RightKeys, optest.ColRef(1, types.BigIntT))
		s.NullSafe = append(s.NullSafe, c.nullSafe)
	}
	if c.residual {
		p, err := expr.NewCall("lt", optest.ColRef(1, types.BigIntT), optest.ColRef(3, types.BigIntT))
		if err != nil {
			panic(err)
		}
		if c.key == "two" {
			// v = w holds for every pair: compare the keys again, which
			// is NULL (no match) for NULL keys under <=>.
			p, err = expr.NewCall("eq", optest.ColRef(0, kt), optest.ColRef(2, kt))
			if err != nil {
				panic(err)
			}
		}
		s.Other = []expr.Expr{p}
	}
	return s
}

// run joins c under a memory limit (0: none) and spill config (nil: off).
func (c graceCase) run(t *testing.T, limit int64, spill *op.SpillConfig) graceRun {
	t.Helper()
	mem, check := optest.Checked(t)
	defer check()
	env := optest.Env(mem)
	env.Spill = spill
	kt := c.keyType()
	spec := c.spec(limit)
	j, err := NewHashJoin(env, optest.NewSource(mem, optest.Cols("lk", kt, "v", types.BigIntT), c.left, c.batch),
		optest.NewSource(mem, optest.Cols("rk", kt, "w", types.BigIntT), c.right, c.batch), spec)
	if err != nil {
		t.Fatal(err)
	}
	var res graceRun
	res.err = op.Drain(context.Background(), j, func(rec arrow.Record) error {
		if rec.NumRows() == 0 || rec.NumRows() > op.MaxBatchRows {
			return fmt.Errorf("batch of %d rows", rec.NumRows())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for col := range parts {
				parts[col] = types.DatumAt(rec.Column(col), i, optest.TypeOf(rec.Schema().Field(col).Type)).String()
			}
			res.rows = append(res.rows, strings.Join(parts, "|"))
		}
		return nil
	})
	res.stats = j.Spilled()
	if j.stats != nil {
		res.depth = j.stats.depth.Load()
	}
	j.Close()
	if u := spec.Mem.Used(); u != 0 {
		t.Fatalf("tracker holds %d bytes after Close", u)
	}
	res.rows = optest.Sorted(res.rows)
	return res
}

// stringKeys turns the integer keys of rows into strings.
func stringKeys(rs []optest.Row) []optest.Row {
	out := make([]optest.Row, len(rs))
	for i, r := range rs {
		out[i] = append(optest.Row{}, r...)
		if r[0] != nil {
			out[i][0] = fmt.Sprintf("key-%d", r[0].(int64))
		}
	}
	return out
}

func TestGraceJoinMatchesInMemory(t *testing.T) {
	r := rand.New(rand.NewSource(19))
	dir := t.TempDir()
	for _, key := range []string{"int", "string", "two"} {
		for _, typ := range allJoinTypes {
			for _, ns := range []bool{false, true} {
				for _, res := range []bool{false, true} {
					if typ == fragment.JoinNullAwareLeftAnti && (ns || res || key == "two") {
						continue
					}
					// Duplicates (keys < rows) and NULLs on both sides; a
					// third of the runs have no NULL build key (NAAJ).
					keys := []int{150, 700, 3000}[r.Intn(3)]
					pNull := []float64{0, 0.05, 0.2}[r.Intn(3)]
					left := optest.RandRows(r, 1000+r.Intn(1500), keys, 0.05)
					right := optest.RandRows(r, 3000+r.Intn(1000), keys, pNull)
					if key == "two" {
						for _, side := range [][]optest.Row{left, right} {
							for _, rw := range side {
								if rw[1] != nil {
									rw[1] = rw[1].(int64) % 3
								}
							}
						}
					}
					if key == "string" {
						left, right = stringKeys(left), stringKeys(right)
					}
					c := graceCase{typ: typ, key: key, nullSafe: ns, residual: res, left: left, right: right, batch: 100 + r.Intn(900)}
					name := fmt.Sprintf("%s/%s/nullsafe=%v/residual=%v", key, typ, ns, res)
					t.Run(name, func(t *testing.T) {
						mem := c.run(t, 0, nil)
						if mem.err != nil {
							t.Fatal(mem.err)
						}
						if mem.stats.Partitions != 0 {
							t.Fatalf("in-memory run spilled: %+v", mem.stats)
						}
						spilled := c.run(t, 64<<10, &op.SpillConfig{Enabled: true, Dir: dir, Partitions: 8})
						if spilled.err != nil {
							t.Fatal(spilled.err)
						}
						if spilled.stats.Partitions == 0 || spilled.stats.Bytes == 0 {
							t.Fatalf("did not spill: %+v", spilled.stats)
						}
						t.Logf("keys=%d pNull=%v: %d rows, spilled %+v, depth %d", keys, pNull, len(mem.rows), spilled.stats, spilled.depth)
						optest.EqualRows(t, spilled.rows, mem.rows)
						if key != "two" {
							optest.EqualRows(t, mem.rows, naiveJoin(typ, left, right, ns, res))
						}
					})
				}
			}
		}
	}
	assertEmptyDir(t, dir)
}

// assertEmptyDir fails unless dir holds nothing (every spill directory
// removed).
func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 0 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Fatalf("spill directory %s not cleaned: %v", dir, names)
	}
}

// countFiles counts regular files under dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// A partition that still does not fit is split again one level down.
func TestGraceJoinRecursion(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	dir := t.TempDir()
	// Skew: a third of the build rows on 30 hot keys.
	right := optest.RandRows(r, 6000, 100000, 0.02)
	for i := 0; i < 2000; i++ {
		right[i][0] = int64(r.Intn(30))
	}
	left := optest.RandRows(r, 4000, 100000, 0.02)
	for i := 0; i < 1500; i++ {
		left[i][0] = int64(r.Intn(60))
	}
	for _, typ := range []fragment.JoinType{fragment.JoinInner, fragment.JoinFullOuter, fragment.JoinRightAnti, fragment.JoinLeftAnti} {
		c := graceCase{typ: typ, key: "int", left: left, right: right, batch: 512}
		got := c.run(t, 48<<10, &op.SpillConfig{Enabled: true, Dir: dir, Partitions: 2})
		if got.err != nil {
			t.Fatal(got.err)
		}
		if got.depth < 2 {
			t.Fatalf("%s: deepest spill level %d, want ≥ 2 (stats %+v)", typ, got.depth, got.stats)
		}
		optest.EqualRows(t, got.rows, naiveJoin(typ, left, right, false, false))
	}
	assertEmptyDir(t, dir)
}

// One key's rows cannot be split: the error names the join and says so.
func TestGraceJoinSingleKeyTooBig(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	dir := t.TempDir()
	right := optest.RandRows(r, 5000, 1, 0)
	left := optest.RandRows(r, 100, 5, 0)
	c := graceCase{typ: fragment.JoinInner, key: "int", left: left, right: right, batch: 500}
	got := c.run(t, 32<<10, &op.SpillConfig{Enabled: true, Dir: dir, Partitions: 4})
	if !errors.Is(got.err, sqlerr.MemLimitExceeded.Match()) || !strings.Contains(got.err.Error(), "HashJoin") ||
		!strings.Contains(got.err.Error(), "single join key") {
		t.Fatalf("got %v, want a memory error naming the join and the single key", got.err)
	}
	assertEmptyDir(t, dir)
}

func TestGraceJoinDisabled(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	left, right := optest.RandRows(r, 100, 50, 0), optest.RandRows(r, 5000, 2000, 0)
	for _, spill := range []*op.SpillConfig{nil, {Enabled: false, Dir: t.TempDir()}} {
		c := graceCase{typ: fragment.JoinInner, key: "int", left: left, right: right, batch: 500}
		got := c.run(t, 32<<10, spill)
		if !errors.Is(got.err, sqlerr.MemLimitExceeded.Match()) || !strings.Contains(got.err.Error(), "HashJoin") {
			t.Fatalf("spill %+v: got %v, want the memory limit error naming the join", spill, got.err)
		}
		if got.stats.Partitions != 0 {
			t.Fatalf("spilled while disabled: %+v", got.stats)
		}
	}
}

// Threshold spills before exec_mem_limit is reached.
func TestGraceJoinThreshold(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	dir := t.TempDir()
	left, right := optest.RandRows(r, 3000, 500, 0.1), optest.RandRows(r, 3000, 500, 0.1)
	c := graceCase{typ: fragment.JoinLeftOuter, key: "int", left: left, right: right, batch: 700}
	got := c.run(t, 0, &op.SpillConfig{Enabled: true, Dir: dir, Threshold: 16 << 10})
	if got.err != nil || got.stats.Partitions == 0 {
		t.Fatalf("err %v, stats %+v: want a spill under the threshold", got.err, got.stats)
	}
	optest.EqualRows(t, got.rows, naiveJoin(c.typ, left, right, false, false))
	assertEmptyDir(t, dir)
}

// failAfter fails with ErrBoom once it has returned n batches.
type failAfter struct {
	op.Operator
	n int
}

func (f *failAfter) Next(ctx context.Context) (arrow.Record, error) {
	if f.n == 0 {
		return nil, optest.ErrBoom
	}
	f.n--
	return f.Operator.Next(ctx)
}

// Spill files are removed when the join closes, after success, an input
// error or cancellation.
func TestGraceJoinCleanup(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	left, right := optest.RandRows(r, 6000, 3000, 0.05), optest.RandRows(r, 4000, 3000, 0.05)
	lc := optest.Cols("lk", types.BigIntT, "v", types.BigIntT)
	rc := optest.Cols("rk", types.BigIntT, "w", types.BigIntT)
	for _, mode := range []string{"success", "probe error", "build error", "cancel"} {
		t.Run(mode, func(t *testing.T) {
			mem, check := optest.Checked(t)
			defer check()
			dir := t.TempDir()
			env := optest.Env(mem)
			env.Spill = &op.SpillConfig{Enabled: true, Dir: dir, Partitions: 8}
			spec := graceCase{typ: fragment.JoinFullOuter, key: "int"}.spec(64 << 10)
			var lo, ro op.Operator = optest.NewSource(mem, lc, left, 500), optest.NewSource(mem, rc, right, 500)
			switch mode {
			case "probe error":
				lo = &failAfter{Operator: lo, n: 5}
			case "build error":
				ro = &failAfter{Operator: ro, n: 6}
			}
			j, err := NewHashJoin(env, lo, ro, spec)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var batches int
			for {
				rec, err := j.Next(ctx)
				if err == io.EOF {
					break
				}
				if err != nil {
					if mode == "success" || mode == "cancel" && !errors.Is(err, context.Canceled) ||
						strings.HasSuffix(mode, "error") && !errors.Is(err, optest.ErrBoom) {
						t.Fatalf("%s: %v", mode, err)
					}
					break
				}
				rec.Release()
				batches++
				if batches == 1 {
					if n := countFiles(t, dir); n == 0 {
						t.Fatal("no spill files while the join runs")
					}
					if mode == "cancel" {
						cancel()
					}
				}
			}
			if strings.HasSuffix(mode, "error") && batches != 0 {
				t.Fatalf("%s: %d batches before the error", mode, batches)
			}
			if mode != "build error" && j.Spilled().Bytes == 0 {
				t.Fatal("did not spill")
			}
			j.Close()
			assertEmptyDir(t, dir)
			if u := spec.Mem.Used(); u != 0 {
				t.Fatalf("tracker holds %d bytes", u)
			}
		})
	}
}

// A spilled build publishes either the complete filter or none: every
// build key passes a published filter.
func TestGraceJoinRuntimeFilter(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	left, right := optest.RandRows(r, 2000, 5000, 0), optest.RandRows(r, 3000, 5000, 0.05)
	for _, spill := range []*op.SpillConfig{
		{Enabled: true, Partitions: 4},                      // spills while reading the build side
		{Enabled: true, Partitions: 4, Threshold: 80 << 10}, // spills once the table is built
	} {
		mem, check := optest.Checked(t)
		env := optest.Env(mem)
		spill.Dir = t.TempDir()
		env.Spill = spill
		limit := int64(64 << 10)
		if spill.Threshold > 0 {
			limit = 0
		}
		spec := graceCase{typ: fragment.JoinInner, key: "int"}.spec(limit)
		lc := optest.Cols("lk", types.BigIntT, "v", types.BigIntT)
		j, err := NewHashJoin(env, optest.NewSource(mem, lc, left, 500), optest.NewSource(mem, lc, right, 500), spec)
		if err != nil {
			t.Fatal(err)
		}
		j.rfs, j.rfBuild = NewRuntimeFilters(), []fragment.RFBuild{{ID: 1, Key: 0}}
		got := optest.Sorted(optest.Drain(t, j))
		if j.Spilled().Partitions == 0 {
			t.Fatalf("%+v: did not spill", spill)
		}
		j.Close()
		check()
		optest.EqualRows(t, got, naiveJoin(fragment.JoinInner, left, right, false, false))
		f := j.rfs.get(1)
		if spill.Threshold > 0 && f == nil {
			t.Fatal("a table complete before spilling should have published its filter")
		}
		if f == nil {
			continue
		}
		src := optest.NewSource(mem, lc, right, len(right))
		rec, _ := src.Next(context.Background())
		sel := make([]int32, 0, rec.NumRows())
		for i := 0; i < int(rec.NumRows()); i++ {
			if rec.Column(0).IsValid(i) {
				sel = append(sel, int32(i))
			}
		}
		if kept := f.keep(rec.Column(0), append([]int32(nil), sel...)); len(kept) != len(sel) {
			t.Fatalf("filter drops %d of %d build keys", len(sel)-len(kept), len(sel))
		}
		rec.Release()
	}
}

// Few build keys over many partitions: most partitions have probe rows
// and no build rows, which inner and semi joins drop and outer and anti
// joins (NAAJ included: the build side as a whole is not empty) output.
func TestGraceJoinEmptyBuildPartitions(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	dir := t.TempDir()
	right := make([]optest.Row, 1500)
	for i := range right {
		right[i] = optest.Row{int64(i % 5), int64(r.Intn(100))}
	}
	left := optest.RandRows(r, 1000, 50, 0.05)
	for _, typ := range allJoinTypes {
		c := graceCase{typ: typ, key: "int", left: left, right: right, batch: 300}
		got := c.run(t, 20<<10, &op.SpillConfig{Enabled: true, Dir: dir, Partitions: 32})
		if got.err != nil {
			t.Fatalf("%s: %v", typ, got.err)
		}
		if got.stats.Partitions == 0 {
			t.Fatalf("%s: did not spill", typ)
		}
		optest.EqualRows(t, got.rows, naiveJoin(typ, left, right, false, false))
	}
	assertEmptyDir(t, dir)
}

// The threshold is soft for one key: its rows cannot be split, so they
// stay in memory while exec_mem_limit allows.
func TestGraceJoinThresholdOneKey(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	dir := t.TempDir()
	left, right := optest.RandRows(r, 200, 3, 0), optest.RandRows(r, 3000, 1, 0)
	c := graceCase{typ: fragment.JoinInner, key: "int", left: left, right: right, batch: 500}
	got := c.run(t, 0, &op.SpillConfig{Enabled: true, Dir: dir, Partitions: 4, Threshold: 8 << 10})
	if got.err != nil {
		t.Fatal(got.err)
	}
	if got.stats.Partitions == 0 {
		t.Fatal("did not spill")
	}
	optest.EqualRows(t, got.rows, naiveJoin(c.typ, left, right, false, false))
	assertEmptyDir(t, dir)
}
