package bind

import (
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Delete is a bound DELETE FROM t [PARTITION ...] WHERE cond, run as
// Doris's delete predicates (storage/delete.go).
type Delete struct {
	DB    string
	Table *catalog.Table
	// Scan reads every column of Table in schema order; Cond refers to its
	// column ids.
	Scan *logical.Scan
	// Partitions are those the statement names (nil: it names none).
	Partitions []*catalog.Partition
	// Cond is the condition, constants folded, BOOLEAN. A constant FALSE
	// or NULL deletes nothing.
	Cond expr.Expr
	// Conditions are the condition's conjuncts as Doris prints them in
	// SHOW DELETE: k1 EQ "1", k2 IS NULL, k3 IN (1, 2); others as written.
	Conditions []string
	// Check, when set, counts the rows the condition holds for (one row,
	// one BIGINT column). It is set when evaluating the condition may fail
	// on some value (arithmetic overflow, a function's error): the DELETE
	// runs it first and fails instead, since a delete condition failing
	// when read would fail every later scan of the older rows.
	Check logical.Node
}

// resolveWriteTarget resolves the table a DELETE or UPDATE writes; naming a
// view answers notTable (Doris's words for the statement).
func (b *Binder) resolveWriteTarget(tn sqlparser.TableName, notTable string) (string, *catalog.Table, error) {
	db, t, err := b.resolveTable(tn.DbQualifier.String(), tn.Name.String())
	if err != nil && sqlerr.As(err).Code == sqlerr.NoSuchTable.Code {
		vdb := tn.DbQualifier.String()
		if vdb == "" {
			vdb = b.ctx.DB
		}
		if _, verr := b.ctx.Cat.View(vdb, tn.Name.String()); verr == nil {
			return "", nil, sqlerr.Doris.New(notTable)
		}
	}
	return db, t, err
}

// BindDelete binds a single-table DELETE with Doris's rules: a WHERE
// clause is required; on AGGREGATE and UNIQUE tables the condition is a
// conjunction of simple predicates (column op literal, IN, IS [NOT] NULL)
// on key columns, since it is applied to rows before they merge; on
// DUPLICATE tables any deterministic condition is accepted. Subqueries are
// not supported.
func (b *Binder) BindDelete(v *parser.Vitess) (*Delete, error) {
	n, err := stmtAs[*sqlparser.Delete](v, "a DELETE")
	if err != nil {
		return nil, err
	}
	switch {
	case len(n.Targets) > 0 || len(n.TableExprs) != 1:
		return nil, sqlerr.NotSupportedYet.New("DELETE of several tables")
	case n.With != nil:
		return nil, sqlerr.NotSupportedYet.New("DELETE with a WITH clause")
	case len(n.OrderBy) > 0 || n.Limit != nil:
		return nil, sqlerr.NotSupportedYet.New("DELETE with ORDER BY or LIMIT")
	case len(n.Returning) > 0:
		return nil, sqlerr.NotSupportedYet.New("DELETE ... RETURNING")
	}
	ate, ok := n.TableExprs[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, sqlerr.NotSupportedYet.New("DELETE with USING or a join")
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok {
		return nil, sqlerr.NotSupportedYet.New("DELETE from a derived table")
	}
	db, t, err := b.resolveWriteTarget(tn, "delete command could be only used on olap table")
	if err != nil {
		return nil, err
	}
	d := &Delete{DB: db, Table: t}
	for _, p := range n.Partitions {
		part := partitionNamed(t, p.String())
		if part == nil {
			return nil, sqlerr.Doris.New("Partition does not exist. name: " + p.String())
		}
		d.Partitions = append(d.Partitions, part)
	}
	if n.Where == nil || n.Where.Expr == nil {
		return nil, sqlerr.Doris.New("Where clause is not set")
	}
	where := n.Where.Expr
	if hasSubquery(where) {
		return nil, sqlerr.NotSupportedYet.New("subqueries in the condition of a DELETE")
	}
	alias := ate.As.String()
	if alias == "" {
		alias = t.Name
	}
	sc := &logical.Scan{DB: db, Table: t, Alias: alias}
	for i, c := range t.Columns {
		col := b.newCol(alias, c.Name, c.Type, c.Nullable)
		b.setOrigin(col, db, t.Name)
		sc.Cols = append(sc.Cols, col)
		sc.Ords = append(sc.Ords, i)
	}
	d.Scan = sc
	var applies []*logical.Apply
	prev := b.applies
	b.applies = &applies
	defer func() { b.applies = prev }()
	x, err := b.bindExpr(where, &scope{cols: sc.Cols, clause: "where clause"})
	if err != nil {
		return nil, err
	}
	if len(applies) > 0 {
		return nil, sqlerr.NotSupportedYet.New("subqueries in the condition of a DELETE")
	}
	if t.Keys != storage.DupKeys {
		if err := checkKeyCondition(t, sc, x, where); err != nil {
			return nil, err
		}
	}
	if x.Type().Kind != types.Boolean {
		if x, err = expr.NewCall("is_true", x); err != nil {
			return nil, err
		}
	}
	if x, err = eval.Fold(x, &expr.Context{Now: b.ctx.Now}); err != nil {
		return nil, err
	}
	if hasParam(x) {
		return nil, sqlerr.NotSupportedYet.New("placeholders in a DELETE outside a prepared statement")
	}
	if c, ok := x.(*expr.Const); ok && !c.Val.Null && c.Val.I != 0 {
		// Doris does not delete every row through a condition (TRUNCATE does).
		return nil, sqlerr.Doris.New("delete all rows is forbidden temporary.")
	}
	d.Cond = x
	if !cannotFail(x) {
		n := b.newCol("", "count(*)", types.BigIntT, false)
		d.Check = &logical.Aggregate{Input: &logical.Filter{Input: sc, Conds: splitAnd(x)},
			Aggs: []logical.AggCall{{Fn: "count", Col: n}}}
	}
	for _, conj := range splitASTAnd(where) {
		if r, ok := unparen(conj).(*sqlparser.RangeCond); ok && simplePredicate(r) {
			// Doris prints BETWEEN as the two comparisons it becomes.
			d.Conditions = append(d.Conditions,
				b.dorisCondition(&sqlparser.ComparisonExpr{Operator: sqlparser.GreaterEqualStr, Left: r.Left, Right: r.From}),
				b.dorisCondition(&sqlparser.ComparisonExpr{Operator: sqlparser.LessEqualStr, Left: r.Left, Right: r.To}))
			continue
		}
		d.Conditions = append(d.Conditions, b.dorisCondition(conj))
	}
	return d, nil
}

func hasParam(e expr.Expr) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) bool {
		_, p := x.(*expr.Param)
		found = found || p
		return !found
	})
	return found
}

