package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Running a schema change job. Loads that commit while it runs are not
// double-written into the shadow tablets as Doris does: that would put a
// second sink into every load path (INSERT, stream load, DELETE, UPDATE,
// 2PC) and the exchange/sink code. Nor can the versions that arrived be
// converted alone: storage reads a tablet as of a version, not a range of
// versions, and compaction merges rowsets across versions (a DELETE's
// predicate applies to all the older rows too). Instead the job converges: each round
// converts, as of one snapshot, the partitions that changed since their
// last conversion (all of them at first), into fresh shadow tablets; when
// a check under the table's publish lock (loads commit under it) finds
// nothing changed, the swap commits under that same lock, so no load can
// commit between the check and the swap. After maxFreeRounds rounds the
// last round runs holding the lock: loads then wait at their commit until
// the swap, and a load that wrote the old tablets fails its commit (not
// acknowledged) rather than being lost. Only the partitions loads reached
// are converted again, so a table loaded into its newest partition
// converges after a cheap round.
const maxFreeRounds = 2

// oldTabletsGrace is how long the old tablets outlive the swap, so scans
// planned just before it finish.
const oldTabletsGrace = 5 * time.Second

// alterRunner holds the FE's running schema change jobs.
type alterRunner struct {
	mu      sync.Mutex
	jobs    map[int64]*runningAlter
	wg      sync.WaitGroup
	stopped bool
	stop    chan struct{}
}

func newAlterRunner() *alterRunner {
	return &alterRunner{jobs: map[int64]*runningAlter{}, stop: make(chan struct{})}
}

// runningAlter is one job's goroutine and its progress.
type runningAlter struct {
	cancel context.CancelCauseFunc
	done   chan struct{}

	mu sync.Mutex
	// total tablets; finished ones (converted as of now); the running
	// round's tablets, rows to convert and transaction.
	total, finished int
	roundTablets    int
	roundRows       int64
	txn             storage.TxnID
	// shown is the highest progress shown so far: a live count that
	// misses a backend for a moment must not make it go back.
	shown int
}

// errCancelled is a CANCEL ALTER's cause.
var errCancelled = errors.New("user cancelled")

// errStopping is the FE shutting down: the job is left for the next
// start's Recover.
var errStopping = errors.New("FE stopping")

func (a *alterRunner) start(s *Server, db string, job *catalog.AlterJob) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return // the next start resumes it (resumeAlters)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &runningAlter{cancel: cancel, done: make(chan struct{})}
	for _, p := range job.Shadow.Partitions {
		r.total += len(p.Tablets)
	}
	a.jobs[job.ID] = r
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(r.done)
		defer cancel(nil)
		defer func() {
			a.mu.Lock()
			delete(a.jobs, job.ID)
			a.mu.Unlock()
		}()
		s.runSchemaChange(ctx, db, job, r)
	}()
}

// cancel stops a running job and waits for it to clean up.
func (a *alterRunner) cancel(s *Server, job *catalog.AlterJob, wait time.Duration) error {
	a.mu.Lock()
	r := a.jobs[job.ID]
	a.mu.Unlock()
	if r == nil {
		// Not running here (its runner is gone): cancel the record.
		if _, err := s.cat.SetAlterJob(job.ID, catalog.AlterCancelled, errCancelled.Error(), 0, nil); err != nil {
			return err
		}
		s.coord.DropTablets(context.Background(), job.Shadow)
		return nil
	}
	r.cancel(errCancelled)
	select {
	case <-r.done:
	case <-time.After(wait):
		return sqlerr.Doris.New(fmt.Sprintf("schema change job %d is still stopping; see SHOW ALTER TABLE COLUMN", job.ID))
	}
	if j := s.cat.RunningAlterJob(job.TableID); j == nil {
		for _, cur := range s.cat.AlterJobs(job.DBID) {
			if cur.ID == job.ID && cur.State == catalog.AlterFinished {
				return sqlerr.Doris.New(fmt.Sprintf("schema change job %d of table %s already finished", job.ID, job.TableName))
			}
		}
	}
	return nil
}

