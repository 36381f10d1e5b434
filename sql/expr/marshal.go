package expr

import (
	"encoding/json"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// node is the JSON form of every Expr: K names the node type and only the
// fields of that type are set. Decimals travel as their unscaled integer
// text (types.Datum.Prepare/Restore), so round trips are exact.
type node struct {
	K       string       `json:"k"`
	Index   int          `json:"i,omitempty"`
	Table   string       `json:"tb,omitempty"`
	Name    string       `json:"n,omitempty"`
	T       *types.T     `json:"t,omitempty"`
	Null    bool         `json:"nl,omitempty"`
	Val     *types.Datum `json:"v,omitempty"`
	Fn      string       `json:"fn,omitempty"`
	Args    []*node      `json:"a,omitempty"`
	Operand *node        `json:"op,omitempty"`
	Else    *node        `json:"el,omitempty"`
}

// Marshal encodes e as JSON.
func Marshal(e Expr) ([]byte, error) {
	n, err := toNode(e)
	if err != nil {
		return nil, err
	}
	return json.Marshal(n)
}

// Unmarshal decodes an expression written by Marshal.
func Unmarshal(b []byte) (Expr, error) {
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		return nil, sqlerr.Assertf("expr: decode: %v", err)
	}
	return fromNode(&n)
}

func typ(t types.T) *types.T { return &t }

func toNode(e Expr) (*node, error) {
	if e == nil {
		return nil, nil
	}
	switch x := e.(type) {
	case *ColRef:
		return &node{K: "col", Index: x.Index, Table: x.Table, Name: x.Name, T: typ(x.T), Null: x.Null}, nil
	case *Const:
		d := x.Val
		d.Prepare()
		return &node{K: "const", Val: &d}, nil
	case *Param:
		return &node{K: "param", Index: x.Index, T: typ(x.T)}, nil
	case *Call:
		n := &node{K: "call", Fn: x.Fn, T: typ(x.T), Null: x.Null}
		for _, a := range x.Args {
			an, err := toNode(a)
			if err != nil {
				return nil, err
			}
			n.Args = append(n.Args, an)
		}
		return n, nil
	case *Cast:
		a, err := toNode(x.Arg)
		if err != nil {
			return nil, err
		}
		return &node{K: "cast", T: typ(x.To), Args: []*node{a}}, nil
	case *Case:
		n := &node{K: "case", T: typ(x.T)}
		var err error
		if n.Operand, err = toNode(x.Operand); err != nil {
			return nil, err
		}
		if n.Else, err = toNode(x.Else); err != nil {
			return nil, err
		}
		for _, w := range x.Whens {
			c, err := toNode(w.Cond)
			if err != nil {
				return nil, err
			}
			t, err := toNode(w.Then)
			if err != nil {
				return nil, err
			}
			n.Args = append(n.Args, c, t)
		}
		return n, nil
	}
	return nil, sqlerr.Assertf("expr: cannot marshal %T", e)
}

func fromNode(n *node) (Expr, error) {
	if n == nil {
		return nil, nil
	}
	var t types.T
	if n.T != nil {
		t = *n.T
	}
	args := make([]Expr, len(n.Args))
	for i, a := range n.Args {
		e, err := fromNode(a)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	switch n.K {
	case "col":
		return &ColRef{Index: n.Index, Table: n.Table, Name: n.Name, T: t, Null: n.Null}, nil
	case "const":
		if n.Val == nil {
			return nil, sqlerr.Assertf("expr: const without value")
		}
		d := *n.Val
		d.Restore()
		d.DecS = ""
		return &Const{Val: d}, nil
	case "param":
		return &Param{Index: n.Index, T: t}, nil
	case "call":
		return &Call{Fn: n.Fn, Args: args, T: t, Null: n.Null}, nil
	case "cast":
		if len(args) != 1 {
			return nil, sqlerr.Assertf("expr: cast needs one argument")
		}
		return &Cast{Arg: args[0], To: t}, nil
	case "case":
		if len(args)%2 != 0 {
			return nil, sqlerr.Assertf("expr: odd CASE arms")
		}
		c := &Case{T: t}
		var err error
		if c.Operand, err = fromNode(n.Operand); err != nil {
			return nil, err
		}
		if c.Else, err = fromNode(n.Else); err != nil {
			return nil, err
		}
		for i := 0; i < len(args); i += 2 {
			c.Whens = append(c.Whens, When{Cond: args[i], Then: args[i+1]})
		}
		return c, nil
	}
	return nil, sqlerr.Assertf("expr: unknown node kind %q", n.K)
}
