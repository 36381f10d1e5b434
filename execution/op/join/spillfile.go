package join

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// maxSpillDepth bounds recursive re-partitioning: 32^4 partitions
// split anything that is not one key.
const maxSpillDepth = 4

// spillStats accumulates SpillStats; one is shared by a join and the
// per-partition joins it runs.
type spillStats struct {
	partitions, bytes, writeNs, readNs atomic.Int64
	depth                              atomic.Int32 // deepest level that spilled (0: the join itself)
}

func (s *spillStats) get() op.SpillStats {
	if s == nil {
		return op.SpillStats{}
	}
	return op.SpillStats{Partitions: s.partitions.Load(), Bytes: s.bytes.Load(), WriteNs: s.writeNs.Load(), ReadNs: s.readNs.Load()}
}

// reached records that a join of partitioning level spilled.
func (s *spillStats) reached(level int) {
	for d := s.depth.Load(); int32(level) > d && !s.depth.CompareAndSwap(d, int32(level)); d = s.depth.Load() {
	}
}

// spillDir is one operator's spill directory, created on first use and
// removed (with anything left in it) by remove.
type spillDir struct {
	base string
	mu   sync.Mutex
	path string
	n    int
}

func (d *spillDir) create(name string) (*os.File, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" {
		base := d.base
		if base == "" {
			base = os.TempDir()
		}
		if err := os.MkdirAll(base, 0o755); err != nil {
			return nil, sqlerr.Doris.New(fmt.Sprintf("spill directory %s: %v", base, err))
		}
		p, err := os.MkdirTemp(base, "join-")
		if err != nil {
			return nil, sqlerr.Doris.New(fmt.Sprintf("spill directory under %s: %v", base, err))
		}
		d.path = p
	}
	d.n++
	f, err := os.Create(filepath.Join(d.path, fmt.Sprintf("%s-%d.arrow", name, d.n)))
	if err != nil {
		return nil, sqlerr.Doris.New(fmt.Sprintf("spill file: %v", err))
	}
	return f, nil
}

func (d *spillDir) remove() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path != "" {
		os.RemoveAll(d.path)
		d.path = ""
	}
}

// spillFile is one partition's rows, written as an Arrow IPC stream and
// read back once (the reader deletes it).
type spillFile struct {
	f     *os.File
	buf   *bufio.Writer
	cw    countWriter
	w     *ipc.Writer
	rows  int64
	stats *spillStats
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func newSpillFile(d *spillDir, name string, sc *arrow.Schema, mem memory.Allocator, stats *spillStats) (*spillFile, error) {
	f, err := d.create(name)
	if err != nil {
		return nil, err
	}
	s := &spillFile{f: f, buf: bufio.NewWriterSize(f, 1<<16), stats: stats}
	s.cw.w = s.buf
	s.w = ipc.NewWriter(&s.cw, ipc.WithSchema(sc), ipc.WithAllocator(mem))
	return s, nil
}

func (s *spillFile) write(rec arrow.Record) error {
	start := time.Now()
	before := s.cw.n
	err := s.w.Write(rec)
	s.stats.writeNs.Add(int64(time.Since(start)))
	s.stats.bytes.Add(s.cw.n - before)
	if err != nil {
		return sqlerr.Doris.New(fmt.Sprintf("writing spill file %s: %v", s.f.Name(), err))
	}
	s.rows += rec.NumRows()
	return nil
}

// finish ends the stream and rewinds the file for reading.
func (s *spillFile) finish() error {
	start := time.Now()
	defer func() { s.stats.writeNs.Add(int64(time.Since(start))) }()
	before := s.cw.n
	err := s.w.Close()
	s.stats.bytes.Add(s.cw.n - before)
	if err == nil {
		err = s.buf.Flush()
	}
	if err == nil {
		_, err = s.f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return sqlerr.Doris.New(fmt.Sprintf("writing spill file %s: %v", s.f.Name(), err))
	}
	return nil
}

// discard closes and deletes the file unread.
func (s *spillFile) discard() {
	if s == nil || s.f == nil {
		return
	}
	s.f.Close()
	os.Remove(s.f.Name())
	s.f = nil
}

// spillReader replays a finished spillFile as an operator; Close deletes it.
type spillReader struct {
	file  *spillFile
	sc    *arrow.Schema
	mem   memory.Allocator
	r     *ipc.Reader
	stats *spillStats
}

func newSpillReader(f *spillFile, sc *arrow.Schema, mem memory.Allocator) *spillReader {
	return &spillReader{file: f, sc: sc, mem: mem, stats: f.stats}
}

func (r *spillReader) Schema() *arrow.Schema { return r.sc }

func (r *spillReader) Next(ctx context.Context) (arrow.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.file == nil || r.file.f == nil {
		return nil, io.EOF
	}
	start := time.Now()
	defer func() { r.stats.readNs.Add(int64(time.Since(start))) }()
	if r.r == nil {
		rd, err := ipc.NewReader(bufio.NewReaderSize(r.file.f, 1<<16), ipc.WithAllocator(r.mem))
		if err != nil {
			return nil, sqlerr.Doris.New(fmt.Sprintf("reading spill file %s: %v", r.file.f.Name(), err))
		}
		r.r = rd
	}
	for r.r.Next() {
		rec := r.r.Record()
		if rec.NumRows() == 0 {
			continue
		}
		// The reader reuses its record: this one keeps the columns under
		// the operator's own schema.
		return array.NewRecord(r.sc, rec.Columns(), rec.NumRows()), nil
	}
	if err := r.r.Err(); err != nil && err != io.EOF {
		return nil, sqlerr.Doris.New(fmt.Sprintf("reading spill file %s: %v", r.file.f.Name(), err))
	}
	return nil, io.EOF
}

func (r *spillReader) Close() {
	if r.r != nil {
		r.r.Release()
		r.r = nil
	}
	r.file.discard()
}
