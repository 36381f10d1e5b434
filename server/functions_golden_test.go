package server_test

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/server/slt"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// The function golden files: server/testdata/functions/*.test, in
// sqllogictest form, run against a real server and compared exactly.
// TestFunctionRegistryCovered checks that every function a user can call
// has a case there with a NULL argument.

// scalarGolden are the files -rewrite-functions may rewrite; the others
// (aggregates.test) keep their hand-computed expectations.
var scalarGolden = map[string]bool{"nested.test": true, "string.test": true, "json.test": true, "date.test": true, "math.test": true, "cond.test": true}

var rewriteFunctions = flag.Bool("rewrite-functions", false, "rewrite the expected results of server/testdata/functions/*.test")

func functionFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/functions/*.test")
	if err != nil || len(files) == 0 {
		t.Fatalf("no function golden files: %v", err)
	}
	sort.Strings(files)
	return files
}

func TestFunctionGolden(t *testing.T) {
	srv := newServer(t)
	db := openDB(t, srv.MySQLAddr(), "", true)
	for _, f := range functionFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if *rewriteFunctions {
				if !scalarGolden[filepath.Base(f)] {
					t.Skipf("-rewrite-functions rewrites only the scalar files, not %s", f)
				}
				rewriteGolden(t, db, f)
				return
			}
			res, err := (&slt.Runner{DB: db}).RunFile(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			for _, fl := range res.Failures {
				t.Errorf("%s:%s", f, fl)
			}
			if res.Passed == 0 {
				t.Errorf("%s: no record passed", f)
			}
		})
	}
}

// rewriteGolden replaces the expected values of each query record of path
// by what the server answers (review the diff before keeping it).
func rewriteGolden(t *testing.T, db *sql.DB, path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := slt.Parse(path, strings.NewReader(string(src)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	dbName := "golden_rewrite"
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+dbName); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+dbName); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "USE "+dbName); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	var out []string
	next := 0 // next source line (0-based) to copy
	for _, r := range recs {
		if r.Kind == slt.KindStatement {
			if _, err := conn.ExecContext(ctx, r.SQL); (err != nil) != r.ExpectError {
				t.Errorf("%s:%d: %s: %v", path, r.Line, r.SQL, err)
			}
			continue
		}
		if r.Kind != slt.KindQuery {
			continue
		}
		// Copy through the record's SQL and its ---- line.
		i := r.Line - 1
		for i < len(lines) && strings.TrimSpace(lines[i]) != "----" && strings.TrimSpace(lines[i]) != "" {
			i++
		}
		out = append(out, lines[next:i]...)
		out = append(out, "----")
		if i < len(lines) && strings.TrimSpace(lines[i]) == "----" {
			i++
			for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
				i++
			}
		}
		next = i
		vals, err := goldenValues(ctx, conn, r)
		if err != nil {
			t.Errorf("%s:%d: %s: %v", path, r.Line, r.SQL, err)
			vals = []string{"ERROR " + err.Error()}
		}
		out = append(out, vals...)
	}
	out = append(out, lines[next:]...)
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func goldenValues(ctx context.Context, conn *sql.Conn, r slt.Record) ([]string, error) {
	rows, err := conn.QueryContext(ctx, r.SQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	raw := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range raw {
		dest[i] = &raw[i]
	}
	var vals []string
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		for i, v := range raw {
			typ := byte('T')
			if i < len(r.Types) {
				typ = r.Types[i]
			}
			vals = append(vals, slt.FormatValue(typ, v, v == nil))
		}
	}
	if len(cols) != len(r.Types) {
		return nil, fmt.Errorf("%d columns, record says %s", len(cols), r.Types)
	}
	slt.SortValues(vals, len(cols), r.Sort)
	return vals, rows.Err()
}

// operatorSyntax is how SQL spells the registry functions that are
// operators: a case calls one with NULL when NULL is an operand.
var operatorSyntax = map[string]string{
	"add": `\+`, "subtract": `-`, "multiply": `\*`, "divide": `/`, "%": `%`, "div": `DIV`,
	"int_divide": `DIV`, "negate": `-`, "eq": `=`, "ne": `(!=|<>)`, "lt": `<`, "le": `<=`,
	"gt": `>`, "ge": `>=`, "null_safe_eq": `<=>`, "in": `IN`, "not_in": `NOT\s+IN`,
	"between": `BETWEEN`, "and": `AND`, "or": `OR`, "xor": `XOR`, "not": `NOT`,
	"is_null": `IS\s+NULL`, "is_not_null": `IS\s+NOT\s+NULL`, "is_true": `IS\s+TRUE`,
	"is_false": `IS\s+FALSE`, "like": `LIKE`, "not_like": `NOT\s+LIKE`, "regexp": `REGEXP`,
	"bitand": `&`, "bitor": `\|`, "bitxor": `\^`, "bitnot": `~`, "shift_left": `<<`, "shift_right": `>>`,
}

// calledWithNull reports whether some case calls name with a NULL among
// its arguments (or with no arguments: nullary functions).
func calledWithNull(name string, sqls []string) bool {
	if op, ok := operatorSyntax[name]; ok {
		re := regexp.MustCompile(`(?i)(\bNULL\s*` + op + `|` + op + `\s*\(?\s*NULL\b)`)
		for _, s := range sqls {
			if re.MatchString(s) {
				return true
			}
		}
		return false
	}
	re := regexp.MustCompile(`(?i)(^|[^a-z0-9_.])` + regexp.QuoteMeta(name) + `\s*\(`)
	nullTok := regexp.MustCompile(`(?i)\bNULL\b`)
	for _, s := range sqls {
		for _, loc := range re.FindAllStringIndex(s, -1) {
			args, ok := balanced(s[loc[1]-1:])
			if !ok {
				continue
			}
			if strings.TrimSpace(args) == "" || nullTok.MatchString(args) {
				return true
			}
		}
	}
	return false
}

// balanced returns the text inside the parenthesis s starts with.
func balanced(s string) (string, bool) {
	depth := 0
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return s[1:i], true
			}
		}
	}
	return "", false
}

func TestFunctionRegistryCovered(t *testing.T) {
	var sqls []string
	aggFile := false
	for _, f := range functionFiles(t) {
		if filepath.Base(f) == "aggregates.test" {
			aggFile = true
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := slt.Parse(f, strings.NewReader(string(src)))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Kind == slt.KindQuery || r.Kind == slt.KindStatement {
				sqls = append(sqls, r.SQL)
			}
		}
	}
	names := expr.FunctionNames()
	if aggFile {
		for a := range expr.AggFuncs {
			names = append(names, a)
		}
	} else {
		// The aggregates' file belongs to the aggregate library; until it
		// exists only the scalar functions are checked.
		t.Logf("testdata/functions/aggregates.test absent: aggregates not checked")
	}
	sort.Strings(names)
	var missing []string
	for _, n := range names {
		if !calledWithNull(n, sqls) {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d functions have no golden case with a NULL argument in testdata/functions/*.test: %s",
			len(missing), strings.Join(missing, ", "))
	}
}
