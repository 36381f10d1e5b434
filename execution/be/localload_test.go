package be

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

var localLoadCols = []types.Column{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.IntT, Nullable: true}}

func localLoadBatch(from, n int) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, types.ArrowSchema(localLoadCols))
	defer b.Release()
	for i := from; i < from+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Int32Builder).Append(int32(i % 7))
	}
	return b.NewRecord()
}

func openLocalLoadStore(t *testing.T) *storage.Store {
	t.Helper()
	s, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	for _, tab := range []storage.TabletID{1, 2} {
		if err := s.CreateTablet(tab, &storage.TabletSchema{Columns: localLoadCols, Keys: storage.DupKeys, NumKeys: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// scanSum is the row count and sum of k of a tablet at version v.
func scanSum(t *testing.T, s *storage.Store, tab storage.TabletID, v storage.Version) (rows, sum int64) {
	t.Helper()
	it, err := s.Scan(context.Background(), storage.ScanRequest{Tablet: tab, Version: v, Columns: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for {
		rec, err := it.Next()
		if errors.Is(err, io.EOF) {
			return rows, sum
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range rec.Column(0).(*array.Int64).Int64Values() {
			sum += x
		}
		rows += rec.NumRows()
		rec.Release()
	}
}

// A table sink's rows for its own backend's replicas go straight into the
// store: after Close every batch is there, in the transaction, and
// publishing makes them visible exactly once.
func TestLocalLoadWritesEveryBatch(t *testing.T) {
	s := openLocalLoadStore(t)
	l := newLocalLoad(s, 7, nil)
	want := map[storage.TabletID][2]int64{}
	for i := 0; i < 40; i++ { // more batches than the queue holds
		tab := storage.TabletID(1 + i%2)
		rec := localLoadBatch(i*1000, 1000)
		if err := l.Write(tab, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release() // the load holds its own reference until written
		w := want[tab]
		w[0] += 1000
		for k := i * 1000; k < i*1000+1000; k++ {
			w[1] += int64(k)
		}
		want[tab] = w
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := s.Prepare(7)
	if err != nil {
		t.Fatal(err)
	}
	if st[1].Rows != 20000 || st[2].Rows != 20000 {
		t.Fatalf("prepared rows %+v, want 20000 per tablet", st)
	}
	if err := s.Publish(7, map[storage.TabletID]storage.Version{1: 2, 2: 2}); err != nil {
		t.Fatal(err)
	}
	for tab, w := range want {
		if rows, sum := scanSum(t, s, tab, 2); rows != w[0] || sum != w[1] {
			t.Errorf("tablet %d: %d rows, sum %d; want %d, %d", tab, rows, sum, w[0], w[1])
		}
	}
}

// A write the store refuses fails the stream: later writes and Close
// return the store's error, naming the tablet.
func TestLocalLoadReportsStoreError(t *testing.T) {
	s := openLocalLoadStore(t)
	l := newLocalLoad(s, 8, nil)
	rec := localLoadBatch(0, 10)
	defer rec.Release()
	if err := l.Write(99, rec); err != nil { // queued; fails when written
		t.Fatal(err)
	}
	err := l.Close()
	if err == nil || !strings.Contains(err.Error(), "99") {
		t.Fatalf("Close after a write to a missing tablet: %v, want an error naming tablet 99", err)
	}
}

// Abort stops the writer and drops what is queued; the store holds no
// more than what was written before, and the transaction can be aborted.
func TestLocalLoadAbort(t *testing.T) {
	s := openLocalLoadStore(t)
	l := newLocalLoad(s, 9, nil)
	for i := 0; i < 5; i++ {
		rec := localLoadBatch(i*10, 10)
		if err := l.Write(1, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	l.Abort()
	rec := localLoadBatch(0, 10)
	defer rec.Release()
	if err := l.Write(1, rec); err == nil {
		t.Fatal("Write after Abort succeeded")
	}
	if err := s.Abort(9); err != nil {
		t.Fatal(err)
	}
	if rows, _ := scanSum(t, s, 1, 2); rows != 0 {
		t.Fatalf("aborted load left %d rows", rows)
	}
}
