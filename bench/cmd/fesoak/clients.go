package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// history is what the clients were acknowledged.
type history struct {
	// mu is held shared by a client for one operation, retries included,
	// and whole by a check: at a check every operation is settled.
	mu sync.RWMutex

	dmu      sync.Mutex
	tables   map[string]bool // name → exists after its last acknowledged statement
	users    []string        // created and granted SELECT on soak.*
	newUsers []string        // since the last check
	labels   map[string]bool // acknowledged load labels
	rows     int64
	sum      int64
	n        counts

	next    atomic.Int64 // names and labels
	keys    atomic.Int64 // the table's keys
	retries atomic.Int64
	lastErr atomic.Value
	failed  atomic.Value // an error that breaks the history
	stop    atomic.Bool
}

type counts struct{ creates, drops, users, inserts, streams, retries int64 }

func (c counts) String() string {
	return fmt.Sprintf("%d CREATE TABLE, %d DROP TABLE, %d users granted, %d INSERTs, %d stream loads",
		c.creates, c.drops, c.users, c.inserts, c.streams)
}

func (c counts) sub(o counts) counts {
	return counts{c.creates - o.creates, c.drops - o.drops, c.users - o.users, c.inserts - o.inserts, c.streams - o.streams, c.retries - o.retries}
}

func newHistory() *history {
	return &history{tables: map[string]bool{}, labels: map[string]bool{}}
}

func (h *history) snapshot() counts {
	h.dmu.Lock()
	defer h.dmu.Unlock()
	c := h.n
	c.retries = h.retries.Load()
	return c
}

func (h *history) fail(err error) { h.failed.CompareAndSwap(nil, err) }

func (h *history) record(f func()) {
	h.dmu.Lock()
	defer h.dmu.Unlock()
	f()
}

// until runs op against random frontends until it reports done; a failed
// attempt is retried after a pause. The same statement (IF [NOT] EXISTS
// after the first attempt, the same label) is sent every time, so an
// attempt whose reply was lost but that ran is harmless.
func until(c *cluster, h *history, rng *rand.Rand, what string, op func(f *fe, attempt int) (bool, error)) bool {
	start := time.Now()
	for attempt := 0; ; attempt++ {
		f := c.fes[rng.IntN(len(c.fes))]
		done, err := op(f, attempt)
		if done {
			return true
		}
		h.retries.Add(1)
		if err != nil {
			h.lastErr.Store(fmt.Sprintf("%s through %s: %v", what, f.name, err))
		}
		if time.Since(start) > 3*time.Minute {
			h.fail(fmt.Errorf("%s not acknowledged after 3 minutes of retries; last: %v", what, err))
			return false
		}
		time.Sleep(time.Duration(100+rng.IntN(300)) * time.Millisecond)
	}
}

func execSQL(db *sql.DB, q string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	_, err := db.ExecContext(ctx, q)
	return err
}

func pause(rng *rand.Rand) { time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond) }

// ddlClient creates tables and drops some of them.
func ddlClient(c *cluster, h *history, rng *rand.Rand) {
	for !h.stop.Load() && h.failed.Load() == nil {
		h.mu.RLock()
		name := fmt.Sprintf("d%d", h.next.Add(1))
		ok := until(c, h, rng, "CREATE TABLE soak."+name, func(f *fe, attempt int) (bool, error) {
			ine := ""
			if attempt > 0 {
				ine = "IF NOT EXISTS "
			}
			err := execSQL(f.db, fmt.Sprintf(`CREATE TABLE %ssoak.%s (k INT, v INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "3")`, ine, name))
			if err != nil && attempt == 0 && strings.Contains(err.Error(), "already exists") {
				h.fail(fmt.Errorf("the first CREATE TABLE soak.%s answered %v", name, err))
			}
			return err == nil, err
		})
		if ok {
			h.record(func() { h.tables[name] = true; h.n.creates++ })
		}
		var drop string
		if ok && rng.IntN(2) == 0 {
			h.record(func() {
				for t, live := range h.tables { // map order is random enough
					if live {
						drop = t
						break
					}
				}
			})
		}
		if drop != "" && until(c, h, rng, "DROP TABLE soak."+drop, func(f *fe, _ int) (bool, error) {
			err := execSQL(f.db, "DROP TABLE IF EXISTS soak."+drop)
			return err == nil, err
		}) {
			h.record(func() { h.tables[drop] = false; h.n.drops++ })
		}
		h.mu.RUnlock()
		pause(rng)
	}
}

// grantClient creates users and grants them SELECT on the database.
func grantClient(c *cluster, h *history, rng *rand.Rand) {
	for !h.stop.Load() && h.failed.Load() == nil {
		h.mu.RLock()
		name := fmt.Sprintf("u%d", h.next.Add(1))
		ok := until(c, h, rng, "CREATE USER "+name, func(f *fe, attempt int) (bool, error) {
			ine := ""
			if attempt > 0 {
				ine = "IF NOT EXISTS "
			}
			err := execSQL(f.db, fmt.Sprintf("CREATE USER %s'%s'@'%%' IDENTIFIED BY 'pw-%s'", ine, name, name))
			return err == nil, err
		}) && until(c, h, rng, "GRANT to "+name, func(f *fe, _ int) (bool, error) {
			err := execSQL(f.db, fmt.Sprintf("GRANT SELECT_PRIV ON soak.* TO '%s'@'%%'", name))
			return err == nil, err
		})
		if ok {
			h.record(func() { h.users = append(h.users, name); h.newUsers = append(h.newUsers, name); h.n.users++ })
		}
		h.mu.RUnlock()
		pause(rng)
	}
}

