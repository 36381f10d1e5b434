package rpc

import (
	"github.com/dorisgo/dorisgo/planner/fragment"
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
)

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
}

// TabletStatsReq asks for stats of tablets at versions.
type TabletStatsReq struct {
	Versions map[storage.TabletID]storage.Version `json:"versions"`
}

// TabletStatsResp answers TabletStatsReq.
type TabletStatsResp struct {
	Stats map[storage.TabletID]storage.TabletStats `json:"stats"`
}

// LoadCmd is the descriptor command of a load DoPut stream; each batch's
// app metadata is the decimal tablet id it belongs to.
type LoadCmd struct {
	Txn storage.TxnID `json:"txn"`
}

// FragmentTicket asks a backend to run one fragment instance and stream its output.
type FragmentTicket struct {
	QueryID  string                                   `json:"query_id"`
	Root     *fragment.Node                           `json:"root"`
	Tablets  map[fragment.NodeID][]fragment.TabletRef `json:"tablets"`
	NowMicro int64                                    `json:"now"`
	MemLimit int64                                    `json:"mem_limit,omitempty"`
}

// CancelReq cancels every fragment instance of a query.
type CancelReq struct {
	QueryID string `json:"query_id"`
}