// errorFree are the functions whose evaluation never fails: comparisons
// (with MySQL's lenient conversions) and logic.
var errorFree = map[string]bool{
	"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true, "null_safe_eq": true,
	"in": true, "not_in": true, "between": true, "and": true, "or": true, "xor": true, "not": true,
	"is_null": true, "is_not_null": true, "is_true": true, "is_false": true, "like": true, "not_like": true,
}

// cannotFail: evaluating e never raises an error, whatever the values.
func cannotFail(e expr.Expr) bool {
	ok := true
	expr.Walk(e, func(x expr.Expr) bool {
		if c, isCall := x.(*expr.Call); isCall && !errorFree[c.Fn] {
			ok = false
		}
		return ok
	})
	return ok
}

func partitionNamed(t *catalog.Table, name string) *catalog.Partition {
	for _, p := range t.Partitions {
		if strings.EqualFold(p.Name, name) {
			return p
		}
	}
	return nil
}

func hasSubquery(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.Subquery, *sqlparser.ExistsExpr:
			found = true
		}
		return !found, nil
	}, e)
	return found
}

// checkKeyCondition applies Doris's rules for AGGREGATE and UNIQUE tables:
// only key columns (their rows are merged after the condition drops some,
// so a value column's condition would see a row that no longer exists),
// only simple predicates, no floating-point column.
func checkKeyCondition(t *catalog.Table, sc *logical.Scan, x expr.Expr, where sqlparser.Expr) error {
	ord := map[logical.ColumnID]int{}
	for i, c := range sc.Cols {
		ord[c.ID] = sc.Ords[i]
	}
	var err error
	expr.Walk(x, func(e expr.Expr) bool {
		ref, ok := e.(*expr.ColRef)
		if !ok || err != nil {
			return err == nil
		}
		c := t.Columns[ord[logical.ColumnID(ref.Index)]]
		switch {
		case !c.IsKey:
			err = sqlerr.Doris.New(fmt.Sprintf("Column[%s] is not key column or storage model is not duplicate or column type is float or double.", c.Name))
		case c.Type.IsFloat():
			err = sqlerr.Doris.New(fmt.Sprintf("Column[%s] type is float or double.", c.Name))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	for _, conj := range splitASTAnd(where) {
		if !simplePredicate(conj) {
			return sqlerr.Doris.New("Where clause only supports compound predicate, binary predicate, is_null predicate or in predicate. But we meet " + sqlparser.String(conj))
		}
	}
	return nil
}

// simplePredicate: Doris's delete predicates, column op literal (either
// side), column [NOT] IN (literals), column IS [NOT] NULL, column BETWEEN
// literals (Doris rewrites it to >= AND <=), a conjunction of them, or NOT
// of one.
func simplePredicate(e sqlparser.Expr) bool {
	switch n := e.(type) {
	case *sqlparser.RangeCond:
		_, col := unparen(n.Left).(*sqlparser.ColName)
		return col && n.Operator == sqlparser.BetweenStr && isLiteral(n.From) && isLiteral(n.To)
	case *sqlparser.ParenExpr:
		return simplePredicate(n.Expr)
	case *sqlparser.AndExpr:
		return simplePredicate(n.Left) && simplePredicate(n.Right)
	case *sqlparser.NotExpr:
		_, and := unparen(n.Expr).(*sqlparser.AndExpr)
		return !and && simplePredicate(n.Expr)
	case *sqlparser.IsExpr:
		_, col := unparen(n.Expr).(*sqlparser.ColName)
		return col && (n.Operator == sqlparser.IsNullStr || n.Operator == sqlparser.IsNotNullStr)
	case *sqlparser.ComparisonExpr:
		l, r := unparen(n.Left), unparen(n.Right)
		switch n.Operator {
		case sqlparser.InStr, sqlparser.NotInStr:
			tuple, ok := r.(sqlparser.ValTuple)
			if _, col := l.(*sqlparser.ColName); !col || !ok {
				return false
			}
			for _, v := range tuple {
				if !isLiteral(v) {
					return false
				}
			}
			return true
		case sqlparser.EqualStr, sqlparser.NotEqualStr, sqlparser.LessThanStr, sqlparser.LessEqualStr,
			sqlparser.GreaterThanStr, sqlparser.GreaterEqualStr:
			_, lc := l.(*sqlparser.ColName)
			_, rc := r.(*sqlparser.ColName)
			return lc && isLiteral(r) || rc && isLiteral(l)
		}
	}
	return false
}

func unparen(e sqlparser.Expr) sqlparser.Expr {
	for {
		p, ok := e.(*sqlparser.ParenExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}

func isLiteral(e sqlparser.Expr) bool {
	switch n := unparen(e).(type) {
	case *sqlparser.SQLVal, sqlparser.BoolVal:
		return true
	case *sqlparser.UnaryExpr:
		_, ok := unparen(n.Expr).(*sqlparser.SQLVal)
		return ok && (n.Operator == sqlparser.UMinusStr || n.Operator == sqlparser.UPlusStr)
	}
	return false
}

// dorisOps are the names Doris prints for comparison operators.
var dorisOps = map[string]string{
	sqlparser.EqualStr: "EQ", sqlparser.NotEqualStr: "NE", sqlparser.LessThanStr: "LT",
	sqlparser.LessEqualStr: "LE", sqlparser.GreaterThanStr: "GT", sqlparser.GreaterEqualStr: "GE",
}

// mirrored is the operator with its operands swapped.
var mirrored = map[string]string{
	sqlparser.EqualStr: sqlparser.EqualStr, sqlparser.NotEqualStr: sqlparser.NotEqualStr,
	sqlparser.LessThanStr: sqlparser.GreaterThanStr, sqlparser.LessEqualStr: sqlparser.GreaterEqualStr,
	sqlparser.GreaterThanStr: sqlparser.LessThanStr, sqlparser.GreaterEqualStr: sqlparser.LessEqualStr,
}

// dorisCondition prints one conjunct as Doris's DeleteInfo does
// (k1 EQ "3", k2 IS NOT NULL, k3 NOT IN (1, 'a')); a condition Doris would
// not accept is printed as SQL.
func (b *Binder) dorisCondition(e sqlparser.Expr) string {
	switch n := unparen(e).(type) {
	case *sqlparser.IsExpr:
		if c, ok := unparen(n.Expr).(*sqlparser.ColName); ok && (n.Operator == sqlparser.IsNullStr || n.Operator == sqlparser.IsNotNullStr) {
			return c.Name.String() + " " + strings.ToUpper(n.Operator)
		}
	case *sqlparser.ComparisonExpr:
		l, r := unparen(n.Left), unparen(n.Right)
		if n.Operator == sqlparser.InStr || n.Operator == sqlparser.NotInStr {
			c, ok := l.(*sqlparser.ColName)
			tuple, isTuple := r.(sqlparser.ValTuple)
			if !ok || !isTuple {
				break
			}
			items := make([]string, len(tuple))
			for i, v := range tuple {
				items[i] = sqlparser.String(v)
				if d, ok := b.argValue(v); ok {
					items[i] = expr.Lit(d).String()
				}
			}
			not := ""
			if n.Operator == sqlparser.NotInStr {
				not = "NOT "
			}
			return c.Name.String() + " " + not + "IN (" + strings.Join(items, ", ") + ")"
		}
		op := n.Operator
		if _, ok := l.(*sqlparser.ColName); !ok {
			l, r, op = r, l, mirrored[op]
		}
		c, ok := l.(*sqlparser.ColName)
		name, known := dorisOps[op]
		if ok && known && isLiteral(r) {
			return fmt.Sprintf("%s %s \"%s\"", c.Name.String(), name, b.literalText(r))
		}
	}
	return sqlparser.String(e)
}

// literalText is a literal's value as Doris's getStringValue gives it:
// strings without quotes, numbers as written, a prepared statement's
// argument as its value.
func (b *Binder) literalText(e sqlparser.Expr) string {
	if d, ok := b.argValue(e); ok {
		return d.String()
	}
	switch n := unparen(e).(type) {
	case *sqlparser.SQLVal:
		return string(n.Val)
	case *sqlparser.UnaryExpr:
		if v, ok := unparen(n.Expr).(*sqlparser.SQLVal); ok && n.Operator == sqlparser.UMinusStr {
			return "-" + b.literalText(v)
		}
		return b.literalText(n.Expr)
	case sqlparser.BoolVal:
		if n {
			return "1"
		}
		return "0"
	}
	return sqlparser.String(e)
}

// argValue is the value of a prepared statement's placeholder.
func (b *Binder) argValue(e sqlparser.Expr) (types.Datum, bool) {
	v, ok := unparen(e).(*sqlparser.SQLVal)
	if !ok || v.Type != sqlparser.ValArg {
		return types.Datum{}, false
	}
	i := b.paramIndex(string(v.Val))
	if i >= len(b.ctx.Params) {
		return types.Datum{}, false
	}
	return b.ctx.Params[i], true
}
