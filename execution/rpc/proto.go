package rpc

import (
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/aggregate"
	"github.com/dorisgo/dorisgo/execution/op/build"
	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/execution/op/scan"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/storage"
)

// Action names (DoAction types).
const (
	ActCreateTablet = "create_tablet"
	ActDropTablet   = "drop_tablet"
	ActPrepare      = "prepare"
	ActPublish      = "publish"
	ActAbort        = "abort"
	ActPendingTxns  = "pending_txns"
	ActHeartbeat    = "heartbeat"
	ActTabletStats  = "tablet_stats"
	ActCancel       = "cancel"
	ActExecFragment = "exec_fragment"
	ActQueryStatus  = "query_status"
	ActWriteDelete  = "write_delete"
	// ActAlterTablet gives tablets a newer schema (CreateTabletReq; a light
	// schema change, storage.Store.AlterTablet).
	ActAlterTablet = "alter_tablet"
	// ActColumnStats computes ANALYZE's per-tablet column statistics
	// (ColumnStatsReq).
	ActColumnStats = "column_stats"
	// ActAdaptWait waits for an adaptive join's build instance to measure
	// its side (AdaptWaitReq → AdaptReport); ActAdaptDecide tells the
	// backend's sinks of an adaptive join how it runs (AdaptDecideReq).
	ActAdaptWait   = "adapt_wait"
	ActAdaptDecide = "adapt_decide"
	// ActRuntimeFilter delivers one join instance's part of a global
	// runtime filter to a backend whose scans apply it (RuntimeFilterReq).
	ActRuntimeFilter = "runtime_filter"
)

// RuntimeFilterReq is one part of global runtime filter ID of a query:
// the filter is complete on the receiving backend once Parts parts came.
type RuntimeFilterReq struct {
	QueryID string `json:"query_id"`
	ID      int    `json:"id"`
	Parts   int    `json:"parts"`
	Filter  []byte `json:"filter"` // join.RuntimeFilter.Marshal
}

// RFDest is where an instance sends its part of a global runtime filter:
// the peer backends running the target scan's instances (and its own
// backend, Local), each expecting Parts parts.
type RFDest struct {
	Addrs []string `json:"addrs,omitempty"`
	Local bool     `json:"local,omitempty"`
	Parts int      `json:"parts"`
}

// CreateTabletReq creates tablets with one schema.
type CreateTabletReq struct {
	Tablets []storage.TabletID    `json:"tablets"`
	Schema  *storage.TabletSchema `json:"schema"`
}

// DropTabletReq drops tablets.
type DropTabletReq struct {
	Tablets []storage.TabletID `json:"tablets"`
}

// TxnReq names a transaction (prepare, abort).
type TxnReq struct {
	Txn storage.TxnID `json:"txn"`
}

// WriteDeleteReq adds a delete condition to tablets of a transaction
// (storage.Store.WriteDelete) and prepares the transaction on the backend
// (answering PrepareResp); Publish then follows as for a load.
type WriteDeleteReq struct {
	Txn     storage.TxnID      `json:"txn"`
	Tablets []storage.TabletID `json:"tablets"`
	Cond    storage.DeleteCond `json:"cond"`
}

// PrepareResp reports what a prepared transaction wrote per tablet.
type PrepareResp struct {
	Stats map[storage.TabletID]storage.RowsetStats `json:"stats"`
}

// PublishReq makes a transaction's rowsets visible at versions.
type PublishReq struct {
	Txn      storage.TxnID                        `json:"txn"`
	Versions map[storage.TabletID]storage.Version `json:"versions"`
}

// PendingResp lists transactions with unpublished data.
type PendingResp struct {
	Txns []storage.TxnID `json:"txns"`
}

// HeartbeatResp is a backend's answer to a heartbeat.
type HeartbeatResp struct {
	StartTime int64 `json:"start_time"` // unix ms
	Tablets   int   `json:"tablets"`
	// DataUsed is the store's bytes on disk; DiskTotal and DiskAvail the
	// file system's that holds it (0: unknown).
	DataUsed  int64 `json:"data_used,omitempty"`
	DiskTotal int64 `json:"disk_total,omitempty"`
	DiskAvail int64 `json:"disk_avail,omitempty"`
}

// TabletStatsReq asks for stats of tablets at versions.
type TabletStatsReq struct {
	Versions map[storage.TabletID]storage.Version `json:"versions"`
}

