package rpc

import (
	"context"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// Clone actions (the FE's tablet scheduler repairing replicas).
const (
	// ActCloneTablet has the backend copy a tablet from another backend
	// (CloneReq, answering CloneResp once the copy is durable).
	ActCloneTablet = "clone_tablet"
	// ActTabletChecksum answers the rows and checksum of a tablet at a
	// version (ChecksumReq → ChecksumResp).
	ActTabletChecksum = "tablet_checksum"
	// ActTabletReport lists the tablets a backend holds (Doris's tablet
	// report; → TabletReportResp): the FE drops those the catalog no
	// longer assigns to it.
	ActTabletReport = "tablet_report"
)

// TabletReportResp lists a backend's tablets in id order.
type TabletReportResp struct {
	Tablets []storage.TabletID `json:"tablets"`
}

// CloneReq asks the receiving backend to make its replica of Tablet a copy
// of the one on Source at Version: it streams the source's rows (each
// batch carrying its checksum, verified on arrival) and installs them in
// one synced write.
type CloneReq struct {
	Tablet  storage.TabletID      `json:"tablet"`
	Version storage.Version       `json:"version"`
	Schema  *storage.TabletSchema `json:"schema"`
	Source  string                `json:"source"` // host:port
}

// CloneResp reports what a clone installed.
type CloneResp struct {
	Rows     int64  `json:"rows"`
	Bytes    int64  `json:"bytes"`
	Checksum uint64 `json:"checksum"`
	Batches  int    `json:"batches"`
}

// ChecksumReq names a tablet replica at a version.
type ChecksumReq struct {
	Tablet  storage.TabletID `json:"tablet"`
	Version storage.Version  `json:"version"`
}

// ChecksumResp is a replica's row count and order-independent checksum
// (the same rows give the same checksum however they are stored).
type ChecksumResp struct {
	Rows     int64  `json:"rows"`
	Checksum uint64 `json:"checksum"`
}

// CloneRead is the DoGet ticket body reading a tablet for a clone.
type CloneRead struct {
	Tablet        storage.TabletID `json:"tablet"`
	Version       storage.Version  `json:"version"`
	SchemaVersion int64            `json:"schema_version"`
}

// CloneStream reads a tablet's rows from the source backend of a clone.
type CloneStream struct {
	r      *flight.Reader
	cancel context.CancelFunc
}

// ReadClone opens tablet rows for a clone on this backend.
func (c *Client) ReadClone(ctx context.Context, req CloneRead) (*CloneStream, error) {
	r, cancel, err := c.doGet(ctx, OutboxTicket{Clone: &req})
	if err != nil {
		return nil, err
	}
	return &CloneStream{r: r, cancel: cancel}, nil
}

// Next returns the next batch (caller releases) and the checksum the
// source computed for it, or io.EOF.
func (s *CloneStream) Next() (arrow.Record, uint64, error) {
	if s.r.Next() {
		rec := s.r.Record()
		sum, err := strconv.ParseUint(string(s.r.LatestAppMetadata()), 10, 64)
		if err != nil {
			return nil, 0, sqlerr.Doris.New("clone batch without a checksum")
		}
		rec.Retain()
		return rec, sum, nil
	}
	if err := s.r.Err(); err != nil && err != io.EOF {
		return nil, 0, FromStatus(err)
	}
	return nil, 0, io.EOF
}

// Close stops the stream.
func (s *CloneStream) Close() {
	s.cancel()
	s.r.Release()
}
