// Package wire is the MySQL wire protocol layer of dorisgo (layer 5, below
// the session/SQL layer of package server).
//
// Inputs: TCP connections. Outputs: calls on a Handler (accounts, sessions)
// and Session (InitDB, Query, Prepare, Execute, FieldList); results come
// back through a ResultWriter as column metadata plus Arrow records, which
// this package encodes as text or binary protocol rows. It knows nothing
// about SQL.
//
// From go-mysql v1.13.0 it uses only packet.Conn (framing, sequence numbers,
// 16 MB splitting), the mysql constants and mysql.Field.Dump. The command
// layer is its own, because go-mysql's server package has the defects listed
// in shared/spec/WIRE-PROTOCOL.md. Design:
//
//   - One goroutine per connection (conn.serve) with one recover() around the
//     handshake and every command: a panic is logged with its stack, the
//     client gets ERR 1105 and only that connection closes.
//   - bufConn buffers both directions; pending output is flushed before every
//     read, after every command and on close, so a login's ERR 1045 reaches
//     the client and a result set costs no syscall per row.
//   - Results are streamed: every row is one packet written to the buffer as
//     soon as WriteRows receives its record; no result set is held in memory.
//   - Each command runs with a context derived from the connection's;
//     ConnInfo.Cancel cancels it (KILL CONNECTION): a blocked idle read is
//     interrupted and the connection closes after the running command.
//     While a query or execute runs, conn.watchPeer peeks at the socket: a
//     client that hangs up (a driver's timeout) cancels the command, so an
//     abandoned query does not keep the backends busy.
//   - Deadlines: 10 s for the whole handshake, Config.WaitTimeout between
//     commands, 60 s per socket write. Incoming packets are capped at
//     MaxAllowedPacket (1 MiB before authentication) while reading.
//   - Decoders (parseHandshakeResponse, parseStmtExecute, readPacket) use a
//     bounds-checked reader and return errors; fuzz targets cover them.
//
// Authentication: the greeting offers mysql_native_password. Hashes are
// stored, never passwords (Account). Native replies are checked as
// SHA1(reply XOR SHA1(salt‖stored)) == stored; caching_sha2_password fast
// auth as SHA256(reply XOR SHA256(stored‖salt)) == stored; full auth takes
// the clear password over TLS or RSA-OAEP (key generated on first use) and
// hashes it. A plugin switch happens at most once. Unknown user and wrong
// password both give ERR 1045; the handshake database is applied with
// Session.InitDB only after authentication.
//
// Metadata: see field() for the type mapping. LARGEINT is sent as
// MYSQL_TYPE_STRING (utf8mb4, 40 characters) as Doris FE does by default;
// STRING as BLOB (TEXT to clients), CHAR as STRING, VARCHAR as VAR_STRING.
//
// Prepared-statement parameters (COM_STMT_EXECUTE) become typed Datums:
// all integers BIGINT (unsigned above MaxInt64: LARGEINT), FLOAT/DOUBLE,
// DECIMAL(p,s) with p,s taken from the text, binary DATE → DATE and
// DATETIME/TIMESTAMP → DATETIME (scale 6 when microseconds are present;
// zero or invalid dates are passed on as text), TIME and strings → VARCHAR.
// Parameter types are kept per statement for executes with
// new-params-bound-flag 0; long data parameters are not read from the
// execute packet.
//
// WIRE-PROTOCOL.md items and where they are handled:
//
//	1  recover per connection                 conn.go serve; fuzz_test.go
//	2  caching_sha2 without TLS/RSA           server.go (self-signed TLS, lazy RSA key); auth.go
//	3  params NULL on flag-0 re-execute       stmt.go parseStmtExecute (stmt.types)
//	4  param types lost                       stmt.go readParam, dateParam, decimalParam
//	5  error codes lost when wrapped          conn.go sendErr (sqlerr.As, errors.As)
//	6  dummy PREPARE metadata                 stmt.go stmtPrepare (Prepared.Params/Columns)
//	7  buffered result sets                   result.go resultWriter (row per packet)
//	8  one syscall per packet, lost 1045      netconn.go bufConn; conn.go close
//	9  unknown user → 1449                    auth.go authenticate (1045)
//	10 db applied before auth                 handshake.go handshake → startSession
//	11 status 0 in greeting/OK                handshake.go greeting; conn.status
//	12 fixed capabilities                     handshake.go serverCaps; result.go multi-results
//	13 no limits or timeouts                  netconn.go readPacket/limitBuf; conn.go deadlines
//	14 no context                             conn.go cmdContext, ConnInfo.Cancel, COM_PROCESS_KILL
//	15 RESET_CONNECTION, STATISTICS, CHANGE_USER  conn.go dispatch; handshake.go changeUser
//	16 long data misaligns parameters         stmt.go parseStmtExecute
//	17 plaintext credentials                  auth.go checkNative/checkSha2/checkPlain
//	18 attributes lost after auth switch      handshake.go (parsed before any switch)
//	19 toy result-set builders                coldef.go field
//	20 unbuffered TLS reads                   handshake.go upgradeTLS (bufConn over tls.Conn)
//
// Not implemented: compression, CLIENT_SESSION_TRACK, query attributes,
// cursors / COM_STMT_FETCH (cursor flags are ignored and rows streamed, which
// the protocol allows), COM_BINLOG_*, LOCAL INFILE.
package wire
