package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Options configures Open and OpenMeta.
type Options struct {
	// FS is the filesystem; nil means the real disk (vfs.Default). Tests
	// pass vfs.NewCrashableMem() and reopen its CrashClone.
	FS vfs.FS
	// Predicates compiles delete conditions (delete.go); a store without
	// it refuses them.
	Predicates Compiler
}

// blockCache is the process's one Pebble block cache: every store (the
// embedded backends, tests' stores) shares it, so SetBlockCacheBytes bounds
// the process. Its memory is allocated outside the Go heap as blocks are
// read, so it neither inflates GC work nor costs anything until used.
var blockCache struct {
	once  sync.Once
	size  int64
	cache *pebble.Cache
}

// DefaultBlockCacheBytes is the block cache without SetBlockCacheBytes.
// It holds Pebble's index blocks and the columns the column cache missed;
// decoded columns live in the column cache (colcache.go).
const DefaultBlockCacheBytes = 64 << 20

// SetBlockCacheBytes sizes the process's block cache; it only takes effect
// before the first store opens.
func SetBlockCacheBytes(n int64) { blockCache.size = n }

func sharedBlockCache() *pebble.Cache {
	blockCache.once.Do(func() {
		n := blockCache.size
		if n <= 0 {
			n = DefaultBlockCacheBytes
		}
		blockCache.cache = pebble.NewCache(n) // its one reference lives as long as the process
	})
	return blockCache.cache
}

// RowsetStats is what Prepare reports per tablet of a transaction.
type RowsetStats struct {
	Rows, Bytes int64
}

// TabletStats describes a tablet at a version (rows before UNIQUE/AGG merging).
type TabletStats struct {
	Rows, Bytes int64
	Rowsets     int
}

// compactAfter is the visible-rowset count above which Publish queues a
// background compaction (many single-row INSERTs otherwise make every scan
// open hundreds of rowsets).
const compactAfter = 8

// defaultStaleGrace is how long compacted-away rowsets are kept so that scans
// at versions older than a compaction stay correct; it matches the default
// query_timeout (900 s).
const defaultStaleGrace = 15 * time.Minute

// Store is one backend's tablet storage: a Pebble database holding tablet
// schemas, rowsets, their columnar segments and pending load data.
type Store struct {
	id  uint64 // distinguishes this store's entries in the process's column cache
	db  *pebble.DB
	ing ingester // builds sstables of big rowsets (ingest.go)

	mu      sync.Mutex // guards tablets, pending
	tablets map[TabletID]*tablet
	pending map[TxnID]map[TabletID]*rowsetWriter

	nextRowset atomic.Int64

	// commitMu serializes changes of the visible rowset set (Publish,
	// compaction install, stale GC, DropTablet, Abort) and guards staleSince.
	commitMu   sync.Mutex
	staleSince map[rowsetID]time.Time
	staleGrace time.Duration
	// compactedTo[t]: stale inputs of compaction outputs ending at this
	// version were deleted, so a scan of t at an older version would miss
	// rows; it fails instead (Doris's "versions are already compacted").
	// Guarded by mu; in memory only, since no scan outlives a restart.
	compactedTo map[TabletID]Version

	// compiler and the compiled delete conditions by encoding and columns.
	compiler Compiler
	predMu   sync.Mutex
	preds    map[predKey]compiledCond
	decoded  map[string]DeleteCond // delete conditions by their JSON (predMu)
	// foldRows is foldDeletes' threshold (defaultFoldRows; tests lower it).
	foldRows int64

	// metas caches decoded segment metas for scans (segmeta.go).
	metas segMetaCache

	compactCh chan TabletID
	// reclaim.go: dropped tablets whose disk the background loop frees.
	reclaimMu  sync.Mutex
	reclaimIDs []TabletID
	reclaimCh  chan struct{}
	stop       chan struct{}
	wg         sync.WaitGroup
	closeOnce  sync.Once

	// Counters for tests and metrics.
	segmentsRead, segmentsPruned atomic.Int64
	rowsDeleted                  atomic.Int64 // rows delete conditions dropped at read
	colHits, colMisses           atomic.Int64 // column cache lookups by this store's scans
	lastBgErr                    atomic.Pointer[error]
	onCompacted                  func(TabletID) // test hook, set before the first Publish
	beforeInstall                func(TabletID) // test hook: a compaction wrote its output
}

