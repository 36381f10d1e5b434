package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// explain prints the plan that would run, one line per row.
func (s *Session) explain(ctx context.Context, st *parser.Explain, w wire.ResultWriter) error {
	v, ok := st.Stmt.(*parser.Vitess)
	if !ok {
		return sqlerr.NotSupportedYet.New("EXPLAIN of this statement")
	}
	_, plan, err := s.planQuery(v, nil)
	if err != nil {
		return err
	}
	var rows [][]types.Datum
	for _, line := range explainLines(plan) {
		rows = append(rows, []types.Datum{str(line)})
	}
	return writeTable(w, []wire.Column{strCol("Explain String")}, rows)
}

// explainLines is a first, plain rendering of the fragments; the Doris
// format of DORIS-PLANNING.md §3 lives in planner/explain.
func explainLines(p *fragment.Plan) []string {
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
	}
	return "?"
}