// TabletStatsResp answers TabletStatsReq.
type TabletStatsResp struct {
	Stats map[storage.TabletID]storage.TabletStats `json:"stats"`
}

// ColumnStatsReq asks for column statistics of tablets at versions: the
// schema columns Columns, each row kept with probability Rate (>= 1: all).
type ColumnStatsReq struct {
	Versions map[storage.TabletID]storage.Version `json:"versions"`
	Columns  []int                                `json:"columns"`
	Rate     float64                              `json:"rate"`
}

// ColumnStatsResp answers ColumnStatsReq: per tablet, one partial per
// requested column (in request order).
type ColumnStatsResp struct {
	Stats map[storage.TabletID][]aggregate.ColumnPartial `json:"stats"`
}

// PutCmd is the descriptor command of a DoPut stream: a load (Txn set,
// each batch's app metadata is the decimal tablet id it belongs to) or an
// exchange stream (Exchange set).
type PutCmd struct {
	Txn      storage.TxnID `json:"txn,omitempty"`
	Exchange *StreamID     `json:"exchange,omitempty"`
	// Partial, on a load, makes it a partial column update
	// (storage.WritePartial).
	Partial *storage.PartialUpdate `json:"partial,omitempty"`
}

// StreamID names one sender→receiver stream of an exchange.
type StreamID struct {
	QueryID  string          `json:"query_id"`
	Exchange fragment.NodeID `json:"exchange"` // the receiving EXCHANGE node
	Receiver int             `json:"receiver"` // receiver instance index
	Sender   int             `json:"sender"`   // sender instance index
}

// ExecFragmentReq starts one fragment instance; an exec_fragment call
// (DoAction) carries those of a query on one backend (MarshalExecBatch).
// The backend answers with an empty "started" result once the instances'
// exchange inboxes (and outboxes) are registered, and with an
// InstanceReport as each instance ends; the call stays open meanwhile, so
// its cancellation cancels the instances and a broken connection fails
// them.
type ExecFragmentReq struct {
	QueryID  string              `json:"query_id"`
	Fragment fragment.FragmentID `json:"fragment"`
	Instance int                 `json:"instance"`
	Root     *fragment.Node      `json:"root,omitempty"`
	// RootWire, when set instead of Root, is Root already encoded
	// (EncodeRoot): the FE encodes a fragment's plan once, not once per
	// instance.
	RootWire []byte                                   `json:"root_wire,omitempty"`
	Tablets  map[fragment.NodeID][]fragment.TabletRef `json:"tablets"`
	// Exchanges says, per EXCHANGE node of Root, how many sender instances
	// will stream to this instance, and the merge keys of a merging one.
	Exchanges map[fragment.NodeID]ExchangeIn `json:"exchanges,omitempty"`
	Sink      SinkPlan                       `json:"sink"`
	NowMicro  int64                          `json:"now"`
	MemLimit  int64                          `json:"mem_limit,omitempty"`
	// Spill lets the instance's hash joins spill past MemLimit (the
	// session's enable_spill); its Dir is the backend's to choose.
	Spill     *op.SpillConfig `json:"spill,omitempty"`
	Budget    int64           `json:"budget,omitempty"`     // exchange byte budget; 0: default
	BatchRows int             `json:"batch_rows,omitempty"` // scan batch rows; 0: default
	// Tasks > 1 runs the fragment as that many pipeline tasks (the planner's
	// Fragment.Tasks); Instances is the fragment's instance count.
	Tasks     int `json:"tasks,omitempty"`
	Instances int `json:"instances,omitempty"`
	// BackendInstances is how many instances of the query (all fragments)
	// run on this backend: the FE starts them all at once, and until that
	// many have registered a stream for a missing inbox waits for it.
	BackendInstances int `json:"backend_instances"`
	// RFSend says, per global runtime filter the instance's joins build,
	// where its part goes; RFWaitMs is how long the instance's scans wait
	// for their global filters (runtime_filter_wait_time_ms).
	RFSend   map[int]RFDest `json:"rf_send,omitempty"`
	RFWaitMs int            `json:"rf_wait_ms,omitempty"`
}