type tablet struct {
	id        TabletID
	schema    *TabletSchema
	compactMu sync.Mutex // one compaction per tablet at a time
	published int        // publishes since the last compaction (under Store.mu)
	queued    bool       // in compactCh (under Store.mu)
	dropped   bool       // under Store.mu
}

// quietLogger drops Pebble's informational chatter but keeps errors.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}
func (quietLogger) Errorf(format string, args ...any) {
	pebble.DefaultLogger.Errorf(format, args...)
}
func (quietLogger) Fatalf(format string, args ...any) {
	pebble.DefaultLogger.Fatalf(format, args...)
}

func pebbleOptions(o Options, memtable uint64) *pebble.Options {
	fs := o.FS
	if fs == nil {
		fs = vfs.Default
	}
	po := &pebble.Options{FS: fs, Logger: quietLogger{}, MemTableSize: memtable, MemTableStopWritesThreshold: 4, Cache: sharedBlockCache()}
	// Segment columns are written once and read by every scan: block
	// compression cost more CPU than anything else on the scan path
	// (decompressing every column of every segment on every query) and a
	// third of the load path, for a disk saving dorisgo does not need.
	po.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionNone })
	return po
}

// Open opens (creating if needed) the store in dir and recovers its state:
// unprepared pending rowsets and interrupted compactions are discarded.
func Open(dir string, opts Options) (*Store, error) {
	db, err := pebble.Open(dir, pebbleOptions(opts, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	s := &Store{
		id:         nextStoreID.Add(1),
		db:         db,
		tablets:    map[TabletID]*tablet{},
		pending:    map[TxnID]map[TabletID]*rowsetWriter{},
		staleSince: map[rowsetID]time.Time{}, compactedTo: map[TabletID]Version{},
		staleGrace: defaultStaleGrace,
		compiler:   opts.Predicates,
		preds:      map[predKey]compiledCond{},
		decoded:    map[string]DeleteCond{},
		foldRows:   defaultFoldRows,
		compactCh:  make(chan TabletID, 1024),
		reclaimCh:  make(chan struct{}, 1),
		stop:       make(chan struct{}),
	}
	if err := s.initIngest(dir, opts); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := s.recover(); err != nil {
		_ = db.Close()
		return nil, err
	}
	s.wg.Add(1)
	go s.background()
	return s, nil
}

func (s *Store) recover() error {
	var maxID rowsetID
	b := s.db.NewBatch()
	defer b.Close()
	err := scanPrefix(s.db, []byte{pfxSchema}, func(k, v []byte) error {
		var sc TabletSchema
		if err := json.Unmarshal(v, &sc); err != nil {
			return err
		}
		restoreSchema(&sc)
		id := TabletID(getID(k[1:]))
		s.tablets[id] = &tablet{id: id, schema: &sc}
		return nil
	})
	if err != nil {
		return err
	}
	err = scanPrefix(s.db, []byte{pfxRowset}, func(k, v []byte) error {
		m, err := decodeRowsetMeta(k, v)
		maxID = max(maxID, m.ID)
		return err
	})
	if err != nil {
		return err
	}
	err = scanPrefix(s.db, []byte{pfxCompact}, func(k, v []byte) error {
		t, id, err := decodeCompactKey(k)
		maxID = max(maxID, id)
		deleteRowsetData(b, t, id)
		_ = b.Delete(k, nil)
		return err
	})
	if err != nil {
		return err
	}
	err = scanPrefix(s.db, []byte{pfxPending}, func(k, v []byte) error {
		txn, t, err := decodePendingKey(k)
		if err != nil {
			return err
		}
		m, err := decodePendingMeta(v)
		if err != nil {
			return err
		}
		maxID = max(maxID, m.ID)
		tab := s.tablets[t]
		if m.Prepared && tab != nil && m.Segs > 0 {
			// A crash inside Prepare, between its synced markers and
			// the ingestion of its files, leaves the last segment
			// missing (ingest.go): the rowset is not prepared after all.
			if _, c, err := s.db.Get(dataKey(t, m.ID, m.Segs-1, segMetaTag)); err == nil {
				_ = c.Close()
			} else if errors.Is(err, pebble.ErrNotFound) {
				m.Prepared = false
			} else {
				return err
			}
		}
		if !m.Prepared || tab == nil {
			deleteRowsetData(b, t, m.ID)
			return b.Delete(k, nil)
		}
		w := newRowsetWriter(s, tab, tab.schema, m.ID, slices.Clone(k))
		w.segs, w.rows, w.bytes, w.prepped, w.markerSynced = m.Segs, m.Rows, m.Bytes, true, true
		w.cols = m.Cols // nil: written before column ids, in the original layout
		w.del = m.Delete
		if m.Partial != nil {
			w.partial, w.base = m.Partial, map[rowsetID]bool{}
			for _, id := range m.Base {
				w.base[id] = true
			}
		}
		if s.pending[txn] == nil {
			s.pending[txn] = map[TabletID]*rowsetWriter{}
		}
		s.pending[txn][t] = w
		return nil
	})
	if err != nil {
		return err
	}
	s.nextRowset.Store(int64(maxID))
	now := time.Now()
	for id := range s.tablets {
		all, err := readRowsets(s.db, id)
		if err != nil {
			return err
		}
		for _, m := range staleRowsets(all) {
			s.staleSince[m.ID] = now
		}
	}
	if b.Empty() {
		return nil
	}
	return b.Commit(pebble.Sync)
}

// Close stops background compaction and closes the database. Pending
// unprepared writes are lost, as after a crash.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.stop)
		s.wg.Wait()
		s.mu.Lock()
		for _, ws := range s.pending {
			for _, w := range ws {
				w.mu.Lock()
				w.release()
				w.mu.Unlock()
			}
		}
		s.mu.Unlock()
		err = s.db.Close()
	})
	return err
}

