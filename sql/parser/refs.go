package parser

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// What a statement reads and writes, read off the vitess tree for the
// privilege checks made before binding, and the placeholders and
// variables it holds.

// Reads lists the tables a query, an UPDATE or an INSERT ... SELECT names
// in the order written (a DELETE reads none: Doris checks only LOAD on its
// target). Unqualified names that a WITH clause anywhere in the statement
// defines are left out (they may be CTEs), and so is DUAL.
func (v *Vitess) Reads() []TableName {
	switch n := v.AST.(type) {
	case *sqlparser.Insert:
		if n.Rows == nil {
			return nil
		}
		return tableRefs(n.Rows)
	case *sqlparser.Update:
		return tableRefs(n)
	}
	if v.Kind == KindSelect {
		return tableRefs(v.AST)
	}
	return nil
}

func tableRefs(node sqlparser.SQLNode) []TableName {
	ctes := map[string]bool{}
	var refs []TableName
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.CommonTableExpr:
			if x != nil && x.AliasedTableExpr != nil {
				ctes[strings.ToLower(x.As.String())] = true
			}
		case *sqlparser.AliasedTableExpr:
			if x == nil {
				break
			}
			if tn, ok := x.Expr.(sqlparser.TableName); ok {
				refs = append(refs, tableName(tn))
			}
		}
		return true, nil
	}, node)
	out := refs[:0]
	for _, t := range refs {
		if t.DB == "" && (ctes[strings.ToLower(t.Name)] || strings.EqualFold(t.Name, "dual")) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Writes lists the tables an INSERT, UPDATE or DELETE writes: INSERT's
// table, UPDATE's target (UpdateTarget), every base table of DELETE's
// table list.
func (v *Vitess) Writes() []TableName {
	switch n := v.AST.(type) {
	case *sqlparser.Insert:
		return []TableName{tableName(n.Table)}
	case *sqlparser.Update:
		if te := UpdateTarget(n.TableExprs); te != nil {
			return []TableName{tableName(te.Expr.(sqlparser.TableName))}
		}
	case *sqlparser.Delete:
		var out []TableName
		for _, te := range n.TableExprs {
			if ate, ok := te.(*sqlparser.AliasedTableExpr); ok {
				if tn, ok := ate.Expr.(sqlparser.TableName); ok {
					out = append(out, tableName(tn))
				}
			}
		}
		return out
	}
	return nil
}

// UpdateTarget is the first base table of an UPDATE's table list: the
// target (the table after UPDATE, or the left end of MySQL's join form).
func UpdateTarget(exprs sqlparser.TableExprs) *sqlparser.AliasedTableExpr {
	if len(exprs) == 0 {
		return nil
	}
	switch te := exprs[0].(type) {
	case *sqlparser.AliasedTableExpr:
		if _, ok := te.Expr.(sqlparser.TableName); ok {
			return te
		}
	case *sqlparser.JoinTableExpr:
		return UpdateTarget(sqlparser.TableExprs{te.LeftExpr})
	case *sqlparser.ParenTableExpr:
		return UpdateTarget(te.Exprs)
	}
	return nil
}

// DeleteFrom is the table of a DELETE whose table list is one base table.
func (v *Vitess) DeleteFrom() (TableName, bool) {
	n, ok := v.AST.(*sqlparser.Delete)
	if !ok || len(n.TableExprs) != 1 {
		return TableName{}, false
	}
	if ate, ok := n.TableExprs[0].(*sqlparser.AliasedTableExpr); ok {
		if tn, ok := ate.Expr.(sqlparser.TableName); ok {
			return tableName(tn), true
		}
	}
	return TableName{}, false
}

// InsertPartitions are the partitions an INSERT names (PARTITION (p, ...)).
func (v *Vitess) InsertPartitions() []string {
	n, ok := v.AST.(*sqlparser.Insert)
	if !ok {
		return nil
	}
	var out []string
	for _, p := range n.Partitions {
		out = append(out, p.String())
	}
	return out
}

// HasPlaceholder reports a placeholder (?) anywhere in the statement.
func (v *Vitess) HasPlaceholder() bool {
	found := false
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if x, ok := node.(*sqlparser.SQLVal); ok && x.Type == sqlparser.ValArg {
			found = true
		}
		return !found, nil
	}, v.AST)
	return found
}

// HasUserVariable reports a user variable (@x) or a placeholder in the
// statement (what MySQL refuses in a view, 1351); system variables (@@x)
// are not ones.
func (v *Vitess) HasUserVariable() bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.SQLVal:
			found = found || x.Type == sqlparser.ValArg
		case *sqlparser.ColName:
			name := x.Name.String()
			found = found || strings.HasPrefix(name, "@") && !strings.HasPrefix(name, "@@")
		}
		return !found, nil
	}, v.AST)
	return found
}

func countPlaceholders(ast sqlparser.SQLNode) int {
	n := 0
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if val, ok := node.(*sqlparser.SQLVal); ok && val.Type == sqlparser.ValArg {
			n++
		}
		return true, nil
	}, ast)
	return n
}

// Placeholders is how many placeholders (?) a statement vitess parsed
// holds: the parameters of a prepared statement. Others have none.
func Placeholders(st Statement) int {
	switch x := st.(type) {
	case *Vitess:
		return countPlaceholders(x.AST)
	case interface{ parsed() *Parsed }:
		return x.parsed().params
	}
	return 0
}

// HintsOf is the hints of a statement vitess parsed (of the statement an
// EXPLAIN wraps); nil for the others.
func HintsOf(st Statement) *Hints {
	switch x := st.(type) {
	case *Vitess:
		return x.Hints
	case *Explain:
		return HintsOf(x.Stmt)
	case interface{ parsed() *Parsed }:
		return x.parsed().Hints
	}
	return nil
}
