package main

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"
)

// expected is the state the acknowledged history implies.
type expected struct {
	tables    map[string]bool // existing tables of soak
	labels    map[string]bool
	rows, sum int64
	users     []string // to log in as: the new ones and a sample of the rest
}

// check pauses the clients and compares every frontend's reads with the
// history; a follower may still be replaying, so each has 30 s to agree.
func check(c *cluster, h *history) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if v := h.failed.Load(); v != nil {
		return "", v.(error)
	}
	exp := expected{tables: map[string]bool{"t": true}, labels: map[string]bool{}}
	h.dmu.Lock()
	for t, live := range h.tables {
		if live {
			exp.tables[t] = true
		}
	}
	for l := range h.labels {
		exp.labels[l] = true
	}
	exp.rows, exp.sum = h.rows, h.sum
	exp.users = append(exp.users, h.newUsers...)
	old := h.users[:len(h.users)-len(h.newUsers)]
	for _, i := range rand.Perm(len(old))[:min(5, len(old))] {
		exp.users = append(exp.users, old[i])
	}
	h.newUsers = nil
	h.dmu.Unlock()
	start := time.Now()
	for _, f := range c.fes {
		var diff string
		if err := waitFor(30*time.Second, f.name+" to agree with the history", func() bool {
			diff = compare(f, exp)
			return diff == ""
		}); err != nil {
			return "", fmt.Errorf("%s: %s (still, after 30 s)", f.name, diff)
		}
	}
	return fmt.Sprintf("%d tables, %d users (%d logged in on each), %d load labels, %d rows; all agreed within %v",
		len(exp.tables), len(h.users), len(exp.users), len(exp.labels), exp.rows, time.Since(start).Round(10*time.Millisecond)), nil
}

// compare reads frontend f: "" when it agrees with exp, else what differs.
func compare(f *fe, exp expected) string {
	var out []string
	// Tables.
	rows, err := queryStrings(f.db, "SHOW TABLES FROM soak")
	if err != nil {
		return "SHOW TABLES: " + err.Error()
	}
	have := map[string]bool{}
	for _, r := range rows {
		have[r[0]] = true
	}
	if d := setDiff("table", exp.tables, have); d != "" {
		out = append(out, d)
	}
	// Rows.
	rows, err = queryStrings(f.db, "SELECT count(*), ifnull(sum(v), 0) FROM soak.t")
	if err != nil {
		return "count(*): " + err.Error()
	}
	if want := fmt.Sprintf("%d %d", exp.rows, exp.sum); strings.Join(rows[0], " ") != want {
		out = append(out, fmt.Sprintf("soak.t holds count, sum %s, the acknowledged loads %s", strings.Join(rows[0], " "), want))
	}
	// Load labels: exactly the acknowledged ones are VISIBLE.
	rows, err = queryStrings(f.db, "SHOW TRANSACTION FROM soak WHERE status = 'visible'")
	if err != nil {
		return "SHOW TRANSACTION: " + err.Error()
	}
	have = map[string]bool{}
	for _, r := range rows {
		if strings.HasPrefix(r[1], "ins_") || strings.HasPrefix(r[1], "sl_") {
			have[r[1]] = true
		}
	}
	if d := setDiff("VISIBLE label", exp.labels, have); d != "" {
		out = append(out, d)
	}
	// Users: log in, read, SHOW GRANTS.
	for _, u := range exp.users {
		db := openDB(f.mysql, u, "pw-"+u)
		rows, err := queryStrings(db, "SELECT count(*) FROM soak.t")
		if err == nil {
			rows, err = queryStrings(db, "SHOW GRANTS")
		}
		db.Close()
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("user %s: %v", u, err))
		case len(rows) == 0 || !strings.Contains(strings.Join(rows[0], " "), "soak"):
			out = append(out, fmt.Sprintf("user %s: SHOW GRANTS %v names no grant on soak", u, rows))
		}
	}
	return strings.Join(out, "; ")
}

func setDiff(what string, want, have map[string]bool) string {
	var missing, extra []string
	for k := range want {
		if !have[k] {
			missing = append(missing, k)
		}
	}
	for k := range have {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return fmt.Sprintf("%ss acknowledged but missing %v, present but not acknowledged %v", what, head(missing), head(extra))
}

func head(s []string) []string {
	if len(s) > 10 {
		return append(s[:10:10], fmt.Sprintf("… %d more", len(s)-10))
	}
	return s
}