func errNoTablet(id TabletID) error {
	return sqlerr.Doris.New(fmt.Sprintf("tablet %d does not exist", id))
}

func (s *Store) tablet(id TabletID) (*tablet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tablets[id]
	if t == nil {
		return nil, errNoTablet(id)
	}
	return t, nil
}

// CreateTablet persists (synced) a tablet's schema. Creating an existing
// tablet is a no-op.
func (s *Store) CreateTablet(id TabletID, schema *TabletSchema) error {
	return s.CreateTablets([]TabletID{id}, schema)
}

// CreateTablets persists the schema of every tablet of ids in one synced
// batch (a table's replicas on this backend: one fsync, not one per
// tablet). Tablets that exist already are left as they are.
func (s *Store) CreateTablets(ids []TabletID, schema *TabletSchema) error {
	if err := validateSchema(schema); err != nil {
		return err
	}
	sc := schema.clone()
	restoreSchema(sc)
	sc.ColumnIDs = sc.ids()
	v, err := encodeSchema(sc)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.db.NewBatch()
	defer b.Close()
	var created []TabletID
	for _, id := range ids {
		if s.tablets[id] != nil || slices.Contains(created, id) {
			continue
		}
		if err := b.Set(schemaKey(id), v, nil); err != nil {
			return err
		}
		created = append(created, id)
	}
	if len(created) == 0 {
		return nil
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return err
	}
	for _, id := range created {
		s.tablets[id] = &tablet{id: id, schema: sc}
	}
	return nil
}

