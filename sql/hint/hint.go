// Package hint holds the join hints of a statement: the parser reads them
// from the text, the binder attaches them to joins and the physical planner
// applies them, all with these one set of types.
package hint

import "strings"

// JoinKind is a Doris join distribution hint (`JOIN [shuffle] t`).
type JoinKind uint8

const (
	None JoinKind = iota // no hint on this join
	Shuffle
	Broadcast
	Bucket
	Colocate
)

var joinKindNames = [...]string{"", "shuffle", "broadcast", "bucket", "colocate"}

func (k JoinKind) String() string { return joinKindNames[k] }

// JoinKindNamed returns the kind spelled name (any case).
func JoinKindNamed(name string) (JoinKind, bool) {
	for k, n := range joinKindNames {
		if n != "" && strings.EqualFold(n, name) {
			return JoinKind(k), true
		}
	}
	return None, false
}

// Join is one join's hint. Text is the canonical bracket form, e.g.
// "[shuffle]", whichever way it was written, as EXPLAIN prints it.
type Join struct {
	Kind JoinKind
	Text string
}

// SparkKind is a Spark join strategy hint family.
type SparkKind uint8

const (
	SparkBroadcast SparkKind = iota
	SparkShuffleHash
	SparkMerge
	SparkShuffleReplicateNL
)

var sparkKindNames = [...]string{"BROADCAST", "SHUFFLE_HASH", "MERGE", "SHUFFLE_REPLICATE_NL"}

func (k SparkKind) String() string { return sparkKindNames[k] }

// Spark is one Spark hint (`/*+ BROADCAST(t) */`). Name is the spelling
// used, upper-cased (e.g. BROADCASTJOIN); Tables are the names inside the
// parentheses.
type Spark struct {
	Kind   SparkKind
	Name   string
	Tables []string
}

// String renders the hint as EXPLAIN's "hint: ... ignored" line quotes it.
func (h Spark) String() string { return h.Name + "(" + strings.Join(h.Tables, ", ") + ")" }
