package wire

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// testHandler stands in for the SQL layer (which is not this package's):
// a few accounts and a session answering canned commands.
type testHandler struct {
	mu       sync.Mutex
	accounts map[string]Account
	infos    map[uint32]ConnInfo
}

func newTestHandler() *testHandler {
	return &testHandler{
		accounts: map[string]Account{
			"root":  {},
			"alice": {NativeHash: catalog.NativeHash("secret"), Sha2Hash: catalog.Sha2Hash("secret")},
			"bob":   {Sha2Hash: catalog.Sha2Hash("pw2")},     // caching_sha2 only
			"carol": {NativeHash: catalog.NativeHash("pw3")}, // native only
		},
		infos: map[uint32]ConnInfo{},
	}
}

func (h *testHandler) LookupAccount(user, host string) (Account, bool) {
	a, ok := h.accounts[user]
	return a, ok
}

func (h *testHandler) NewSession(info ConnInfo) (Session, error) {
	h.mu.Lock()
	h.infos[info.ID] = info
	h.mu.Unlock()
	return &testSession{h: h, info: info}, nil
}

type testSession struct {
	h    *testHandler
	info ConnInfo
	db   string
	warn uint16 // the running statement's warnings (WarningReporter)
}

func (s *testSession) StatementWarnings() uint16 { return s.warn }

func (s *testSession) InitDB(ctx context.Context, db string) error {
	if db != "db1" && db != "db2" {
		return fmt.Errorf("init: %w", sqlerr.BadDB.New(db))
	}
	s.db = db
	return nil
}

func (s *testSession) Close() {}

func (s *testSession) FieldList(ctx context.Context, table, wildcard string) ([]Column, error) {
	if table != "t" {
		return nil, sqlerr.NoSuchTable.New(s.db, table)
	}
	return []Column{{Table: "t", Name: "k", Type: types.IntT, PrimaryKey: true}, {Table: "t", Name: "v", Type: types.VarcharT(10), Nullable: true}}, nil
}

var mem = memory.NewGoAllocator()

// record builds an Arrow record of rows of datums for cols.
func record(cols []Column, rows [][]types.Datum) arrow.Record {
	tc := make([]types.Column, len(cols))
	for i, c := range cols {
		tc[i] = types.Column{Name: c.Name, Type: c.Type, Nullable: true}
	}
	b := array.NewRecordBuilder(mem, types.ArrowSchema(tc))
	defer b.Release()
	for _, row := range rows {
		for j, d := range row {
			types.AppendDatum(b.Field(j), d)
		}
	}
	return b.NewRecord()
}

func dec(s string, p, sc int) types.Datum {
	n, ok, _ := types.ParseDecimal(s, p, sc)
	if !ok {
		panic(s)
	}
	return types.DecimalDatum(n, p, sc)
}

func largeInt(s string) types.Datum {
	n, err := decimal128.FromString(s, 38, 0)
	if err != nil {
		panic(err)
	}
	return types.Datum{T: types.LargeIntT, Dec: n}
}

func dateD(s string) types.Datum {
	d, ok := types.ParseDate(s)
	if !ok {
		panic(s)
	}
	return types.Datum{T: types.DateT, I: int64(d)}
}

func dtD(s string, scale int) types.Datum {
	us, ok := types.ParseDateTime(s)
	if !ok {
		panic(s)
	}
	return types.Datum{T: types.T{Kind: types.DateTime, Scale: scale}, I: us}
}

var typeCols = []Column{
	{Name: "b", Type: types.BoolT}, {Name: "ti", Type: types.TinyIntT}, {Name: "si", Type: types.SmallIntT},
	{Name: "i", Type: types.IntT, PrimaryKey: true}, {Name: "bi", Type: types.BigIntT, Nullable: true},
	{Name: "li", Type: types.LargeIntT, Nullable: true}, {Name: "f", Type: types.FloatT, Nullable: true},
	{Name: "d", Type: types.DoubleT, Nullable: true}, {Name: "dec", Type: types.DecimalT(12, 2), Nullable: true},
	{Name: "c", Type: types.CharT(5), Nullable: true}, {Name: "vc", Type: types.VarcharT(20), Nullable: true},
	{Name: "s", Type: types.StringT, Nullable: true}, {Name: "dt", Type: types.DateT, Nullable: true},
	{Name: "dtm", Type: types.DateTimeT, Nullable: true}, {Name: "dtm6", Type: types.T{Kind: types.DateTime, Scale: 6}, Nullable: true},
	{Name: "n", Type: types.NullT, Nullable: true},
}

