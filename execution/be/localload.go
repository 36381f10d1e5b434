package be

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

var errLocalLoadAborted = sqlerr.Doris.New("load stream to this backend was aborted")

// loadStream is a table sink's stream of one transaction's rows to one
// replica backend: an rpc.Loader, or a localLoad when the replica is on
// the sink's own backend.
type loadStream interface {
	Write(tablet storage.TabletID, rec arrow.Record) error
	Close() error
	Abort()
}

// localLoad writes a table sink's rows into this backend's own store, as
// DoPut would after the round trip through IPC encoding and the loopback
// socket that it saves: the same Store.Write (or WritePartial), in the
// order the sink wrote, by a goroutine of its own so that the sink keeps
// converting and routing the next batch meanwhile (as with an
// rpc.Loader's queue). Close returns once every queued batch is in the
// store, which is what a remote backend's acknowledgement means.
type localLoad struct {
	store   *storage.Store
	txn     storage.TxnID
	partial *storage.PartialUpdate
	queue   chan localItem
	stop    chan struct{} // closed by Abort
	failed  chan struct{} // closed on the first write error (err)
	done    chan struct{} // closed when the writer has stopped
	once    sync.Once
	err     error
}

type localItem struct {
	tablet storage.TabletID
	rec    arrow.Record
}

// localLoadQueue is how many batches a localLoad holds before Write blocks
// (the same depth as an rpc.Loader's queue).
const localLoadQueue = 8

func newLocalLoad(store *storage.Store, txn storage.TxnID, partial *storage.PartialUpdate) *localLoad {
	l := &localLoad{store: store, txn: txn, partial: partial, queue: make(chan localItem, localLoadQueue),
		stop: make(chan struct{}), failed: make(chan struct{}), done: make(chan struct{})}
	go l.run()
	return l
}

func (l *localLoad) run() {
	defer close(l.done)
	for {
		select {
		case it, ok := <-l.queue:
			if !ok {
				return
			}
			if l.err == nil {
				var err error
				if l.partial != nil {
					err = l.store.WritePartial(l.txn, it.tablet, it.rec, *l.partial)
				} else {
					err = l.store.Write(l.txn, it.tablet, it.rec)
				}
				if err != nil {
					l.err = err
					close(l.failed)
				}
			}
			it.rec.Release()
		case <-l.stop:
			// Aborted: what is still queued is dropped (the
			// transaction's abort discards what reached the store).
			for {
				select {
				case it := <-l.queue:
					it.rec.Release()
				default:
					return
				}
			}
		}
	}
}

// Write queues rows for one tablet (rec is retained until written).
func (l *localLoad) Write(tablet storage.TabletID, rec arrow.Record) error {
	select {
	case <-l.stop:
		return errLocalLoadAborted
	default:
	}
	rec.Retain()
	select {
	case l.queue <- localItem{tablet, rec}:
		return nil
	case <-l.failed:
		rec.Release()
		return l.err
	case <-l.stop:
		rec.Release()
		return errLocalLoadAborted
	}
}

// Close waits until every queued batch is written and returns the first
// write error.
func (l *localLoad) Close() error {
	close(l.queue)
	<-l.done
	return l.err
}

// Abort stops writing and drops what is queued.
func (l *localLoad) Abort() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}