// shutdown stops every job (their records stay RUNNING; the next start
// resumes them) and waits for their goroutines.
func (a *alterRunner) shutdown() {
	a.mu.Lock()
	if !a.stopped {
		a.stopped = true
		close(a.stop)
	}
	for _, r := range a.jobs {
		r.cancel(errStopping)
	}
	a.mu.Unlock()
	a.wg.Wait()
}

// progress is SHOW ALTER's Progress of j: "finished/total" tablets while
// it runs (a running round's tablets counted by the rows its table sink
// wrote so far), N/A otherwise, as Doris.
func (a *alterRunner) progress(s *Server, j *catalog.AlterJob) string {
	if j.State != catalog.AlterRunning {
		return "N/A"
	}
	a.mu.Lock()
	r := a.jobs[j.ID]
	a.mu.Unlock()
	if r == nil {
		return "N/A"
	}
	r.mu.Lock()
	total, done, tablets, rows, txn := r.total, r.finished, r.roundTablets, r.roundRows, r.txn
	r.mu.Unlock()
	if txn != 0 && tablets > 0 && rows > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		written, _, ok := s.coord.LoadProgress(ctx, txn)
		cancel()
		if ok {
			done += int(min(int64(tablets), written*int64(tablets)/rows))
		}
	}
	r.mu.Lock()
	done = max(min(done, total), r.shown)
	r.shown = done
	r.mu.Unlock()
	return fmt.Sprintf("%d/%d", done, total)
}

// runSchemaChange runs job to its end: converted and swapped in, or
// cancelled with its reason (shadow tablets dropped, table unchanged).
func (s *Server) runSchemaChange(ctx context.Context, db string, job *catalog.AlterJob, r *runningAlter) {
	ctx, stopTimeout := context.WithTimeoutCause(ctx, time.Duration(job.Timeout)*time.Second, errors.New("timeout"))
	defer stopTimeout()
	var txns []storage.TxnID
	rows, bytes := map[storage.TabletID]int64{}, map[storage.TabletID]int64{}
	fail := func(err error) {
		cause := context.Cause(ctx)
		if errors.Is(cause, errStopping) {
			return
		}
		msg := err.Error()
		if cause != nil {
			msg = cause.Error()
		} else {
			var se *sqlerr.Error
			if errors.As(err, &se) {
				msg = se.Message
			}
		}
		cur, serr := s.cat.SetAlterJob(job.ID, catalog.AlterCancelled, msg, 0, nil)
		if serr != nil {
			s.log.Warn("cancel schema change", "job", job.ID, "err", serr)
			return
		}
		s.coord.AbortConversions(context.Background(), cur, txns, "schema change cancelled: "+msg)
		s.log.Info("schema change cancelled", "job", job.ID, "table", job.TableName, "reason", msg)
	}
	var err error
	if job, err = s.cat.SetAlterJob(job.ID, catalog.AlterRunning, job.Msg, 0, nil); err != nil { // a resumed job says so
		fail(err)
		return
	}
	for round := 1; ; round++ {
		locked := round > maxFreeRounds
		var unlock func()
		if locked {
			if unlock, err = s.coord.LockTable(ctx, job.TableID); err != nil {
				fail(err)
				return
			}
		}
		changed, err := s.cat.ChangedPartitions(job.ID)
		if err == nil && len(changed) == 0 && !locked {
			// Nothing to convert: check again under the lock and commit.
			if unlock, err = s.coord.LockTable(ctx, job.TableID); err != nil {
				fail(err)
				return
			}
			locked = true
			changed, err = s.cat.ChangedPartitions(job.ID)
			if err == nil && len(changed) > 0 {
				unlock()
				locked = false
				continue
			}
		}
		if err == nil && len(changed) > 0 {
			var nj *catalog.AlterJob
			if nj, err = s.convertRound(ctx, db, job, round, changed, r, &txns, rows, bytes); err == nil {
				job = nj
			}
		}
		if err == nil && locked {
			var done *catalog.AlterJob
			done, err = s.commitSchemaChange(job, txns, rows, bytes)
			unlock()
			if err == nil {
				select {
				case <-time.After(oldTabletsGrace):
				case <-s.alters.stop:
					return // the next start drops them (coord.Recover)
				}
				s.coord.DropRetired(context.Background(), done)
				return
			}
		} else if locked {
			unlock()
		}
		if err != nil {
			fail(err)
			return
		}
	}
}