func validateSchema(sc *TabletSchema) error {
	if sc == nil || len(sc.Columns) == 0 {
		return sqlerr.Assertf("storage: tablet schema without columns")
	}
	if sc.NumKeys < 0 || sc.NumKeys > len(sc.Columns) {
		return sqlerr.Assertf("storage: NumKeys %d out of range", sc.NumKeys)
	}
	if sc.Keys != DupKeys && sc.NumKeys == 0 {
		return sqlerr.Assertf("storage: %s KEY tablet without key columns", sc.Keys)
	}
	if sc.Keys == AggKeys && len(sc.Agg) != 0 && len(sc.Agg) != len(sc.Columns) {
		return sqlerr.Assertf("storage: Agg has %d entries for %d columns", len(sc.Agg), len(sc.Columns))
	}
	if sc.ColumnIDs != nil && len(sc.ColumnIDs) != len(sc.Columns) {
		return sqlerr.Assertf("storage: %d column ids for %d columns", len(sc.ColumnIDs), len(sc.Columns))
	}
	if len(sc.Defaults) > len(sc.Columns) {
		return sqlerr.Assertf("storage: %d defaults for %d columns", len(sc.Defaults), len(sc.Columns))
	}
	seen := map[int32]bool{}
	for i := range sc.Columns {
		id := sc.ColumnID(i)
		if seen[id] {
			return sqlerr.Assertf("storage: column id %d appears twice", id)
		}
		seen[id] = true
	}
	return nil
}

// DropTablet removes the tablet's schema, rowsets, data and pending rowsets.
func (s *Store) DropTablet(id TabletID) error {
	return s.DropTablets([]TabletID{id})
}

// DropTablets removes the schema, rowsets, data and pending rowsets of
// every tablet of ids in one synced batch.
func (s *Store) DropTablets(ids []TabletID) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	b := s.db.NewBatch()
	defer b.Close()
	s.mu.Lock()
	for _, id := range ids {
		s.dropLocked(b, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		for _, p := range []byte{pfxSchema, pfxRowset, pfxData, pfxCompact, pfxBitmap} {
			pre := tabletPrefix(p, id)
			if err := b.DeleteRange(pre, prefixEnd(pre), nil); err != nil {
				return err
			}
		}
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return err
	}
	for _, id := range ids {
		s.queueReclaim(id)
	}
	return nil
}

// dropLocked forgets tablet id and its pending writers, adding the
// deletion of their markers to b. Caller holds s.mu.
func (s *Store) dropLocked(b *pebble.Batch, id TabletID) {
	t := s.tablets[id]
	delete(s.tablets, id)
	if t != nil {
		t.dropped = true
	}
	for txn, ws := range s.pending {
		if w := ws[id]; w != nil {
			w.mu.Lock()
			w.release()
			w.mu.Unlock()
			_ = b.Delete(w.marker, nil)
			delete(ws, id)
			if len(ws) == 0 {
				delete(s.pending, txn)
			}
		}
	}
}

// Tablets lists the tablets of the store in id order.
func (s *Store) Tablets() []TabletID {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]TabletID, 0, len(s.tablets))
	for id := range s.tablets {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Schema returns the tablet's schema (shared: do not modify).
func (s *Store) Schema(id TabletID) (*TabletSchema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tablets[id]
	if t == nil {
		return nil, errNoTablet(id)
	}
	return t.schema, nil
}

// Write adds rec (every schema column, in schema order) to the pending
// rowset of (txn, tablet). Nothing is synced; rows are buffered until a full
// segment accumulates or Prepare/Publish flushes them.
func (s *Store) Write(txn TxnID, tab TabletID, rec arrow.Record) error {
	return s.write(txn, tab, rec, nil)
}

// write is Write; note, if set, runs under the writer's lock before rec
// is added (a partial update records what it filled from).
func (s *Store) write(txn TxnID, tab TabletID, rec arrow.Record, note func(*rowsetWriter)) error {
	s.mu.Lock()
	t := s.tablets[tab]
	if t == nil {
		s.mu.Unlock()
		return errNoTablet(tab)
	}
	sc := t.schema
	if w := s.pending[txn][tab]; w != nil {
		sc = w.schema // the load finishes under the schema it began with
	}
	if err := checkRecord(tab, sc, rec); err != nil {
		s.mu.Unlock()
		return err
	}
	w := s.pendingWriterLocked(txn, t, tab)
	s.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return sqlerr.Doris.New(fmt.Sprintf("transaction %d on tablet %d is already finished", txn, tab))
	}
	if w.del != nil {
		return sqlerr.Assertf("storage: transaction %d both deletes from and loads tablet %d", txn, tab)
	}
	if note != nil {
		note(w)
	}
	return w.add(rec)
}

