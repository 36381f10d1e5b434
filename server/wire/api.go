package wire

import (
	"context"
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/go-mysql-org/go-mysql/mysql"

	"github.com/dorisgo/dorisgo/sql/types"
)

// Config configures a Server. Zero values pick the defaults noted per field.
type Config struct {
	ServerVersion    string        // greeting version string; "" = "5.7.99-dorisgo" (Doris reports 5.7.99)
	TLS              *tls.Config   // nil → a self-signed certificate is generated at start
	MaxConnections   int           // 0 = 1024; one more gets ERR 1040 and is closed
	MaxAllowedPacket int           // 0 = 64 MiB; a bigger incoming packet gets ERR 1153 and is closed
	WaitTimeout      time.Duration // idle time between commands before the connection is closed; 0 = 8h
	Logger           *slog.Logger  // nil = discard
	// Limits, if set, is read on every use instead of the three fields
	// above, so SET GLOBAL max_connections / max_allowed_packet /
	// wait_timeout apply to the running server; zero values keep the fields'.
	Limits func() Limits
}

// Limits are the connection limits that may change while serving.
type Limits struct {
	MaxConnections   int
	MaxAllowedPacket int
	WaitTimeout      time.Duration
}

// Handler is the SQL layer seen from the wire: accounts and sessions.
type Handler interface {
	// LookupAccount returns the stored credentials of user connecting from
	// host (the client IP, no port).
	LookupAccount(user, host string) (Account, bool)
	// NewSession is called once authentication succeeded. info.DB is the
	// database named in the handshake; the wire layer then calls InitDB with
	// it (an error there is sent as ERR and the connection is closed).
	NewSession(info ConnInfo) (Session, error)
}

// Account holds password hashes, never the password. Both nil means an empty
// password. If only Sha2Hash is set, mysql_native_password clients are
// switched to caching_sha2_password; if only NativeHash is set,
// caching_sha2_password clients go through full authentication (plaintext
// over TLS or RSA) and the plaintext is checked against NativeHash.
type Account struct {
	NativeHash []byte // SHA1(SHA1(password)), 20 bytes
	Sha2Hash   []byte // SHA256(SHA256(password)), 32 bytes
}

// ConnInfo describes an authenticated connection.
type ConnInfo struct {
	ID     uint32
	User   string
	Host   string // client IP
	DB     string // database from the handshake ("" if none)
	TLS    bool
	Attrs  map[string]string  // connection attributes (_client_name, ...)
	Cancel context.CancelFunc // cancels the connection's context; the connection closes after the running command (KILL CONNECTION)
}

// Session is one client session; its methods are called from the
// connection's goroutine only, one command at a time.
type Session interface {
	InitDB(ctx context.Context, db string) error
	// Query runs COM_QUERY text; it may write several results (multi-statements).
	Query(ctx context.Context, sql string, w ResultWriter) error
	Prepare(ctx context.Context, sql string) (Prepared, error)
	// Execute runs a prepared statement; rows are encoded in the binary protocol.
	Execute(ctx context.Context, p Prepared, args []types.Datum, w ResultWriter) error
	FieldList(ctx context.Context, table, wildcard string) ([]Column, error)
	Close()
}

// ConnectionResetter is optionally implemented by a Session: COM_RESET_CONNECTION
// calls it (after dropping prepared statements) to reset session state.
type ConnectionResetter interface {
	ResetConnection(ctx context.Context) error
}

// Prepared is a prepared statement's metadata, sent in the PREPARE response.
type Prepared interface {
	NumParams() int
	Params() []Column  // parameter definitions (may be shorter than NumParams: the rest are sent as VARCHAR "?")
	Columns() []Column // result columns (empty for statements without rows)
}

// Column is the metadata of one result column or parameter.
type Column struct {
	Schema, Table, OrgTable, Name, OrgName string
	Type                                   types.T
	Nullable                               bool
	PrimaryKey                             bool
}

// OK is a result without rows.
type OK struct {
	AffectedRows, LastInsertID uint64
	Warnings                   uint16
	Info                       string
}

// ResultWriter receives the results of one command. A result is either
// WriteOK, or WriteColumns + WriteRows* + WriteEnd. Several results may
// follow one another if SetMoreResults(true) was in effect when the previous
// one finished (the flag is sticky until set to false). When Query/Execute
// returns an error, the wire layer writes ERR in place of the pending
// closing packet; when it returns nil with nothing written it writes OK.
type ResultWriter interface {
	SetMoreResults(more bool)
	WriteOK(ok OK) error
	WriteColumns(cols []Column) error
	WriteRows(rec arrow.Record) error // columns in WriteColumns order, Arrow types = Column.Type.Arrow()
	WriteEnd() error
}

type ctxKey int

const multiStmtKey ctxKey = 0

// ClientMultiStatements reports whether the client of the command running
// with ctx allowed several statements in one COM_QUERY
// (CLIENT_MULTI_STATEMENTS or COM_SET_OPTION). Without it MySQL rejects
// "a; b" with a syntax error.
func ClientMultiStatements(ctx context.Context) bool {
	v, _ := ctx.Value(multiStmtKey).(bool)
	return v
}

// StatusReporter is optionally implemented by a Session: the status flags
// of every OK and EOF packet come from it (autocommit, in transaction), as
// drivers read them to know the session's transaction state.
type StatusReporter interface {
	ServerStatus() uint16
}

// WarningReporter is optionally implemented by a Session: the warning
// count of every OK and closing EOF of a result comes from it (the running
// statement's warnings, which SHOW WARNINGS then lists), unless the OK
// sets its own.
type WarningReporter interface {
	StatementWarnings() uint16
}

// The status flags a StatusReporter reports.
const (
	StatusInTrans    = mysql.SERVER_STATUS_IN_TRANS
	StatusAutocommit = mysql.SERVER_STATUS_AUTOCOMMIT
)
