package catalog

import (
	"time"

	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Typed IDs. One allocator (Catalog.nextID) hands out all of them, starting
// at 10000 as Doris does, so ids never collide across kinds.
type (
	DBID        int64
	TableID     int64
	PartitionID int64
	BackendID   int64
	ReplicaID   int64
	GroupID     int64
)

// Database is a namespace of tables.
type Database struct {
	ID   DBID   `json:"id"`
	Name string `json:"name"`
}

// Column is a table column: its SQL shape plus Doris attributes.
type Column struct {
	types.Column
	Agg     storage.AggType `json:"agg,omitempty"`
	IsKey   bool            `json:"is_key,omitempty"`
	Default *string         `json:"default,omitempty"` // literal text; nil = no default (NULL if nullable)
	Comment string          `json:"comment,omitempty"`
	// UID is the column's unique id (Doris's col_unique_id): storage keys
	// its data by it, so renames and drops never mix up data (alter.go).
	UID int32 `json:"uid"`
	// FillValue is what rows loaded before the column was added (ALTER
	// TABLE ADD COLUMN) read as: its default then; nil is NULL.
	FillValue *types.Datum `json:"fill_value,omitempty"`
	// Hidden columns (the delete sign, the version column) come after
	// every other column and show only with show_hidden_columns.
	Hidden bool `json:"hidden,omitempty"`
}

// DeleteSignColumn is the hidden column of UNIQUE KEY tables whose value 1
// deletes the row's key (Doris's Column.DELETE_SIGN).
const DeleteSignColumn = "__DORIS_DELETE_SIGN__"

// VersionColumn is the hidden column of UNIQUE KEY tables
// that reads as the version each row was written at (Doris's
// Column.VERSION_COL, enable_hidden_version_column_by_default). Loads store
// 0 in it; the backend reads a stored 0 as the version of the rowset the
// row is in, and compaction stores that version, so it survives.
const VersionColumn = "__DORIS_VERSION_COL__"

// VisibleColumns are the table's columns without the hidden ones.
func (t *Table) VisibleColumns() []Column {
	n := len(t.Columns)
	for n > 0 && t.Columns[n-1].Hidden {
		n--
	}
	return t.Columns[:n]
}

// DeleteSign is the index of the delete sign column, -1 if none.
func (t *Table) DeleteSign() int {
	for i := len(t.Columns) - 1; i >= 0 && t.Columns[i].Hidden; i-- {
		if t.Columns[i].Name == DeleteSignColumn {
			return i
		}
	}
	return -1
}

// VersionCol is the index of the version column, -1 if none.
func (t *Table) VersionCol() int {
	for i := len(t.Columns) - 1; i >= 0 && t.Columns[i].Hidden; i-- {
		if t.Columns[i].Name == VersionColumn {
			return i
		}
	}
	return -1
}

// DistKind is how rows are spread over buckets.
type DistKind uint8

const (
	DistHash   DistKind = iota // DISTRIBUTED BY HASH(cols)
	DistRandom                 // DISTRIBUTED BY RANDOM
)

// Distribution describes DISTRIBUTED BY.
type Distribution struct {
	Kind    DistKind `json:"kind"`
	Columns []int    `json:"columns,omitempty"` // indexes into Table.Columns, in declared order
	Buckets int      `json:"buckets"`
}

// PartKind is the partitioning scheme.
type PartKind uint8

const (
	PartNone  PartKind = iota // unpartitioned: a single partition named after the table
	PartRange                 // PARTITION BY RANGE(col)
	PartList                  // PARTITION BY LIST(col)
)

// Partition is one partition: its bounds, its tablets and its versions.
type Partition struct {
	ID   PartitionID `json:"id"`
	Name string      `json:"name"`
	// Range partitions: [Lower, Upper); nil Upper = MAXVALUE, nil Lower = MINVALUE.
	Lower *types.Datum `json:"lower,omitempty"`
	Upper *types.Datum `json:"upper,omitempty"`
	// List partitions: the values it holds.
	Values []types.Datum `json:"values,omitempty"`
	// Tablets, one per bucket, in bucket order.
	Tablets []*Tablet `json:"tablets"`
	// VisibleVersion is the newest version a scan may read; NextVersion is
	// what the next committed load gets. Version 1 is the empty partition.
	VisibleVersion storage.Version `json:"visible_version"`
	NextVersion    storage.Version `json:"next_version"`
	// RowCount is the committed row count (statistics), summed over loads.
	RowCount int64 `json:"row_count"`
	// DataSize is the committed bytes (statistics).
	DataSize int64 `json:"data_size"`
}

// Tablet is one bucket of one partition.
type Tablet struct {
	ID       storage.TabletID `json:"id"`
	Bucket   int              `json:"bucket"`
	Replicas []Replica        `json:"replicas"`
	RowCount int64            `json:"row_count"`
}

// Replica is one copy of a tablet on one backend.
type Replica struct {
	ID        ReplicaID `json:"id"`
	BackendID BackendID `json:"backend_id"`
	// LastFailedVersion is the first version the replica lacks (Doris's
	// lastFailedVersion): a load committed on a majority of the replicas
	// without it. 0: it has every visible version. Version is then the
	// newest version it has. A lagging replica is neither read nor
	// written until a clone catches it up (replica.go).
	Version           storage.Version `json:"version,omitempty"`
	LastFailedVersion storage.Version `json:"last_failed_version,omitempty"`
}

// Table is an OLAP table.
type Table struct {
	ID             TableID           `json:"id"`
	DBID           DBID              `json:"db_id"`
	Name           string            `json:"name"`
	Columns        []Column          `json:"columns"`
	Keys           storage.KeysType  `json:"keys"`
	NumKeys        int               `json:"num_keys"`
	Dist           Distribution      `json:"dist"`
	PartKind       PartKind          `json:"part_kind"`
	PartColumn     int               `json:"part_column,omitempty"` // index into Columns
	Partitions     []*Partition      `json:"partitions"`
	ReplicationNum int               `json:"replication_num"`
	ColocateGroup  string            `json:"colocate_group,omitempty"` // the name as the user wrote it
	Properties     map[string]string `json:"properties,omitempty"`
	Comment        string            `json:"comment,omitempty"`
	CreateTime     time.Time         `json:"create_time"`
	// NextColumnID is the unique id the next added column gets; 0 in a
	// table written before column ids (alter.go assigns them at load).
	NextColumnID int32 `json:"next_column_id,omitempty"`
	// SchemaVersion counts the table's schema changes (storage's
	// TabletSchema.Version; scans carry it).
	SchemaVersion int64 `json:"schema_version,omitempty"`
}

// PropMergeOnWrite is the table property choosing merge-on-write for a
// UNIQUE KEY table (storage/mow.go).
const PropMergeOnWrite = "enable_unique_key_merge_on_write"

// MergeOnWrite reports whether the table is a merge-on-write UNIQUE KEY
// table: created with the property true, which is the default since it
// existed (a table created before keeps merging on read).
func (t *Table) MergeOnWrite() bool {
	return t.Keys == storage.UniqueKeys && t.Properties[PropMergeOnWrite] == "true"
}

// Schema returns the storage schema of the table's tablets.
func (t *Table) Schema() *storage.TabletSchema {
	s := &storage.TabletSchema{Keys: t.Keys, NumKeys: t.NumKeys, Version: t.SchemaVersion, MergeOnWrite: t.MergeOnWrite(), DeleteSign: t.DeleteSign() + 1, VersionCol: t.VersionCol() + 1}
	fill := false
	for _, c := range t.Columns {
		s.Columns = append(s.Columns, c.Column)
		s.Agg = append(s.Agg, c.Agg)
		s.ColumnIDs = append(s.ColumnIDs, c.UID)
		var d *types.Datum
		if c.FillValue != nil {
			v := *c.FillValue
			v.Prepare()
			d = &v
		}
		s.Defaults = append(s.Defaults, d)
		fill = fill || d != nil
	}
	if !fill {
		s.Defaults = nil
	}
	return s
}

// Backend is a BE node.
type Backend struct {
	ID             BackendID `json:"id"`
	Host           string    `json:"host"`
	Port           int       `json:"port"` // gRPC (be_port)
	HTTPPort       int       `json:"http_port,omitempty"`
	Alive          bool      `json:"-"`
	LastHeartbeat  time.Time `json:"-"`
	LastStartTime  time.Time `json:"-"`
	ErrMsg         string    `json:"-"`
	Decommissioned bool      `json:"decommissioned,omitempty"`
	// From the last heartbeat (in memory only): the backend's bytes on
	// disk and its file system's size and free space; HeartbeatFailures
	// counts the heartbeats failed in a row.
	DataUsed, DiskTotal, DiskAvail int64 `json:"-"`
	HeartbeatFailures              int   `json:"-"`
}

// ColocateGroup fixes one bucket→backends sequence for all its member tables.
type ColocateGroup struct {
	ID         GroupID   `json:"id"`
	DBID       DBID      `json:"db_id"` // 0 for __global__ groups
	Name       string    `json:"name"`  // as written (without the db prefix)
	BucketNum  int       `json:"bucket_num"`
	DistTypes  []types.T `json:"dist_types"`
	ReplicaNum int       `json:"replica_num"`
	// BucketSeq[i] lists the backends holding bucket i of every member.
	BucketSeq [][]BackendID `json:"bucket_seq"`
	Tables    []TableID     `json:"tables"`
	// Unstable marks the group as being repaired (or marked so by an admin).
	// The catalog derives it (and ErrMsg) whenever backends or members change:
	// MarkedUnstable, a sequence backend dead, decommissioned or dropped, or a
	// member replica off its bucket's backends. It is recomputed on Open.
	Unstable bool   `json:"unstable,omitempty"`
	ErrMsg   string `json:"err_msg,omitempty"`
	// MarkedUnstable is the admin's mark (SetGroupStable(false)); persisted.
	MarkedUnstable bool `json:"marked_unstable,omitempty"`
}

// User is an account. Passwords are stored only as hashes.
type User struct {
	Name string `json:"name"`
	Host string `json:"host"`
	// NativeHash is SHA1(SHA1(password)) (mysql_native_password); empty = no password.
	NativeHash []byte `json:"native_hash,omitempty"`
	// Sha2Hash is SHA256(SHA256(password)), enough for caching_sha2 fast auth.
	Sha2Hash []byte `json:"sha2_hash,omitempty"`
	// Privs are the privileges granted to the account itself (Doris keeps
	// them in the user's default role).
	Privs PrivTable `json:"privs,omitzero"`
	// Roles are the roles granted to the account, sorted (the built-in
	// accounts' own roles are implicit, see builtinRoleOf).
	Roles []string `json:"roles,omitempty"`
}
