package expr

import (
	"encoding/json"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// node is the JSON form of one Expr node: K names the node type and only
// the fields of that type are set. Decimals travel as their unscaled
// integer text (types.Datum.Prepare/Restore), so round trips are exact.
// Children are indexes into the same list, not nested objects, so an
// expression of any depth (an OR of 10,000 terms is that deep) encodes
// within encoding/json's nesting limit.
type node struct {
	K     string       `json:"k"`
	Index int          `json:"i,omitempty"`
	Table string       `json:"tb,omitempty"`
	Name  string       `json:"n,omitempty"`
	T     *types.T     `json:"t,omitempty"`
	Null  bool         `json:"nl,omitempty"`
	Val   *types.Datum `json:"v,omitempty"`
	Fn    string       `json:"fn,omitempty"`
	Args  []int        `json:"a,omitempty"`
	// Operand and Else of a CASE: index+1, 0 for none.
	Operand int `json:"op,omitempty"`
	Else    int `json:"el,omitempty"`
}

// Marshal encodes e as JSON: its nodes in post-order, the root last.
func Marshal(e Expr) ([]byte, error) {
	var nodes []node
	if _, err := flatten(e, &nodes); err != nil {
		return nil, err
	}
	return json.Marshal(nodes)
}

// Unmarshal decodes an expression written by Marshal.
func Unmarshal(b []byte) (Expr, error) {
	var nodes []node
	if err := json.Unmarshal(b, &nodes); err != nil {
		return nil, sqlerr.Assertf("expr: decode: %v", err)
	}
	if len(nodes) == 0 {
		return nil, sqlerr.Assertf("expr: decode: no nodes")
	}
	built := make([]Expr, len(nodes))
	for i := range nodes {
		e, err := fromNode(&nodes[i], built[:i])
		if err != nil {
			return nil, err
		}
		built[i] = e
	}
	return built[len(built)-1], nil
}

func typ(t types.T) *types.T { return &t }

// flatten appends e's nodes to out, children first, and returns e's index
// (-1 for a nil expression).
func flatten(e Expr, out *[]node) (int, error) {
	if e == nil {
		return -1, nil
	}
	var n node
	switch x := e.(type) {
	case *ColRef:
		n = node{K: "col", Index: x.Index, Table: x.Table, Name: x.Name, T: typ(x.T), Null: x.Null}
	case *Const:
		d := x.Val
		d.Prepare()
		n = node{K: "const", Val: &d}
	case *Param:
		n = node{K: "param", Index: x.Index, T: typ(x.T)}
	case *Call:
		n = node{K: "call", Fn: x.Fn, T: typ(x.T), Null: x.Null}
		for _, a := range x.Args {
			i, err := flatten(a, out)
			if err != nil {
				return 0, err
			}
			n.Args = append(n.Args, i)
		}
	case *Cast:
		i, err := flatten(x.Arg, out)
		if err != nil {
			return 0, err
		}
		n = node{K: "cast", T: typ(x.To), Args: []int{i}}
	case *Case:
		n = node{K: "case", T: typ(x.T)}
		op, err := flatten(x.Operand, out)
		if err != nil {
			return 0, err
		}
		el, err := flatten(x.Else, out)
		if err != nil {
			return 0, err
		}
		n.Operand, n.Else = op+1, el+1
		for _, w := range x.Whens {
			c, err := flatten(w.Cond, out)
			if err != nil {
				return 0, err
			}
			t, err := flatten(w.Then, out)
			if err != nil {
				return 0, err
			}
			n.Args = append(n.Args, c, t)
		}
	default:
		return 0, sqlerr.Assertf("expr: cannot marshal %T", e)
	}
	*out = append(*out, n)
	return len(*out) - 1, nil
}

// fromNode builds node n over the nodes before it (done).
func fromNode(n *node, done []Expr) (Expr, error) {
	child := func(i int) (Expr, error) {
		switch {
		case i == -1:
			return nil, nil
		case i < 0 || i >= len(done):
			return nil, sqlerr.Assertf("expr: decode: child %d of node %d", i, len(done))
		}
		return done[i], nil
	}
	var t types.T
	if n.T != nil {
		t = *n.T
	}
	args := make([]Expr, len(n.Args))
	for i, a := range n.Args {
		e, err := child(a)
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
		if c.Operand, err = child(n.Operand - 1); err != nil {
			return nil, err
		}
		if c.Else, err = child(n.Else - 1); err != nil {
			return nil, err
		}
		for i := 0; i < len(args); i += 2 {
			c.Whens = append(c.Whens, When{Cond: args[i], Then: args[i+1]})
		}
		return c, nil
	}
	return nil, sqlerr.Assertf("expr: unknown node kind %q", n.K)
}
