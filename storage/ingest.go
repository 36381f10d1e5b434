package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Big rowsets bypass Pebble's write path (batch copy, WAL, memtable,
// flush): their segments are written straight into an sstable which is then
// ingested, as Doris writes segment files directly. A rowset's data keys
// are a fresh key range, so the file overlaps nothing and Pebble places it
// in the bottom level without rewriting it.
//
// Crash contract (same as the batch path): ingested data keys always lie
// under a durable marker ('P' or 'C') that recovery finds, and files not yet
// ingested live in ingestDirName, which Open empties. Normally the marker is
// synced before a file is ingested. Prepare saves that sync: it finishes
// every file of the transaction, syncs the prepared markers in one batch and
// then ingests all files at once (atomically); a crash in between leaves
// prepared markers whose last segment is missing, and recovery discards
// those rowsets like unprepared ones (the FE never saw the Prepare succeed).

// ingestDirName is the subdirectory of the store holding sstables being
// built; Pebble links them into its own directory when ingesting.
const ingestDirName = "ingest-tmp"

// ingestMinCells is the segment size (rows × columns) from which a rowset
// writes segments into an sstable instead of a batch: small INSERTs would
// otherwise pay several fsyncs and leave a tiny file each.
const ingestMinCells = 64 << 10

// ingestFileBytes bounds one ingested sstable; a rowset bigger than this
// is ingested in several files as it is written.
const ingestFileBytes = 256 << 20

// fileEndSeg is the segment and tag of the end key of each ingested file.
const fileEndSeg = math.MaxUint32

// ingester holds what rowset writers need to build ingestible sstables.
type ingester struct {
	fs   vfs.FS
	dir  string
	opts sstable.WriterOptions
	// bytesPerSync starts the kernel's writeback of a file being built
	// every so many bytes (as Pebble does for its own sstables), so that
	// the fsync at its close waits for the tail only, not the whole file.
	bytesPerSync int
}

// initIngest prepares the sstable directory, dropping files a crash left
// behind (never ingested, so no key refers to them).
func (s *Store) initIngest(dir string, o Options) error {
	po := pebbleOptions(o, 0)
	po.EnsureDefaults()
	s.ing = ingester{
		fs:           po.FS,
		dir:          filepath.Join(dir, ingestDirName),
		opts:         po.MakeWriterOptions(len(po.Levels)-1, s.db.TableFormat()),
		bytesPerSync: po.BytesPerSync,
	}
	// Every column value is a block of its own anyway; tiny blocks also
	// give each segment's meta key, and the file's end key, blocks of
	// their own, so reading those (Ingest reads a file's first and last
	// key; scans read segment metas) does not read a whole column.
	s.ing.opts.BlockSize = 64
	if err := s.ing.fs.RemoveAll(s.ing.dir); err != nil {
		return fmt.Errorf("storage: clear %s: %w", s.ing.dir, err)
	}
	return s.ing.fs.MkdirAll(s.ing.dir, 0o755)
}

// segFile is an sstable being filled with one rowset's segments.
type segFile struct {
	path string
	w    *sstable.Writer
}

// openSegFile creates the next sstable of w's rowset.
func (w *rowsetWriter) openSegFile() error {
	ing := &w.s.ing
	w.files++
	path := ing.fs.PathJoin(ing.dir, fmt.Sprintf("%d-%d-%d.sst", w.tab.id, w.id, w.files))
	f, err := ing.fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	f = vfs.NewSyncingFile(f, vfs.SyncingFileOptions{BytesPerSync: ing.bytesPerSync})
	w.sst = &segFile{path: path, w: sstable.NewWriter(objstorageprovider.NewFileWritable(f), ing.opts)}
	return nil
}

// closeSegFile finishes the open sstable (fsyncing it) and returns its
// path ("" if none was open). Caller holds w.mu.
func (w *rowsetWriter) closeSegFile() (string, error) {
	f := w.sst
	if f == nil {
		return "", nil
	}
	w.sst, w.fileBytes = nil, 0
	// A last, empty key (scans never ask for it) keeps the last block small.
	var key [25]byte
	err := f.w.Set(appendDataKey(key[:0], w.tab.id, w.id, fileEndSeg, fileEndSeg), nil)
	if err = errors.Join(err, f.w.Close()); err != nil {
		_ = w.s.ing.fs.Remove(f.path)
		return "", err
	}
	return f.path, nil
}

// ingest makes sure the marker is durable, then ingests the finished
// sstable at path (Pebble removes it from the ingest directory). Caller
// holds w.mu.
func (w *rowsetWriter) ingest(path string) error {
	if !w.markerSynced {
		if err := w.s.db.Set(w.marker, w.markerValue(), pebble.Sync); err != nil {
			_ = w.s.ing.fs.Remove(path)
			return err
		}
		w.markerSynced = true
	}
	return w.s.db.Ingest(context.Background(), []string{path})
}

// dropSegFile discards the open sstable (abort, drop, close).
func (w *rowsetWriter) dropSegFile() {
	if w.sst == nil {
		return
	}
	_ = w.sst.w.Close()
	_ = w.s.ing.fs.Remove(w.sst.path)
	w.sst = nil
}
