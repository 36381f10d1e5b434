package webui

import "time"

// What the pages show, filled by the FE (Source): plain data, so this
// package knows nothing of the catalog, the planner or the executor.

// Table is a statement's result as text (a SHOW's rows).
type Table struct {
	Columns []string
	Rows    [][]string
}

// Query is one running or finished statement.
type Query struct {
	QueryID string    `json:"query_id"`
	Conn    uint32    `json:"conn"` // its connection (KILL QUERY's id)
	User    string    `json:"user"`
	DB      string    `json:"db"`
	SQL     string    `json:"sql"`
	State   string    `json:"state"` // RUNNING, or the audit log's OK, EOF, ERR
	Start   time.Time `json:"start"`
	TimeMs  int64     `json:"time_ms"`
	Rows    int64     `json:"rows"`  // returned or affected
	Bytes   int64     `json:"bytes"` // read from storage
	// Killable: the viewer may KILL it (its own, or ADMIN_PRIV), as KILL allows.
	Killable bool `json:"killable"`
	// HasPlan: the query page can draw its plan.
	HasPlan bool `json:"has_plan"`
}

// Running reports whether the statement is still running.
func (q Query) Running() bool { return q.State == "RUNNING" }

// QueryDetail is a query page: the statement, its fragments and what they did.
type QueryDetail struct {
	Query     Query      `json:"query"`
	Fragments []Fragment `json:"fragments"`
	Profile   string     `json:"profile"` // SHOW QUERY PROFILE's text (finished queries)
}

// Fragment is one plan fragment, its instances and the exchange it feeds.
type Fragment struct {
	ID        int        `json:"id"`
	Partition string     `json:"partition"`
	Sink      string     `json:"sink"`
	Tasks     int        `json:"tasks"`
	Instances []Instance `json:"instances"` // per backend, as they reported
	Exchange  *Exchange  `json:"exchange,omitempty"`
	Nodes     []Node     `json:"nodes"`
}

// Instance sums a fragment's instances on one backend.
type Instance struct {
	Backend string  `json:"backend"`
	Count   int     `json:"count"`
	WallMs  float64 `json:"wall_ms"` // the slowest
	Rows    int64   `json:"rows"`    // sent by the sink
	Bytes   int64   `json:"bytes"`
}

// Exchange is the edge from a fragment to the one reading it.
type Exchange struct {
	ID        int     `json:"id"`
	Kind      string  `json:"kind"` // hash, bucket shuffle, broadcast, gather, merge, random
	From      int     `json:"from"`
	To        int     `json:"to"`
	EstRows   int64   `json:"est_rows"`
	EstBytes  int64   `json:"est_bytes"`
	Rows      int64   `json:"rows"`
	Bytes     int64   `json:"bytes"`
	WireBytes int64   `json:"wire_bytes"`
	BlockedMs float64 `json:"blocked_ms"`
}

// Node is one operator of a fragment.
type Node struct {
	ID        int      `json:"id"`
	Label     string   `json:"label"`
	Inputs    []int    `json:"inputs,omitempty"`
	From      int      `json:"from"` // an exchange's sending fragment, else -1
	EstRows   int64    `json:"est_rows"`
	Rows      int64    `json:"rows"`
	TimeMs    float64  `json:"time_ms"`  // the slowest instance, children included
	PeakMem   int64    `json:"peak_mem"` // the largest instance's
	Instances int      `json:"instances"`
	Attrs     []string `json:"attrs,omitempty"`
	Join      *Join    `json:"join,omitempty"`
}

// Join is a join's distribution and why it is not colocated.
type Join struct {
	Distribution   string `json:"distribution"`
	Colocate       bool   `json:"colocate"`
	ColocateReason string `json:"colocate_reason,omitempty"`
	// Ran is how an adaptive join ran ("": not adaptive, or not settled).
	Ran string `json:"ran,omitempty"`
}

// TableInfo is one table on the Tables page.
type TableInfo struct {
	DB, Name   string
	Keys       string // DUPLICATE, UNIQUE, AGGREGATE
	Dist       string // HASH(k) or RANDOM
	Buckets    int
	Colocate   string // its colocate group, "" none
	Partitions []PartitionInfo
	Replicas   []BackendCount // replicas per backend, over every partition
}

// PartitionInfo is one partition of a table.
type PartitionInfo struct {
	Name    string
	Range   string
	Buckets int
	Rows    int64
	Version int64
}

// BackendCount is how many replicas a backend holds.
type BackendCount struct {
	Backend int64
	Count   int
}

// Group is a colocate group: its bucket sequence and whether it is stable.
type Group struct {
	ID, Name  string
	Buckets   int
	Replicas  int
	Stable    bool
	ErrMsg    string
	Tables    []string
	BucketSeq [][]int64 // backends of bucket i
}