func typeRows() [][]types.Datum {
	null := func() types.Datum { return types.NullDatum(types.NullT) }
	return [][]types.Datum{
		{types.BoolDatum(true), {T: types.TinyIntT, I: -128}, {T: types.SmallIntT, I: -32768}, {T: types.IntT, I: -2147483648},
			types.IntDatum(-9223372036854775808), largeInt("-17014118346046923173168730371588410572"),
			{T: types.FloatT, F: 1.5}, types.FloatDatum(-2.25), dec("-1234567890.12", 12, 2),
			types.StringDatum("ab"), types.StringDatum("héllo ✓ 日本"), types.StringDatum(strings.Repeat("x", 300)),
			dateD("2024-02-29"), dtD("2024-02-29 13:14:15", 0), dtD("1999-12-31 23:59:59.123456", 6), null()},
		{types.BoolDatum(false), {T: types.TinyIntT, I: 127}, {T: types.SmallIntT, I: 32767}, {T: types.IntT, I: 2147483647},
			null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null()},
		{types.BoolDatum(false), {T: types.TinyIntT}, {T: types.SmallIntT}, {T: types.IntT},
			types.IntDatum(9223372036854775807), largeInt("99999999999999999999999999999999999999"),
			{T: types.FloatT, F: 0.25}, types.FloatDatum(12345.5), dec("0.05", 12, 2),
			types.StringDatum(""), types.StringDatum(""), types.StringDatum("🙂"),
			dateD("1970-01-01"), dtD("1969-12-31 23:59:59", 0), dtD("2000-01-02 03:04:05", 6), null()},
	}
}

func (s *testSession) Query(ctx context.Context, sql string, w ResultWriter) error {
	s.warn = 0
	switch {
	case sql == "warn rows":
		s.warn = 3
		cols := []Column{{Name: "1", Type: types.BigIntT}}
		_ = w.WriteColumns(cols)
		_ = w.WriteRows(record(cols, [][]types.Datum{{types.IntDatum(1)}}))
		return w.WriteEnd()
	case sql == "warn ok":
		s.warn = 2
		return w.WriteOK(OK{AffectedRows: 1})
	case strings.HasPrefix(sql, "select types"):
		return writeTypes(w)
	case sql == "select 1":
		cols := []Column{{Name: "1", Type: types.BigIntT}}
		if err := w.WriteColumns(cols); err != nil {
			return err
		}
		if err := w.WriteRows(record(cols, [][]types.Datum{{types.IntDatum(1)}})); err != nil {
			return err
		}
		return w.WriteEnd()
	case sql == "whoami":
		cols := []Column{{Name: "user", Type: types.StringT}, {Name: "db", Type: types.StringT},
			{Name: "tls", Type: types.BoolT}, {Name: "client", Type: types.StringT}, {Name: "multi", Type: types.BoolT}}
		row := []types.Datum{types.StringDatum(s.info.User), types.StringDatum(s.db), types.BoolDatum(s.info.TLS),
			types.StringDatum(s.info.Attrs["_client_name"]), types.BoolDatum(ClientMultiStatements(ctx))}
		_ = w.WriteColumns(cols)
		_ = w.WriteRows(record(cols, [][]types.Datum{row}))
		return w.WriteEnd()
	case strings.HasPrefix(sql, "insert"):
		return w.WriteOK(OK{AffectedRows: 3, LastInsertID: 7, Info: "Records: 3"})
	case sql == "multi":
		// result set, OK, result set
		w.SetMoreResults(true)
		cols := []Column{{Name: "a", Type: types.BigIntT}}
		_ = w.WriteColumns(cols)
		_ = w.WriteRows(record(cols, [][]types.Datum{{types.IntDatum(1)}, {types.IntDatum(2)}}))
		_ = w.WriteEnd()
		_ = w.WriteOK(OK{AffectedRows: 5})
		w.SetMoreResults(false)
		cols = []Column{{Name: "b", Type: types.VarcharT(3)}}
		_ = w.WriteColumns(cols)
		_ = w.WriteRows(record(cols, [][]types.Datum{{types.StringDatum("x")}}))
		return w.WriteEnd()
	case sql == "multi-err":
		w.SetMoreResults(true)
		_ = w.WriteOK(OK{AffectedRows: 1})
		return sqlerr.ParseError.New("second statement is bad")
	case sql == "error mid":
		cols := []Column{{Name: "a", Type: types.BigIntT}}
		_ = w.WriteColumns(cols)
		_ = w.WriteRows(record(cols, [][]types.Datum{{types.IntDatum(1)}, {types.IntDatum(2)}}))
		return fmt.Errorf("exec: %w", sqlerr.DivisionByZero.New())
	case sql == "panic":
		panic("test panic")
	case sql == "cancel me":
		s.info.Cancel()
		return w.WriteOK(OK{})
	case strings.HasPrefix(sql, "KILL "):
		id, _ := strconv.Atoi(strings.TrimPrefix(sql, "KILL "))
		s.h.mu.Lock()
		info, ok := s.h.infos[uint32(id)]
		s.h.mu.Unlock()
		if !ok {
			return sqlerr.NoSuchThread.New(id)
		}
		info.Cancel()
		return w.WriteOK(OK{})
	case sql == "connection_id":
		cols := []Column{{Name: "id", Type: types.BigIntT}}
		_ = w.WriteColumns(cols)
		_ = w.WriteRows(record(cols, [][]types.Datum{{types.IntDatum(int64(s.info.ID))}}))
		return w.WriteEnd()
	case strings.HasPrefix(sql, "big "):
		n, _ := strconv.Atoi(strings.TrimPrefix(sql, "big "))
		cols := []Column{{Name: "s", Type: types.StringT}}
		_ = w.WriteColumns(cols)
		_ = w.WriteRows(record(cols, [][]types.Datum{{types.StringDatum(strings.Repeat("y", n))}}))
		return w.WriteEnd()
	}
	return sqlerr.ParseError.New("unknown test statement: " + sql)
}