// pendingWriterLocked returns the pending rowset writer of (txn, tab),
// making it the first time. Caller holds s.mu.
func (s *Store) pendingWriterLocked(txn TxnID, t *tablet, tab TabletID) *rowsetWriter {
	ws := s.pending[txn]
	if ws == nil {
		ws = map[TabletID]*rowsetWriter{}
		s.pending[txn] = ws
	}
	w := ws[tab]
	if w == nil {
		w = newRowsetWriter(s, t, t.schema, rowsetID(s.nextRowset.Add(1)), pendingKey(txn, tab))
		ws[tab] = w
	}
	return w
}

// writers returns the pending writers of txn (nil if none).
func (s *Store) writers(txn TxnID) map[TabletID]*rowsetWriter {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps(s.pending[txn])
}

func maps(m map[TabletID]*rowsetWriter) map[TabletID]*rowsetWriter {
	out := make(map[TabletID]*rowsetWriter, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Prepare makes the pending data of txn durable (fsync) and reports the rows
// and bytes written per tablet. Writes after Prepare need another Prepare.
func (s *Store) Prepare(txn TxnID) (map[TabletID]RowsetStats, error) {
	ws := s.writers(txn)
	paths, err := finishAll(ws)
	if err == nil {
		var out map[TabletID]RowsetStats
		if out, err = s.prepare(ws, paths); err == nil {
			return out, nil
		}
	}
	for _, p := range paths { // not ingested
		_ = s.ing.fs.Remove(p)
	}
	return nil, err
}

// prepare syncs the prepared markers of ws, then ingests paths.
func (s *Store) prepare(ws map[TabletID]*rowsetWriter, paths []string) (map[TabletID]RowsetStats, error) {
	out := make(map[TabletID]RowsetStats, len(ws))
	b := s.db.NewBatch()
	defer b.Close()
	for id, w := range ws {
		w.mu.Lock()
		var err error
		if !w.done {
			w.prepped = true
			err = b.Set(w.marker, w.pendingMeta().encode(), nil)
		}
		out[id] = RowsetStats{Rows: w.rows, Bytes: w.bytes}
		w.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	// Also syncs the unsynced segment batches written before it.
	if err := b.LogData(nil, nil); err != nil {
		return nil, err
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return nil, err
	}
	for _, w := range ws {
		w.mu.Lock()
		w.markerSynced = true
		w.mu.Unlock()
	}
	if len(paths) == 0 {
		return out, nil
	}
	// The prepared markers are durable before their last segments: see
	// ingest.go for why recovery copes with a crash right here.
	if err := s.db.Ingest(context.Background(), paths); err != nil {
		return nil, err
	}
	return out, nil
}

// finishAll finishes the writers' last segments and files, several at a
// time (encoding them is most of a Prepare's work), and returns the files
// to ingest.
func finishAll(ws map[TabletID]*rowsetWriter) ([]string, error) {
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	type result struct {
		path string
		err  error
	}
	res := make(chan result, len(ws))
	for _, w := range ws {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			w.mu.Lock()
			defer w.mu.Unlock()
			path, err := w.finish()
			res <- result{path, err}
		}()
	}
	var paths []string
	var err error
	for range ws {
		r := <-res
		err = errors.Join(err, r.err)
		if r.path != "" {
			paths = append(paths, r.path)
		}
	}
	return paths, err
}

// Publish makes the pending rowsets of txn visible at the given versions in
// one synced batch. Tablets without pending data are skipped; publishing an
// already published transaction is a no-op.
func (s *Store) Publish(txn TxnID, versions map[TabletID]Version) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	ws := s.writers(txn)
	b := s.db.NewBatch()
	defer b.Close()
	var done []TabletID
	for id, v := range versions {
		w := ws[id]
		if w == nil {
			continue
		}
		sc, _ := s.Schema(id) // before w.mu: DropTablet locks mu, then w.mu
		w.mu.Lock()
		err := w.flush()
		if err == nil && !w.done && w.partial != nil && w.segs > 0 && sc != nil {
			err = s.refillPartial(w, v)
		}
		if err == nil && !w.done {
			m := rowsetMeta{ID: w.id, Start: v, End: v, Txn: txn, Segs: w.segs, Rows: w.rows, Bytes: w.bytes, Cols: w.cols}
			if w.del != nil {
				m.Deletes = []rowsetDelete{{Version: v, Cond: w.del}}
			}
			if w.schema.mergeOnWrite() && w.segs > 0 && sc != nil {
				var marks map[segID]*roaring.Bitmap
				if marks, err = s.publishMarks(w, sc, v); err == nil {
					err = putBitmaps(b, id, marks, v)
				}
			}
			err = errors.Join(err, b.Delete(w.marker, nil), b.Set(rowsetKey(id, v, w.id), m.encode(), nil))
			done = append(done, id)
		}
		w.mu.Unlock()
		if err != nil {
			return err
		}
	}
	if len(done) == 0 {
		return nil
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return err
	}
	s.mu.Lock()
	for _, id := range done {
		w := ws[id]
		w.mu.Lock()
		w.release()
		w.mu.Unlock()
		delete(s.pending[txn], id)
		if t := s.tablets[id]; t != nil {
			t.published++
			if t.published > compactAfter && !t.queued {
				select {
				case s.compactCh <- id:
					t.queued = true
				default:
				}
			}
		}
	}
	if len(s.pending[txn]) == 0 {
		delete(s.pending, txn)
	}
	s.mu.Unlock()
	return nil
}

// Abort drops the pending data of txn.
func (s *Store) Abort(txn TxnID) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.mu.Lock()
	ws := s.pending[txn]
	delete(s.pending, txn)
	s.mu.Unlock()
	b := s.db.NewBatch()
	defer b.Close()
	for id, w := range ws {
		w.mu.Lock()
		w.release()
		w.mu.Unlock()
		deleteRowsetData(b, id, w.id)
		_ = b.Delete(w.marker, nil)
	}
	if b.Empty() {
		return nil
	}
	return b.Commit(pebble.Sync)
}

// PendingTxns lists the transactions with pending (unpublished) data, for
// the FE to publish or abort after a restart.
func (s *Store) PendingTxns() ([]TxnID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]TxnID, 0, len(s.pending))
	for txn, ws := range s.pending {
		if len(ws) > 0 {
			out = append(out, txn)
		}
	}
	slices.Sort(out)
	return out, nil
}

func deleteRowsetData(b *pebble.Batch, t TabletID, id rowsetID) {
	pre := rowsetDataPrefix(t, id)
	_ = b.DeleteRange(pre, prefixEnd(pre), nil)
}

// iterSource is what both *pebble.DB and *pebble.Snapshot offer.
type iterSource interface {
	NewIter(*pebble.IterOptions) (*pebble.Iterator, error)
}

// scanPrefix calls fn for every key with the prefix (values valid only during fn).
func scanPrefix(r iterSource, prefix []byte, fn func(k, v []byte) error) error {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return err
		}
		if err := fn(it.Key(), v); err != nil {
			_ = it.Close()
			return err
		}
	}
	return errors.Join(it.Error(), it.Close())
}
