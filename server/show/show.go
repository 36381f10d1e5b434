// Package show builds the results of SHOW statements and the
// information_schema relations from the catalog and what the server hands
// it. Data flows one way: the server classifies a statement, calls in here
// and writes the returned Result to the wire; this package never imports
// the server nor the wire protocol. What only the server knows (sessions,
// variables, stream load records, load progress, replica statistics) comes
// in through Config's funcs and the Session interface.
package show

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/server/streamload"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Result is a small, fully known result set: the server sends each column
// as a result column of the same name, type and nullability.
type Result struct {
	Cols []types.Column
	Rows [][]types.Datum
}

// Process is one connection in SHOW PROCESSLIST; frontends exchange them
// as JSON (show_all_fe_connection), so the field names are the protocol.
type Process struct {
	ID          int64
	User, Host  string
	DB, Command string
	Time        int64 // seconds in the current command
	Info        string
	FE          string `json:",omitempty"` // the frontend holding it (show_all_fe_connection)
}

// Config is what the server hands the package once, at start. The funcs
// are called per statement, so they see the server as it is then.
type Config struct {
	Catalog *catalog.Catalog
	// Host is this frontend's host (SHOW TRANSACTION's Coordinator).
	Host string
	// TableStats is what the backends report of the tables' replicas.
	TableStats func(ctx context.Context, tables ...*catalog.Table) coord.ReplicaStats
	// VarNames lists the system variables in name order; GlobalVar is one's
	// global value.
	VarNames  func() []string
	GlobalVar func(name string) string
	// Connections is the open MySQL connections; Started, when the server
	// started (SHOW STATUS).
	Connections func() int
	Started     time.Time
	// Processes are this frontend's connections a user may see: its own
	// (by user name), or all with admin; by id. PeerProcesses are the other
	// frontends' (none for a frontend of its own); FEName names this one.
	Processes     func(user string, admin bool) []Process
	PeerProcesses func(ctx context.Context, user string, admin bool) ([]Process, error)
	FEName        func() string
	// StreamLoads are the recent and running stream loads (SHOW STREAM LOAD).
	StreamLoads func() []streamload.Record
	// LoadProgress is SHOW LOAD's Progress and LoadedRows of an INSERT's
	// transaction.
	LoadProgress func(t *catalog.Txn) (progress string, loaded int64)
}

// Session is the statement's session, as far as SHOW needs it.
type Session interface {
	// Account is the account logged in as (privileges, SHOW GRANTS).
	Account() (user, host string)
	// User is the connection's user name, by which SHOW PROCESSLIST
	// matches connections.
	User() string
	// Access is the account's privileges as the catalog holds them now.
	Access() *catalog.Access
	// DB is the current database ("" if none).
	DB() string
	// Var is a session variable's value.
	Var(name string) string
	// ViewColumns are a view's columns as its query binds now (DESC of a
	// view).
	ViewColumns(db string, v *catalog.View) ([]types.Column, error)
}

// Shows answers SHOW statements and information_schema for one server.
type Shows struct {
	cfg Config
	cat *catalog.Catalog
}

// New returns the SHOW builder over cfg.
func New(cfg Config) *Shows { return &Shows{cfg: cfg, cat: cfg.Catalog} }

// strCol and intCol declare result columns of SHOW results.
func strCol(name string) types.Column {
	return types.Column{Name: name, Type: types.VarcharT(256), Nullable: true}
}

func intCol(name string) types.Column {
	return types.Column{Name: name, Type: types.BigIntT, Nullable: true}
}

// strCols are VARCHAR columns of the given names.
func strCols(names []string) []types.Column {
	cols := make([]types.Column, len(names))
	for i, n := range names {
		cols[i] = strCol(n)
	}
	return cols
}

// str returns a VARCHAR datum, num an integer one.
func str(s string) types.Datum { return types.StringDatum(s) }
func num(i int64) types.Datum  { return types.IntDatum(i) }

func table(cols []types.Column, rows [][]types.Datum) (*Result, error) {
	return &Result{Cols: cols, Rows: rows}, nil
}

// Like compiles a SQL LIKE pattern (case-insensitive, as MySQL's default
// collations compare names); "" matches everything.
func Like(pattern string) func(string) bool {
	if pattern == "" {
		return func(string) bool { return true }
	}
	var sb strings.Builder
	sb.WriteString("(?is)^")
	esc := false
	for _, r := range pattern {
		switch {
		case esc:
			sb.WriteString(regexp.QuoteMeta(string(r)))
			esc = false
		case r == '\\':
			esc = true
		case r == '%':
			sb.WriteString(".*")
		case r == '_':
			sb.WriteString(".")
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	sb.WriteString("$")
	re := regexp.MustCompile(sb.String())
	return re.MatchString
}

// dbName is db, or the session's current database when db is "".
func dbName(s Session, db string) (string, error) {
	if db != "" {
		return db, nil
	}
	if d := s.DB(); d != "" {
		return d, nil
	}
	return "", sqlerr.NoDB.New()
}

func (sh *Shows) table(s Session, db, name string) (string, *catalog.Table, error) {
	db, err := dbName(s, db)
	if err != nil {
		return "", nil, err
	}
	t, err := sh.cat.Table(db, name)
	return db, t, err
}

func tableDenied(s Session, cmd, db, tbl string) error {
	user, host := s.Account()
	return sqlerr.TableAccessDenied.New(cmd, user, host, db+"."+tbl)
}