func writeTypes(w ResultWriter) error {
	if err := w.WriteColumns(typeCols); err != nil {
		return err
	}
	rows := typeRows()
	// Two records: the stream is not one batch.
	if err := w.WriteRows(record(typeCols, rows[:1])); err != nil {
		return err
	}
	if err := w.WriteRows(record(typeCols, rows[1:])); err != nil {
		return err
	}
	return w.WriteEnd()
}

// testPrepared echoes its parameters ("echo ?, ?") or returns the types table.
type testPrepared struct {
	sql  string
	n    int
	cols []Column
}

func (p *testPrepared) NumParams() int { return p.n }
func (p *testPrepared) Params() []Column {
	ps := make([]Column, p.n)
	for i := range ps {
		ps[i] = Column{Name: "?", Type: types.BigIntT, Nullable: true}
	}
	return ps
}
func (p *testPrepared) Columns() []Column { return p.cols }

func (s *testSession) Prepare(ctx context.Context, sql string) (Prepared, error) {
	n := strings.Count(sql, "?")
	switch {
	case strings.HasPrefix(sql, "select types"):
		return &testPrepared{sql: sql, n: n, cols: typeCols}, nil
	case strings.HasPrefix(sql, "echo"), strings.HasPrefix(sql, "insert"), sql == "error mid", sql == "multi":
		return &testPrepared{sql: sql, n: n}, nil
	}
	return nil, sqlerr.ParseError.New("cannot prepare: " + sql)
}

func (s *testSession) Execute(ctx context.Context, p Prepared, args []types.Datum, w ResultWriter) error {
	tp := p.(*testPrepared)
	if !strings.HasPrefix(tp.sql, "echo") {
		return s.Query(ctx, tp.sql, w)
	}
	// One row: each parameter as a column of its datum type, plus its type name.
	cols := make([]Column, 0, 2*len(args))
	row := make([]types.Datum, 0, 2*len(args))
	for i, a := range args {
		cols = append(cols, Column{Name: fmt.Sprintf("p%d", i), Type: a.T, Nullable: true},
			Column{Name: fmt.Sprintf("t%d", i), Type: types.StringT})
		row = append(row, a, types.StringDatum(a.T.String()))
	}
	if err := w.WriteColumns(cols); err != nil {
		return err
	}
	if err := w.WriteRows(record(cols, [][]types.Datum{row})); err != nil {
		return err
	}
	return w.WriteEnd()
}

// startServer serves h on 127.0.0.1:0 until the test ends.
func startServer(t testing.TB, cfg Config, h Handler) (*Server, string) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := NewServer(cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return srv, ln.Addr().String()
}
