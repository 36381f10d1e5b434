package aggregate

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func TestWindowRandom(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	in := optest.Cols("p", types.BigIntT, "o", types.BigIntT, "v", types.BigIntT)
	p, o, v := optest.ColRef(0, types.BigIntT), optest.ColRef(1, types.BigIntT), optest.ColRef(2, types.BigIntT)
	rows2 := func(lo, hi int64) *WindowFrame {
		b := func(x int64) FrameBound {
			switch {
			case x == -1000:
				return FrameBound{Kind: UnboundedPreceding}
			case x == 1000:
				return FrameBound{Kind: UnboundedFollowing}
			case x < 0:
				return FrameBound{Kind: Preceding, Offset: -x}
			case x > 0:
				return FrameBound{Kind: Following, Offset: x}
			}
			return FrameBound{Kind: CurrentRow}
		}
		return &WindowFrame{Unit: FrameRows, Start: b(lo), End: b(hi)}
	}
	calls := []WindowCall{
		{Fn: "row_number"}, {Fn: "rank"}, {Fn: "dense_rank"},
		{Fn: "lag", Args: []expr.Expr{v}, ArgType: types.BigIntT},
		{Fn: "lead", Args: []expr.Expr{v, expr.Lit(types.IntDatum(2)), expr.Lit(types.IntDatum(-1))}, ArgType: types.BigIntT},
		{Fn: "first_value", Args: []expr.Expr{v}, ArgType: types.BigIntT},
		{Fn: "last_value", Args: []expr.Expr{v}, ArgType: types.BigIntT},
		{Fn: "sum", Args: []expr.Expr{v}, ArgType: types.BigIntT},
		{Fn: "avg", Args: []expr.Expr{v}, ArgType: types.BigIntT, Frame: rows2(-1, 1)},
		{Fn: "count", Frame: rows2(-1000, 1000)},
		{Fn: "min", Args: []expr.Expr{v}, ArgType: types.BigIntT, Frame: rows2(-2, 0)},
		{Fn: "max", Args: []expr.Expr{v}, ArgType: types.BigIntT, Frame: rows2(0, 1000)},
		{Fn: "min", Args: []expr.Expr{v}, ArgType: types.BigIntT, Frame: rows2(-1000, 0)},
		{Fn: "count", Args: []expr.Expr{v}, Frame: rows2(1, 3)},
	}
	out := append([]types.Column{}, in...)
	for i, c := range calls {
		t := types.BigIntT
		if c.Fn == "avg" {
			t = types.DoubleT
		}
		out = append(out, types.Column{Name: fmt.Sprint("w", i), Type: t, Nullable: true})
	}
	for _, n := range []int{0, 1, 50, 9000} {
		rows := make([]optest.Row, n)
		for i := range rows {
			rows[i] = optest.Row{optest.RandVal(r, 1+n/500, 0.05), optest.RandVal(r, 10, 0.1), optest.RandVal(r, 100, 0.2)}
		}
		keys := []op.SortKey{{Expr: p, NullsFirst: true}, {Expr: o, NullsFirst: true}}
		rows = optest.NaiveSort(rows, []int{0, 1}, keys)
		mem, check := optest.Checked(t)
		w, err := NewWindow(optest.Env(mem), optest.NewSource(mem, in, rows, 777), WindowSpec{
			PartitionBy: []expr.Expr{p}, OrderBy: []op.SortKey{keys[1]}, Calls: calls, Output: out, Mem: op.NewMemTracker(0)})
		if err != nil {
			t.Fatal(err)
		}
		got := optest.Drain(t, w)
		w.Close()
		check()
		optest.EqualRows(t, got, naiveWindow(rows))
	}
}

func naiveWindow(rows []optest.Row) []string {
	var out []string
	for s := 0; s < len(rows); {
		e := s
		for e < len(rows) && optest.FmtRow(rows[e][:1]) == optest.FmtRow(rows[s][:1]) {
			e++
		}
		part := rows[s:e]
		n := len(part)
		val := func(j int) any {
			if j < 0 || j >= n {
				return nil
			}
			return part[j][2]
		}
		peerEnd := func(i int) int {
			for i+1 < n && optest.FmtRow(part[i+1][1:2]) == optest.FmtRow(part[i][1:2]) {
				i++
			}
			return i
		}
		peerStart := func(i int) int {
			for i > 0 && optest.FmtRow(part[i-1][1:2]) == optest.FmtRow(part[i][1:2]) {
				i--
			}
			return i
		}
		agg := func(lo, hi int, f string) any {
			lo, hi = max(lo, 0), min(hi, n-1)
			var res any
			cnt, sum := int64(0), int64(0)
			for j := lo; j <= hi; j++ {
				x := val(j)
				if x == nil {
					continue
				}
				xv := x.(int64)
				cnt++
				sum += xv
				if res == nil || f == "min" && xv < res.(int64) || f == "max" && xv > res.(int64) {
					res = xv
				}
			}
			switch f {
			case "count":
				return cnt
			case "sum":
				if cnt == 0 {
					return nil
				}
				return sum
			case "avg":
				if cnt == 0 {
					return nil
				}
				return types.FormatFloat(float64(sum)/float64(cnt), 64)
			}
			return res
		}
		dense := int64(0)
		for i := range part {
			if peerStart(i) == i {
				dense++
			}
			lead := val(i + 2)
			if i+2 >= n {
				lead = int64(-1)
			}
			r := append(append(optest.Row{}, part[i]...), int64(i+1), int64(peerStart(i)+1), dense,
				val(i-1), lead, val(0), val(peerEnd(i)), agg(0, peerEnd(i), "sum"),
				agg(i-1, i+1, "avg"), int64(n), agg(i-2, i, "min"), agg(i, n-1, "max"), agg(0, i, "min"), agg(i+1, i+3, "count"))
			out = append(out, strings.ReplaceAll(optest.FmtRow(r), "<nil>", "NULL"))
		}
		s = e
	}
	return out
}