// loadBatch is one load's rows: n new keys, v = 3k+1.
func (h *history) loadBatch(n int) (lo int64, sum int64) {
	lo = h.keys.Add(int64(n)) - int64(n)
	for k := lo; k < lo+int64(n); k++ {
		sum += 3*k + 1
	}
	return lo, sum
}

// labelUsed reads Doris's "Label [l] has already been used, relate to txn
// [id], status [S]": true when S says the load committed.
func labelUsed(msg string) (used, committed bool) {
	if !strings.Contains(msg, "has already been used") {
		return false, false
	}
	for _, s := range []string{"[COMMITTED]", "[VISIBLE]"} {
		if strings.Contains(msg, s) {
			return true, true
		}
	}
	return true, false
}

// insertClient runs labelled INSERTs of 20 rows.
func insertClient(c *cluster, h *history, rng *rand.Rand) {
	for !h.stop.Load() && h.failed.Load() == nil {
		h.mu.RLock()
		label := fmt.Sprintf("ins_%d", h.next.Add(1))
		const n = 20
		lo, sum := h.loadBatch(n)
		vals := make([]string, n)
		for i := range vals {
			k := lo + int64(i)
			vals[i] = fmt.Sprintf("(%d, %d)", k, 3*k+1)
		}
		q := fmt.Sprintf("INSERT INTO soak.t WITH LABEL %s VALUES %s", label, strings.Join(vals, ", "))
		if until(c, h, rng, "INSERT "+label, func(f *fe, attempt int) (bool, error) {
			err := execSQL(f.db, q)
			if err == nil {
				return true, nil
			}
			used, committed := labelUsed(err.Error())
			if used && attempt == 0 {
				h.fail(fmt.Errorf("the first INSERT with label %s answered %v", label, err))
			}
			return committed, err
		}) {
			h.record(func() { h.labels[label] = true; h.rows += n; h.sum += sum; h.n.inserts++ })
		}
		h.mu.RUnlock()
		pause(rng)
	}
}

var httpClient = &http.Client{Timeout: 90 * time.Second}

type loadReply struct {
	Status            string
	Message           string
	ExistingJobStatus string
	NumberLoadedRows  int64
}

// streamLoad PUTs body as a labelled CSV stream load to frontend f; a
// follower answers 307 to the master, which the client follows.
func streamLoad(f *fe, label string, body []byte) (loadReply, error) {
	req, err := http.NewRequest(http.MethodPut, fmt.Sprintf("http://127.0.0.1:%d/api/soak/t/_stream_load", f.http), bytes.NewReader(body))
	if err != nil {
		return loadReply{}, err
	}
	req.SetBasicAuth("root", "")
	req.Header.Set("label", label)
	req.Header.Set("column_separator", ",")
	resp, err := httpClient.Do(req)
	if err != nil {
		return loadReply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return loadReply{}, err
	}
	var r loadReply
	if err := json.Unmarshal(raw, &r); err != nil {
		return loadReply{}, fmt.Errorf("HTTP %d: %q", resp.StatusCode, raw)
	}
	return r, nil
}

// streamClient runs labelled stream loads of 50 rows.
func streamClient(c *cluster, h *history, rng *rand.Rand) {
	for !h.stop.Load() && h.failed.Load() == nil {
		h.mu.RLock()
		label := fmt.Sprintf("sl_%d", h.next.Add(1))
		const n = 50
		lo, sum := h.loadBatch(n)
		var b bytes.Buffer
		for k := lo; k < lo+n; k++ {
			fmt.Fprintf(&b, "%d,%d\n", k, 3*k+1)
		}
		if until(c, h, rng, "stream load "+label, func(f *fe, attempt int) (bool, error) {
			r, err := streamLoad(f, label, b.Bytes())
			if err != nil {
				return false, err
			}
			switch r.Status {
			case "Success", "Publish Timeout": // committed, as in Doris
				if r.NumberLoadedRows != n {
					h.fail(fmt.Errorf("stream load %s loaded %d rows, want %d", label, r.NumberLoadedRows, n))
				}
				return true, nil
			case "Label Already Exists":
				if attempt == 0 {
					h.fail(fmt.Errorf("the first stream load with label %s answered %s: %s", label, r.Status, r.Message))
				}
				if r.ExistingJobStatus == "FINISHED" || strings.Contains(r.Message, "state [COMMITTED]") {
					return true, nil
				}
			}
			return false, errors.New(r.Status + ": " + r.Message)
		}) {
			h.record(func() { h.labels[label] = true; h.rows += n; h.sum += sum; h.n.streams++ })
		}
		h.mu.RUnlock()
		pause(rng)
	}
}
