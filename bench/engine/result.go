package engine

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Result is a query answer with every cell normalized to a string.
type Result struct {
	Columns []string
	Rows    [][]string
	// Elapsed is the time from sending the query to its last row read
	// (the driver's decoding included, this package's normalizing not).
	Elapsed time.Duration
}

// Engine is one database under test.
type Engine interface {
	Name() string
	Query(ctx context.Context, q string) (Result, error)
	Close() error
}

// querier is a *sql.DB or a *sql.Conn (one session, for session variables).
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// queryDB runs q on db and normalizes its rows once all are read.
func queryDB(ctx context.Context, db querier, q string) (Result, error) {
	t0 := time.Now()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return Result{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return Result{}, err
	}
	res := Result{Columns: cols}
	var raw [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return Result{}, err
		}
		raw = append(raw, vals)
	}
	if err := rows.Err(); err != nil {
		return Result{}, err
	}
	res.Elapsed = time.Since(t0)
	res.Rows = make([][]string, len(raw))
	for r, vals := range raw {
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = Normalize(v)
		}
		res.Rows[r] = row
	}
	return res, nil
}

type floater interface{ Float64() float64 }

// Normalize renders one cell: numbers with two decimals, dates as
// YYYY-MM-DD, NULL as NULL, strings trimmed of trailing blanks (CHAR).
func Normalize(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return normString(string(x))
	case string:
		return normString(x)
	case int64:
		return fmtNum(float64(x))
	case int32:
		return fmtNum(float64(x))
	case int:
		return fmtNum(float64(x))
	case uint64:
		return fmtNum(float64(x))
	case float64:
		return fmtNum(x)
	case float32:
		return fmtNum(float64(x))
	case bool:
		if x {
			return "1.00"
		}
		return "0.00"
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return fmtNum(f)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format("2006-01-02 15:04:05")
	case floater:
		return fmtNum(x.Float64())
	case fmt.Stringer:
		return normString(x.String())
	}
	return normString(fmt.Sprint(v))
}

var dateTime = regexp.MustCompile(`^(\d{4}-\d\d-\d\d)[ T]00:00:00(\.0+)?(Z|\+00:00)?$`)

func normString(s string) string {
	s = strings.TrimRight(s, " ")
	if m := dateTime.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xX") {
		return fmtNum(f)
	}
	return s
}

func fmtNum(f float64) string {
	if f == 0 {
		f = 0 // no "-0.00"
	}
	s := strconv.FormatFloat(f, 'f', 2, 64)
	if s == "-0.00" {
		return "0.00"
	}
	return s
}

// HasOrderBy reports whether the outermost query orders its rows.
func HasOrderBy(q string) bool {
	u := strings.ToUpper(q)
	i := strings.LastIndex(u, "ORDER BY")
	return i >= 0 && strings.Count(u[i:], ")") <= strings.Count(u[i:], "(")
}

// Compare checks got against want (the reference). Numbers agree within
// 0.01 plus a relative 1e-9; unordered results are compared as multisets.
// It returns "" when they agree, else a short description of the first
// difference.
func Compare(got, want Result, ordered bool) string {
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	g, w := got.Rows, want.Rows
	if !ordered {
		g, w = sorted(g), sorted(w)
	}
	for i := range g {
		if len(g[i]) != len(w[i]) {
			return fmt.Sprintf("row %d: %d columns, want %d", i, len(g[i]), len(w[i]))
		}
		for j := range g[i] {
			if !cellEqual(g[i][j], w[i][j]) {
				diff := fmt.Sprintf("row %d col %d: %q, want %q", i, j, g[i][j], w[i][j])
				if ordered && Compare(got, want, false) == "" {
					return "same rows in another order (" + diff + ")"
				}
				return diff
			}
		}
	}
	return ""
}

func cellEqual(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	return math.Abs(x-y) <= 0.011+1e-9*math.Max(math.Abs(x), math.Abs(y))
}

func sorted(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	copy(out, rows)
	sort.Slice(out, func(i, j int) bool {
		return strings.Join(out[i], "\x00") < strings.Join(out[j], "\x00")
	})
	return out
}
