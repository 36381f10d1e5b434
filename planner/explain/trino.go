package explain

import (
	"fmt"
	"strings"
)

// TrinoNode is one operator of EXPLAIN (TYPE DISTRIBUTED): a header such as
// `InnerJoin[("ok" = "ok_0")]`, detail lines (`Layout: …`, assignments) and
// the children inside the same fragment.
type TrinoNode struct {
	Header   string
	Details  []string
	Children []*TrinoNode
}

// TrinoFragment is one fragment in Trino's format (DORIS-PLANNING.md §4).
type TrinoFragment struct {
	ID           int
	Kind         string   // SINGLE | HASH | SOURCE | ROUND_ROBIN
	OutputLayout []string // symbols
	Partitioning string   // e.g. `HASH [nm]`, `SINGLE []`
	Root         *TrinoNode
}

// Trino prints fragments as Trino's EXPLAIN (TYPE DISTRIBUTED) does: node
// at indent I, details at I+"│   " (with children) or I+4 spaces, children
// under I+"├─ " / I+"└─ " with the "│" kept under non-last children.
func Trino(frags []TrinoFragment) []string {
	var out []string
	add := func(s string) { out = append(out, strings.TrimRight(s, " ")) }
	for i, f := range frags {
		if i > 0 {
			add("")
		}
		add(fmt.Sprintf("Fragment %d [%s]", f.ID, f.Kind))
		add("    Output layout: [" + strings.Join(f.OutputLayout, ", ") + "]")
		add("    Output partitioning: " + f.Partitioning)
		printTrino(f.Root, "    ", "    ", add)
	}
	return out
}

func printTrino(n *TrinoNode, head, indent string, add func(string)) {
	add(head + n.Header)
	detail := indent + "    "
	if len(n.Children) > 0 {
		detail = indent + "│   "
	}
	for _, d := range n.Details {
		add(detail + d)
	}
	for i, c := range n.Children {
		if i == len(n.Children)-1 {
			printTrino(c, indent+"└─ ", indent+"   ", add)
		} else {
			printTrino(c, indent+"├─ ", indent+"│  ", add)
		}
	}
}