// ExchangeIn describes one receiving exchange of an instance.
type ExchangeIn struct {
	Senders   int                `json:"senders"`
	MergeKeys []fragment.SortKey `json:"merge_keys,omitempty"` // set: merging exchange
	// How the senders partition (their sink), so that an instance running
	// pipeline tasks can split what it receives the same way.
	SenderKind fragment.SinkKind `json:"sender_kind,omitempty"`
	SenderKeys []fragment.Ex     `json:"sender_keys,omitempty"`
	Buckets    int               `json:"buckets,omitempty"`
	Receivers  int               `json:"receivers,omitempty"`
}

// SinkPlan is a sender instance's routing: Receivers in receiver-instance order.
type SinkPlan struct {
	Kind        fragment.SinkKind `json:"kind"`
	ExchangeID  fragment.NodeID   `json:"exchange_id"`
	Keys        []fragment.Ex     `json:"keys,omitempty"`
	Buckets     int               `json:"buckets,omitempty"`
	BucketOwner []int             `json:"bucket_owner,omitempty"`
	Receivers   []Dest            `json:"receivers"`
	// Adapt (a side of an adaptive join) holds the sink's first rows back
	// until the coordinator settles how the join runs (fragment.AdaptiveJoin).
	Adapt *AdaptSink `json:"adapt,omitempty"`
	// Table sink (Kind TableSinkKind): the load transaction the instance
	// writes under, the target, and the address of every backend holding a
	// replica it may write.
	Txn      storage.TxnID                 `json:"txn,omitempty"`
	Table    *fragment.TableSink           `json:"table,omitempty"`
	Replicas map[fragment.BackendID]string `json:"replicas,omitempty"`
}

// Dest is one receiver instance. Pull (the FE's root fragment) means the
// sender keeps an outbox the receiver fetches with DoGet(OutboxTicket);
// otherwise the sender pushes with DoPut to Addr.
type Dest struct {
	Addr     string `json:"addr,omitempty"`
	Instance int    `json:"instance"`
	Pull     bool   `json:"pull,omitempty"`
	// Local: the receiver runs on the sender's own backend, which hands it
	// the batches in memory instead of over a stream.
	Local bool `json:"local,omitempty"`
}

// OutboxTicket is the DoGet ticket fetching a sender instance's outbox.
type OutboxTicket struct {
	Stream StreamID `json:"stream"`
	// Clone, when set, reads a tablet for a clone instead (clone.go).
	Clone *CloneRead `json:"clone,omitempty"`
}

// InstanceReport is the final answer of exec_fragment.
type InstanceReport struct {
	Fragment  fragment.FragmentID                        `json:"fragment"`
	Instance  int                                        `json:"instance"`
	Backend   string                                     `json:"backend"`
	Sink      exchange.ExchangeStats                     `json:"sink"`
	Exchanges map[fragment.NodeID]exchange.ExchangeStats `json:"exchanges,omitempty"` // receiving side
	Operators []build.OpStats                            `json:"operators,omitempty"`
	WallNs    int64                                      `json:"wall_ns"`
	// Tasks is the pipeline tasks the instance ran (1: serial).
	Tasks int `json:"tasks,omitempty"`
	// WarnCount counts the instance's warnings (a CAST that gave NULL);
	// Warnings are the first expr.MaxWarnings of them (SHOW WARNINGS).
	WarnCount int64          `json:"warn_count,omitempty"`
	Warnings  []expr.Warning `json:"warnings,omitempty"`
	// Table is what a table sink instance wrote (its streams closed and
	// acknowledged by every replica's backend).
	Table *scan.TableSinkStats `json:"table,omitempty"`
	// AdaptMode is how the instance's sink ran when it is one side of an
	// adaptive join (AdaptUndecided otherwise).
	AdaptMode fragment.AdaptMode `json:"adapt_mode,omitempty"`
}

// QueryStatusReq asks a backend what it is running for a query (tests, profiles).
type QueryStatusReq struct {
	QueryID string `json:"query_id"`
}

// QueryStatusResp lists a query's running instances on a backend.
type QueryStatusResp struct {
	Instances int   `json:"instances"`
	Inboxes   int   `json:"inboxes"`
	Buffered  int64 `json:"buffered"` // unread exchange bytes held for the query
	PeakBytes int64 `json:"peak_bytes"`
	// Live are the running instances' counters so far (operators and
	// receiving exchanges; their sink's come with the final report).
	Live []InstanceReport `json:"live,omitempty"`
}

// CancelReq cancels every fragment instance of a query on a backend and
// drops its exchange state (sent for KILL, on errors, and at every query's end).
type CancelReq struct {
	QueryID string `json:"query_id"`
}