// convertRound converts partitions pids as they are now into shadow
// tablets: an earlier round's shadow tablets of them are dropped and new
// ones reserved first.
func (s *Server) convertRound(ctx context.Context, db string, job *catalog.AlterJob, round int, pids []catalog.PartitionID, r *runningAlter,
	txns *[]storage.TxnID, rows, bytes map[storage.TabletID]int64) (*catalog.AlterJob, error) {
	t, ok := s.cat.TableByID(job.TableID)
	if !ok {
		return nil, sqlerr.Doris.New(fmt.Sprintf("table %s was dropped during its schema change", job.TableName))
	}
	pick := func(parts []*catalog.Partition) []*catalog.Partition {
		return slices.DeleteFunc(slices.Clone(parts), func(p *catalog.Partition) bool { return !slices.Contains(pids, p.ID) })
	}
	var err error
	if round > 1 {
		s.coord.DropTablets(ctx, &catalog.Table{Partitions: pick(job.Shadow.Partitions)})
		if job, err = s.cat.ReshadowPartitions(job.ID, pids); err != nil {
			return nil, err
		}
		// Progress stays at the first pass's; Msg says what runs now.
		msg := fmt.Sprintf("converting again %d partition(s) loaded during the conversion (round %d)", len(pids), round)
		if job, err = s.cat.SetAlterJob(job.ID, catalog.AlterRunning, msg, 0, nil); err != nil {
			return nil, err
		}
	}
	snap := *t // the versions this round reads
	snap.Partitions = pick(t.Partitions)
	shadow := *job.Shadow
	shadow.Partitions = pick(job.Shadow.Partitions)
	sp, err := s.conversionPlan(ctx, db, &snap, &shadow)
	if err != nil {
		return nil, err
	}
	tablets, want := 0, int64(0)
	for _, p := range snap.Partitions {
		tablets += len(p.Tablets)
		want += p.RowCount
	}
	r.mu.Lock()
	if round == 1 {
		r.roundTablets, r.roundRows = tablets, want
	}
	r.txn = 0
	r.mu.Unlock()
	if h := s.testHook.Load(); h != nil {
		(*h)("schema_change_round", job.TableName)
	}
	label := fmt.Sprintf("schema_change_%d_%d", job.ID, round)
	res, err := s.coord.ConvertPartitions(ctx, db, t, &shadow, label, sp, func(txn storage.TxnID) {
		r.mu.Lock()
		r.txn = txn
		r.mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	*txns = append(*txns, res.Txn)
	for k, v := range res.Rows {
		rows[k] = v
	}
	for k, v := range res.Bytes {
		bytes[k] = v
	}
	converted := map[catalog.PartitionID]storage.Version{}
	for _, p := range snap.Partitions {
		converted[p.ID] = p.VisibleVersion
	}
	if job, err = s.cat.SetAlterJob(job.ID, catalog.AlterRunning, "", res.Txn, converted); err != nil {
		return nil, err
	}
	finished := 0
	for _, p := range job.Shadow.Partitions {
		if job.Converted[p.ID] != 0 {
			finished += len(p.Tablets)
		}
	}
	r.mu.Lock()
	r.finished, r.roundTablets, r.txn = max(r.finished, finished), 0, 0
	r.mu.Unlock()
	return job, nil
}

// conversionPlan is a round's INSERT … SELECT: snap's columns (all of
// them, the hidden ones too) cast to the shadow columns they become,
// matched by unique id; an added column gets its fill value. The table
// sink writes the shadow partitions.
func (s *Server) conversionPlan(ctx context.Context, db string, snap, shadow *catalog.Table) (*coord.SinkPlan, error) {
	sc := &logical.Scan{DB: db, Table: snap, Alias: snap.Name}
	for i, c := range snap.Columns {
		sc.Cols = append(sc.Cols, logical.Column{ID: logical.ColumnID(i + 1), Table: snap.Name, Name: c.Name, T: c.Type, Null: c.Nullable})
		sc.Ords = append(sc.Ords, i)
	}
	p := &logical.Project{Input: sc}
	next := logical.ColumnID(len(snap.Columns) + 1)
	for _, c := range shadow.Columns {
		var e expr.Expr
		from := -1
		for i, o := range snap.Columns {
			if o.UID == c.UID {
				from = i
			}
		}
		switch {
		case from >= 0:
			e = expr.NewCast(sc.Cols[from].Ref(), c.Type)
		case c.FillValue != nil:
			e = expr.NewCast(expr.Lit(*c.FillValue), c.Type)
		default:
			e = expr.Lit(types.NullDatum(c.Type))
		}
		p.Exprs = append(p.Exprs, e)
		p.Cols = append(p.Cols, logical.Column{ID: next, Table: shadow.Name, Name: c.Name, T: c.Type, Null: c.Nullable})
		next++
	}
	pctx := &physical.Context{Cat: s.cat, Vars: physical.DefaultVars(), Ctx: ctx}
	d, err := physical.PlanInsert(pctx, p, physical.InsertTarget{DB: db, Table: shadow, Overwrite: true})
	if err != nil {
		return nil, err
	}
	now := time.Now()
	env := &op.Env{Mem: memory.DefaultAllocator, Eval: &expr.Context{Now: now, Ctx: ctx}, Tracker: op.NewMemTracker(convertMemLimit)}
	sp := &coord.SinkPlan{Plan: d.Plan, Env: env, Now: now.UnixMicro(), EstRows: d.RootRows()}
	sp.Target = physical.SinkSpec(db, shadow, shadow.Partitions)
	sp.Target.Overwrite = true
	return sp, nil
}

// convertMemLimit bounds a conversion's memory (exec_mem_limit's default).
const convertMemLimit = 2 << 30

// commitSchemaChange is the swap (the caller holds the table's publish
// lock); it returns the finished job, whose old tablets (Retired) are
// dropped after a grace period.
func (s *Server) commitSchemaChange(job *catalog.AlterJob, txns []storage.TxnID, rows, bytes map[storage.TabletID]int64) (*catalog.AlterJob, error) {
	if _, err := s.cat.CommitSchemaChange(job.ID, txns, rows, bytes); err != nil {
		return nil, err
	}
	s.log.Info("schema change finished", "job", job.ID, "table", job.TableName)
	for _, j := range s.cat.AlterJobs(job.DBID) {
		if j.ID == job.ID {
			return j, nil
		}
	}
	return nil, sqlerr.Assertf("server: schema change job %d vanished", job.ID)
}

// resumeAltersLater resumes the interrupted jobs in the background: it
// talks to backends (dropping old shadow tablets), which must not hold up
// a frontend starting or taking over as master.
func (s *Server) resumeAltersLater() {
	a := s.alters
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s.resumeAlters(ctx)
	}()
}

// resumeAlters restarts the schema change jobs an FE restart or a master
// failover interrupted, as Doris replays its alter jobs. The rounds they
// had converted were in transactions the restart aborted (coord.Recover),
// so each starts again from its first round, into new shadow tablets (the
// old ones dropped); the table keeps answering with its old schema
// meanwhile, and the job ends FINISHED or CANCELLED as any other.
func (s *Server) resumeAlters(ctx context.Context) {
	for _, j := range s.cat.AlterJobs(0) {
		if j.State.Done() {
			continue
		}
		d, ok := s.cat.DatabaseByID(j.DBID)
		if !ok {
			continue // dropped with its database
		}
		s.coord.DropTablets(ctx, j.Shadow)
		var pids []catalog.PartitionID
		for _, p := range j.Shadow.Partitions {
			pids = append(pids, p.ID)
		}
		nj, err := s.cat.ReshadowPartitions(j.ID, pids)
		if err == nil {
			nj, err = s.cat.SetAlterJob(j.ID, catalog.AlterRunning, "resumed after a frontend restart: converting again from the start", 0, nil)
		}
		if err != nil {
			s.log.Warn("resume schema change", "job", j.ID, "table", j.TableName, "err", err)
			continue
		}
		s.log.Info("schema change resumed", "job", j.ID, "table", j.TableName)
		s.alters.start(s, d.Name, nj)
	}
}
