package expr

import (
	"encoding/json"
	"math"

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
	X     bool         `json:"x,omitempty"` // an explicit cast
	Val   *types.Datum `json:"v,omitempty"`
	Fn    string       `json:"fn,omitempty"`
	Args  []int        `json:"a,omitempty"`
	// Operand and Else of a CASE: index+1, 0 for none.
	Operand int `json:"op,omitempty"`
	Else    int `json:"el,omitempty"`
	// Consts (a call) are its trailing arguments, constants of one type,
	// after those in Args (packRun).
	Consts *constRun `json:"cs,omitempty"`
}

// constRun is a run of constants of type T as one list of their values,
// in the one Datum field that holds them: an IN list of 100,000 constants
// decoded in 290 ms as 100,000 nodes.
type constRun struct {
	T types.T `json:"t"`
	// Lit: each item is a VARCHAR of its own length, as string literals
	// are, and T is the first one's type.
	Lit bool      `json:"lit,omitempty"`
	I   []int64   `json:"i,omitempty"`
	F   []float64 `json:"f,omitempty"`
	S   []string  `json:"s,omitempty"`
	D   []string  `json:"d,omitempty"` // decimals and LARGEINT, as unscaled integers
}

// packRunMin is the shortest run of constant arguments packed into one
// constRun.
const packRunMin = 8

// packRun packs args when every one is a non-NULL constant of one type (or
// every one a string literal, VARCHAR of its own length) whose value lies
// in a single Datum field; nil otherwise.
func packRun(args []Expr) *constRun {
	if len(args) < packRunMin {
		return nil
	}
	vals := make([]types.Datum, len(args))
	lit := true
	for i, a := range args {
		c, ok := a.(*Const)
		if !ok || c.Val.Null {
			return nil
		}
		vals[i] = c.Val
		lit = lit && c.Val.T == types.VarcharT(len(c.Val.S))
	}
	t := vals[0].T
	only := [4]bool{true, true, true, true} // I, F, S, Dec alone hold the value
	for _, d := range vals {
		if lit {
			d.T = t
		} else if d.T != t {
			return nil
		}
		only[0] = only[0] && d == types.Datum{T: t, I: d.I}
		only[1] = only[1] && d == types.Datum{T: t, F: d.F} && !math.IsInf(d.F, 0) && !math.IsNaN(d.F)
		only[2] = only[2] && d == types.Datum{T: t, S: d.S}
		only[3] = only[3] && d == types.Datum{T: t, Dec: d.Dec}
	}
	r := &constRun{T: t, Lit: lit}
	for _, d := range vals {
		switch {
		case lit && only[2]:
			r.S = append(r.S, d.S)
		case lit:
			return nil
		case only[0]:
			r.I = append(r.I, d.I)
		case only[1]:
			r.F = append(r.F, d.F)
		case only[2]:
			r.S = append(r.S, d.S)
		case only[3]:
			d.Prepare()
			r.D = append(r.D, d.DecS)
		default:
			return nil
		}
	}
	return r
}

// unpack returns the run's constants, as decoding a "const" node makes them.
func (r *constRun) unpack() []Expr {
	n := max(len(r.I), len(r.F), len(r.S), len(r.D))
	out := make([]Expr, n)
	for i := range n {
		d := types.Datum{T: r.T}
		switch {
		case r.I != nil:
			d.I = r.I[i]
		case r.F != nil:
			d.F = r.F[i]
		case r.S != nil:
			d.S = r.S[i]
			if r.Lit {
				d.T = types.VarcharT(len(d.S))
			}
		default:
			d.DecS = r.D[i]
			d.Restore()
			d.DecS = ""
		}
		out[i] = &Const{Val: d}
	}
	return out
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
		args := x.Args
		if len(args) > packRunMin {
			if r := packRun(args[1:]); r != nil {
				n.Consts, args = r, args[:1]
			}
		}
		for _, a := range args {
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
		n = node{K: "cast", T: typ(x.To), Args: []int{i}, X: x.Explicit}
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
		if n.Consts != nil {
			args = append(args, n.Consts.unpack()...)
		}
		return &Call{Fn: n.Fn, Args: args, T: t, Null: n.Null}, nil
	case "cast":
		if len(args) != 1 {
			return nil, sqlerr.Assertf("expr: cast needs one argument")
		}
		return &Cast{Arg: args[0], To: t, Explicit: n.X}, nil
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
