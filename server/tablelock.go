package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// updateLocks serialises UPDATE per table, as Doris does while
// enable_concurrent_update is false. An UPDATE reads the rows it rewrites:
// two at once would each write what they read, and one change is lost
// (two concurrent `SET b = b + 1` add 1). A DELETE that writes the delete
// sign reads its rows too, and one racing an UPDATE would let the UPDATE
// write a deleted row back, so it takes the same lock. The lock is taken
// before the read and held until the rows are visible, or inside a
// transaction until it ends. Loads (INSERT, stream load) do not take it:
// they write what they are given. Only the master writes, so a lock in
// its memory is the cluster's.
type updateLocks struct {
	mu   sync.Mutex
	held map[catalog.TableID]*updateLock
	// concurrent is enable_concurrent_update: no lock at all (Doris: the
	// user vouches that concurrent UPDATEs never touch the same rows).
	concurrent atomic.Bool
}

type updateLock struct {
	owner any           // the transaction or statement holding it
	done  chan struct{} // closed on release
}

// lock takes table t's UPDATE lock for owner, waiting at most wait; owner
// already holding it gets it again (a transaction's second UPDATE of t).
// The returned release may be called more than once.
func (u *updateLocks) lock(ctx context.Context, t *catalog.Table, db string, owner any, wait time.Duration) (func(), error) {
	if u.concurrent.Load() {
		return func() {}, nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		u.mu.Lock()
		if u.held == nil {
			u.held = map[catalog.TableID]*updateLock{}
		}
		l := u.held[t.ID]
		if l == nil {
			l = &updateLock{owner: owner, done: make(chan struct{})}
			u.held[t.ID] = l
			u.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					u.mu.Lock()
					delete(u.held, t.ID)
					u.mu.Unlock()
					close(l.done)
				})
			}, nil
		}
		if l.owner == owner {
			u.mu.Unlock()
			return func() {}, nil
		}
		u.mu.Unlock()
		select {
		case <-l.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, sqlerr.LockWaitTimeout.New(fmt.Sprintf("table %s.%s is being changed by another UPDATE or DELETE, waited %v (innodb_lock_wait_timeout; FE config enable_concurrent_update lifts the lock)", db, t.Name, wait))
		}
	}
}

// lockForUpdate takes the UPDATE lock of db.t for the statement running
// now: with no transaction open the statement holds it and calls the
// returned release when done; inside one (or with autocommit off, which
// opens one) the transaction holds it until COMMIT or ROLLBACK and the
// release does nothing.
func (s *Session) lockForUpdate(ctx context.Context, db string, t *catalog.Table) (func(), error) {
	wait := time.Duration(s.vars.int("innodb_lock_wait_timeout")) * time.Second
	if s.txn == nil && s.vars.get("autocommit") != "0" {
		return s.srv.updates.lock(ctx, t, db, new(byte), wait)
	}
	if s.txn == nil {
		s.txn = &sessionTxn{label: newTxnLabel(), start: time.Now()}
	}
	release, err := s.srv.updates.lock(ctx, t, db, s.txn, wait)
	if err != nil {
		return nil, err
	}
	s.txn.locks = append(s.txn.locks, release)
	return func() {}, nil
}

// unlock releases what the transaction's UPDATEs locked.
func (t *sessionTxn) unlock() {
	for _, release := range t.locks {
		release()
	}
	t.locks = nil
}
