package server_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// INSERTs in flight when one of three backends is killed (kill -9) into a
// 3-replica table all commit on the majority, as in Doris: several
// sessions insert without pause and the backend with the lowest id (where
// a VALUES insert's table sink runs) dies under them. Until the FE knew,
// every INSERT placed there failed ("backend N: unreachable"); now a load
// that lost a backend before its commit runs again on the live ones
// (coord/loadretry.go), so every INSERT — before, across and after the
// kill — is acknowledged, and the table holds exactly the acknowledged
// rows.
func TestE2EInsertsAcrossBackendKill(t *testing.T) {
	_, bes, db := startClusterProcs(t, 3)
	mustExec(t, db, "CREATE DATABASE ki")
	mustExec(t, db, `CREATE TABLE ki.t (k BIGINT, v BIGINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "3")`)
	const writers = 4
	var stop atomic.Bool
	var acked, ackedSum, tried atomic.Int64
	var mu sync.Mutex
	failures := map[string]int{}
	var failTimes []time.Duration
	var killedAt atomic.Value
	killedAt.Store(time.Now().Add(time.Hour))
	var wg sync.WaitGroup
	var next atomic.Int64
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				i := next.Add(1)
				var vals []string
				var sum int64
				for j := range int64(20) {
					k := i*20 + j
					vals = append(vals, fmt.Sprintf("(%d, %d)", k, k*3))
					sum += k * 3
				}
				tried.Add(1)
				if _, err := db.Exec("INSERT INTO ki.t VALUES " + strings.Join(vals, ",")); err != nil {
					mu.Lock()
					failures[err.Error()]++
					failTimes = append(failTimes, time.Since(killedAt.Load().(time.Time)))
					mu.Unlock()
					continue
				}
				acked.Add(20)
				ackedSum.Add(sum)
			}
		}()
	}
	time.Sleep(time.Second)
	before := tried.Load()
	killedAt.Store(time.Now())
	bes[0].kill()
	var deadAfter atomic.Int64 // when SHOW BACKENDS said so
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for deadAfter.Load() == 0 && time.Since(killedAt.Load().(time.Time)) < 3*time.Second {
			rows, _ := queryStringsErr(db, "SHOW BACKENDS")
			for _, r := range rows {
				if r[9] == "false" {
					deadAfter.Store(int64(time.Since(killedAt.Load().(time.Time))))
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	time.Sleep(3 * time.Second)
	stop.Store(true)
	wg.Wait()
	<-watched
	t.Logf("the FE saw the backend dead %v after the kill", time.Duration(deadAfter.Load()))
	n := 0
	var msgs []string
	for m, k := range failures {
		n += k
		msgs = append(msgs, fmt.Sprintf("%d× %s", k, m))
	}
	sort.Strings(msgs)
	t.Logf("%d INSERTs (%d before the kill), %d refused", tried.Load(), before, n)
	if len(failTimes) > 0 {
		t.Logf("refusals from %v to %v after the kill", failTimes[0], failTimes[len(failTimes)-1])
	}
	if n > 0 {
		t.Errorf("%d of %d INSERTs refused with a backend killed:\n%s", n, tried.Load(), strings.Join(msgs, "\n"))
	}
	want := fmt.Sprintf("[[%d %d]]", acked.Load(), ackedSum.Load())
	if got := fmt.Sprint(queryStrings(t, db, "SELECT count(*), sum(v) FROM ki.t")); got != want {
		t.Errorf("rows after the kill: %s, want the acknowledged %s", got, want)
	}
}
