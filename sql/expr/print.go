package expr

import "strings"

// infix operators: symbol and binding strength (higher binds tighter), as
// MySQL's grammar ranks them. Children are parenthesised only when needed.
var infix = map[string]struct {
	sym  string
	prec int
}{
	"or": {"OR", 1}, "xor": {"XOR", 2}, "and": {"AND", 3},
	"eq": {"=", 5}, "ne": {"!=", 5}, "lt": {"<", 5}, "le": {"<=", 5}, "gt": {">", 5}, "ge": {">=", 5},
	"null_safe_eq": {"<=>", 5}, "like": {"LIKE", 5}, "not_like": {"NOT LIKE", 5}, "regexp": {"REGEXP", 5},
	"bitor": {"|", 6}, "bitand": {"&", 7}, "shift_left": {"<<", 8}, "shift_right": {">>", 8},
	"add": {"+", 9}, "subtract": {"-", 9},
	"multiply": {"*", 10}, "divide": {"/", 10}, "int_divide": {"DIV", 10}, "mod": {"%", 10},
	"bitxor": {"^", 11},
}

const (
	precNot   = 4
	precPred  = 5 // IS NULL, IN, BETWEEN
	precUnary = 12
	precAtom  = 100
)

// prec is the binding strength of e's top operator when printed.
func prec(e Expr) int {
	c, ok := e.(*Call)
	if !ok {
		return precAtom
	}
	if op, ok := infix[c.Fn]; ok && len(c.Args) == 2 {
		return op.prec
	}
	switch c.Fn {
	case "not":
		return precNot
	case "is_null", "is_not_null", "is_true", "is_false", "in", "not_in", "between":
		return precPred
	case "negate", "bitnot":
		return precUnary
	}
	return precAtom
}

func wrap(e Expr, min int) string {
	if prec(e) < min {
		return "(" + e.String() + ")"
	}
	return e.String()
}

func callString(c *Call) string {
	if op, ok := infix[c.Fn]; ok && len(c.Args) >= 2 {
		// Left-associative: the right child needs parentheses at equal strength.
		s := wrap(c.Args[0], op.prec) + " " + op.sym + " " + wrap(c.Args[1], op.prec+1)
		if len(c.Args) == 3 { // LIKE ... ESCAPE
			s += " ESCAPE " + c.Args[2].String()
		}
		return s
	}
	a := c.Args
	switch c.Fn {
	case "negate":
		return "-" + wrap(a[0], precUnary)
	case "bitnot":
		return "~" + wrap(a[0], precUnary)
	case "not":
		return "NOT " + wrap(a[0], precNot)
	case "is_null":
		return wrap(a[0], precPred+1) + " IS NULL"
	case "is_not_null":
		return wrap(a[0], precPred+1) + " IS NOT NULL"
	case "is_true":
		return wrap(a[0], precPred+1) + " IS TRUE"
	case "is_false":
		return wrap(a[0], precPred+1) + " IS FALSE"
	case "in", "not_in":
		kw := " IN ("
		if c.Fn == "not_in" {
			kw = " NOT IN ("
		}
		return wrap(a[0], precPred+1) + kw + joinExprs(a[1:]) + ")"
	case "between":
		return wrap(a[0], precPred+1) + " BETWEEN " + wrap(a[1], precPred+1) + " AND " + wrap(a[2], precPred+1)
	case "date_add", "date_sub":
		// date_sub(d, 31) has two arguments: only the interval form has a unit.
		if len(a) != 3 {
			break
		}
		if k, ok := a[2].(*Const); ok {
			return c.Fn + "(" + a[0].String() + ", INTERVAL " + a[1].String() + " " + k.Val.S + ")"
		}
	}
	return c.Fn + "(" + joinExprs(a) + ")"
}

func joinExprs(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}
