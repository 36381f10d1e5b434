package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// plannerContext is what distributed planning reads of this session: its
// variables, overridden by the statement's SET_VAR hints, and its Spark hints.
func (s *Session) plannerContext(h *parser.Hints) *physical.Context {
	v := physical.DefaultVars()
	for _, name := range physical.VarNames() {
		v.Set(name, s.vars.get(name))
	}
	ctx := &physical.Context{Cat: s.srv.cat, Vars: v}
	if h != nil {
		for _, sv := range h.SetVars {
			ctx.Vars.Set(sv.Name, sv.Value)
		}
		ctx.Spark = h.Spark
	}
	return ctx
}

// explain prints the distributed plan, one line per row.
func (s *Session) explain(ctx context.Context, st *parser.Explain, w wire.ResultWriter) error {
	v, ok := st.Stmt.(*parser.Vitess)
	if !ok {
		return sqlerr.NotSupportedYet.New("EXPLAIN of this statement")
	}
	if _, ok := v.AST.(sqlparser.SelectStatement); !ok {
		return sqlerr.NotSupportedYet.New("EXPLAIN of this statement")
	}
	p, err := s.planQuery(v, nil)
	if err != nil {
		return err
	}
	mode := explain.Plain
	switch st.Mode {
	case parser.ExplainVerbose:
		mode = explain.Verbose
	case parser.ExplainDistributed:
		mode = explain.Distributed
	}
	var lines []string
	if p.dist != nil {
		lines = p.dist.Explain(mode)
	} else {
		// Correlated subqueries run as a single-root plan on the FE.
		lines = legacyExplainLines(p.plan)
	}
	var rows [][]types.Datum
	for _, line := range lines {
		rows = append(rows, []types.Datum{str(line)})
	}
	return writeTable(w, []wire.Column{strCol("Explain String")}, rows)
}

// legacyExplainLines renders a plan physical.Plan made (no distribution).
func legacyExplainLines(p *fragment.Plan) []string {
	var out []string
	for _, f := range p.Fragments {
		out = append(out, fmt.Sprintf("PLAN FRAGMENT %d", f.ID))
		var rec func(n *fragment.Node, depth int)
		rec = func(n *fragment.Node, depth int) {
			ind := strings.Repeat("  ", depth+1)
			line := fmt.Sprintf("%s%d:%s", ind, n.ID, kindName(n.Kind))
			if n.Scan != nil {
				line += fmt.Sprintf(" TABLE: %s partitions=%d/%d tablets=%d/%d", n.Scan.Table, n.Scan.Partitions, n.Scan.TotalParts, len(n.Scan.Tablets), n.Scan.TotalTablets)
			}
			out = append(out, line)
			for _, c := range n.Children {
				rec(c, depth+1)
			}
		}
		rec(f.Root, 0)
	}
	return out
}

func kindName(k fragment.NodeKind) string {
	switch k {
	case fragment.KindScan:
		return "OlapScanNode"
	case fragment.KindFilter:
		return "SELECT"
	case fragment.KindProject:
		return "PROJECT"
	case fragment.KindLimit:
		return "LIMIT"
	case fragment.KindValues:
		return "UNION"
	case fragment.KindExchange:
		return "EXCHANGE"
	case fragment.KindHashJoin:
		return "HASH JOIN"
	case fragment.KindNestedLoopJoin:
		return "NESTED LOOP JOIN"
	case fragment.KindAgg:
		return "AGGREGATE"
	case fragment.KindSort:
		return "SORT"
	case fragment.KindTopN:
		return "TOP-N"
	case fragment.KindApply:
		return "APPLY"
	}
	return "?"
}
