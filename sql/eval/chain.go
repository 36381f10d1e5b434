package eval

import "github.com/dorisgo/dorisgo/sql/expr"

// evalChain evaluates a chain of ANDs (or ORs) as one n-ary AND (OR) over
// its leaves. Three-valued AND and OR are associative, so the result is
// the binary tree's; but a WHERE of 10,000 ORs is a tree 10,000 deep, which
// the recursive walk would descend with an intermediate column per level.
func (ev *evaluator) evalChain(c *expr.Call) (vec, error) {
	var leaves []expr.Expr
	stack := []expr.Expr{c}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x, ok := e.(*expr.Call); ok && x.Fn == c.Fn {
			for i := len(x.Args) - 1; i >= 0; i-- {
				stack = append(stack, x.Args[i])
			}
			continue
		}
		leaves = append(leaves, e)
	}
	args := make([]vec, 0, len(leaves))
	defer func() {
		for _, a := range args {
			a.release()
		}
	}()
	for _, l := range leaves {
		v, err := ev.eval(l)
		if err != nil {
			return vec{}, err
		}
		args = append(args, v)
	}
	return ev.andOr(c.Fn == "and", args), nil
}
