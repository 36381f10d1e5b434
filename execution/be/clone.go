package be

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Clone, the backend's side of replica repair (Doris's clone task): the
// FE asks the backend that needs a replica to copy it from one that has
// it. The destination pulls the source's rows at the version over DoGet,
// each batch with the source's checksum of its rows, verified on arrival;
// only a complete, verified copy is installed (storage.InstallClone), in
// one synced write, before the backend answers and the FE registers the
// replica.

// cloneAction serves the clone actions; ok is false for other actions.
func (b *Backend) cloneAction(ctx context.Context, typ string, body []byte) (resp any, ok bool, err error) {
	switch typ {
	case rpc.ActCloneTablet:
		var r rpc.CloneReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, true, err
		}
		resp, err := b.cloneTablet(ctx, r)
		return resp, true, err
	case rpc.ActTabletChecksum:
		var r rpc.ChecksumReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, true, err
		}
		resp, err := b.tabletChecksum(ctx, r)
		return resp, true, err
	case rpc.ActTabletReport:
		return rpc.TabletReportResp{Tablets: b.store.Tablets()}, true, nil
	}
	return nil, false, nil
}

func (b *Backend) cloneTablet(ctx context.Context, r rpc.CloneReq) (rpc.CloneResp, error) {
	var out rpc.CloneResp
	if r.Schema == nil {
		return out, sqlerr.Assertf("clone of tablet %d without a schema", r.Tablet)
	}
	cl, err := b.peer(r.Source)
	if err != nil {
		return out, err
	}
	s, err := cl.ReadClone(ctx, rpc.CloneRead{Tablet: r.Tablet, Version: r.Version, SchemaVersion: r.Schema.Version})
	if err != nil {
		return out, sqlerr.Doris.New(fmt.Sprintf("clone of tablet %d from backend %s: %s", r.Tablet, r.Source, rpc.Cause(err)))
	}
	defer s.Close()
	next := func() (arrow.Record, error) {
		rec, sum, err := s.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, sqlerr.Doris.New(fmt.Sprintf("clone of tablet %d from backend %s: %s", r.Tablet, r.Source, rpc.Cause(err)))
		}
		if got := RecordChecksum(rec); got != sum {
			rec.Release()
			return nil, sqlerr.Doris.New(fmt.Sprintf("clone of tablet %d from backend %s: batch %d arrived with checksum %d, sent with %d",
				r.Tablet, r.Source, out.Batches, got, sum))
		}
		out.Batches++
		out.Checksum += sum
		return rec, nil
	}
	st, err := b.store.InstallClone(r.Tablet, r.Schema, r.Version, next)
	if err != nil {
		return rpc.CloneResp{}, err
	}
	out.Rows, out.Bytes = st.Rows, st.Bytes
	return out, nil
}

// serveClone streams tablet rows at a version to a cloning backend.
func (b *Backend) serveClone(ctx context.Context, r rpc.CloneRead, stream flight.FlightService_DoGetServer) error {
	sc, err := b.store.Schema(r.Tablet)
	if err != nil {
		return rpc.ToStatus(err)
	}
	cols := make([]int, len(sc.Columns))
	for i := range cols {
		cols[i] = i
	}
	it, err := b.store.Scan(ctx, storage.ScanRequest{Tablet: r.Tablet, Version: r.Version, Columns: cols, SchemaVersion: r.SchemaVersion})
	if err != nil {
		return rpc.ToStatus(err)
	}
	defer it.Close()
	w := flight.NewRecordWriter(stream, ipc.WithSchema(types.ArrowSchema(sc.Columns)))
	for {
		rec, err := it.Next()
		if errors.Is(err, io.EOF) {
			return rpc.ToStatus(w.Close())
		}
		if err != nil {
			return rpc.ToStatus(err)
		}
		err = w.WriteWithAppMetadata(rec, []byte(strconv.FormatUint(RecordChecksum(rec), 10)))
		rec.Release()
		if err != nil {
			return rpc.ToStatus(err)
		}
	}
}

// tabletChecksum scans a replica at a version and sums its rows' hashes.
func (b *Backend) tabletChecksum(ctx context.Context, r rpc.ChecksumReq) (rpc.ChecksumResp, error) {
	var out rpc.ChecksumResp
	sc, err := b.store.Schema(r.Tablet)
	if err != nil {
		return out, err
	}
	cols := make([]int, len(sc.Columns))
	for i := range cols {
		cols[i] = i
	}
	it, err := b.store.Scan(ctx, storage.ScanRequest{Tablet: r.Tablet, Version: r.Version, Columns: cols})
	if err != nil {
		return out, err
	}
	defer it.Close()
	for {
		rec, err := it.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out.Rows += rec.NumRows()
		out.Checksum += RecordChecksum(rec)
		rec.Release()
	}
}

// RecordChecksum is the sum of the hashes of rec's rows (each row's
// columns hashed in order): the same rows give the same sum in any order
// or batching, so batch sums add up to a tablet's. Columns of types the
// shuffle hash does not take (binary, nested) hash their values' text.
func RecordChecksum(rec arrow.Record) uint64 {
	n := int(rec.NumRows())
	if n == 0 {
		return 0
	}
	hs := make([]uint64, n)
	for _, c := range rec.Columns() {
		if shuffleHashable(c.DataType()) {
			types.HashColumns([]arrow.Array{c}, hs)
			continue
		}
		h := fnv.New64a()
		for i := range hs {
			h.Reset()
			h.Write([]byte(c.ValueStr(i)))
			hs[i] = hs[i]*0x100000001B3 ^ h.Sum64()
		}
	}
	var sum uint64
	for _, h := range hs {
		sum += h*0x9E3779B97F4A7C15 + 1
	}
	return sum
}

// shuffleHashable lists the types types.HashColumns hashes.
func shuffleHashable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIMESTAMP,
		arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.STRING, arrow.NULL:
		return true
	}
	return false
}
