// Package sqlerr declares every user-facing error once, with its MySQL code,
// SQLSTATE and message format. Lower layers return these (wrapped with %w if
// they add context); the server converts once with As.
package sqlerr

import (
	"errors"
	"fmt"
)

// Code is a MySQL error number.
type Code uint16

// Error is a user error with a MySQL code and SQLSTATE.
type Error struct {
	Code    Code
	State   string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("ERROR %d (%s): %s", e.Code, e.State, e.Message) }

// Kind is one declared error: a code, a state and a format.
type Kind struct {
	Code   Code
	State  string
	Format string
}

// New formats an error of this kind.
func (k Kind) New(args ...any) *Error {
	return &Error{Code: k.Code, State: k.State, Message: fmt.Sprintf(k.Format, args...)}
}

// Is lets errors.Is(err, sqlerr.NoSuchTable) match any error of the kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// Match returns a sentinel usable with errors.Is for this kind.
func (k Kind) Match() error { return &Error{Code: k.Code, State: k.State} }

// The declared errors. Messages follow MySQL 8 (or Doris where it is Doris-only).
var (
	ConCount                     = Kind{1040, "08004", "Too many connections"}
	AccessDenied                 = Kind{1045, "28000", "Access denied for user '%s'@'%s' (using password: %s)"}
	NoDB                         = Kind{1046, "3D000", "No database selected"}
	UnknownCommand               = Kind{1047, "08S01", "Unknown command"}
	BadNull                      = Kind{1048, "23000", "Column '%s' cannot be null"}
	NoDefault                    = Kind{1364, "HY000", "Field '%s' doesn't have a default value"}
	BadDB                        = Kind{1049, "42000", "Unknown database '%s'"}
	TableExists                  = Kind{1050, "42S01", "Table '%s' already exists"}
	BadTable                     = Kind{1051, "42S02", "Unknown table '%s'"}
	NonUniq                      = Kind{1052, "23000", "Column '%s' in %s is ambiguous"}
	BadField                     = Kind{1054, "42S22", "Unknown column '%s' in '%s'"}
	WrongFieldWithGrp            = Kind{1055, "42000", "Expression #%d of SELECT list is not in GROUP BY clause and contains nonaggregated column '%s' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by"}
	DupFieldName                 = Kind{1060, "42S21", "Duplicate column name '%s'"}
	ParseError                   = Kind{1064, "42000", "%s"}
	EmptyQuery                   = Kind{1065, "42000", "Query was empty"}
	NonUniqTable                 = Kind{1066, "42000", "Not unique table/alias: '%s'"}
	InvalidDefault               = Kind{1067, "42000", "Invalid default value for '%s'"}
	KeyColumnMissing             = Kind{1072, "42000", "Key column '%s' doesn't exist in table"}
	NoSuchThread                 = Kind{1094, "HY000", "Unknown thread id: %d"}
	WrongValueCount              = Kind{1136, "21S01", "Column count doesn't match value count at row %d"}
	TooLongIdent                 = Kind{1059, "42000", "Identifier name '%s' is too long"}
	MixOfGroupFunc               = Kind{1140, "42000", "In aggregated query without GROUP BY, expression #%d of SELECT list contains nonaggregated column '%s'; this is incompatible with sql_mode=only_full_group_by"}
	PasswordNoMatch              = Kind{1133, "42000", "Can't find any matching row in the user table"}
	NoSuchTable                  = Kind{1146, "42S02", "Table '%s.%s' doesn't exist"}
	Syntax                       = Kind{1149, "42000", "%s"}
	NetPacketTooLarge            = Kind{1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes"}
	UnknownSystemVar             = Kind{1193, "HY000", "Unknown system variable '%s'"}
	CannotUser                   = Kind{1396, "HY000", "Operation %s failed for %s"}
	WrongArguments               = Kind{1210, "HY000", "Incorrect arguments to %s"}
	WrongValueForVar             = Kind{1231, "42000", "Variable '%s' can't be set to the value of '%s'"}
	WrongTypeForVar              = Kind{1232, "42000", "Incorrect argument type to variable '%s'"}
	OperandColumns               = Kind{1241, "21000", "Operand should contain %d column(s)"}
	SubqueryNo1Row               = Kind{1242, "21000", "Subquery returns more than 1 row"}
	UnknownStmt                  = Kind{1243, "HY000", "Unknown prepared statement handler (%s) given to %s"}
	IllegalReference             = Kind{1247, "42S22", "Reference '%s' not supported (%s)"}
	DerivedMustAlias             = Kind{1248, "42000", "Every derived table must have its own alias"}
	WarnDataOutOfRange           = Kind{1264, "22003", "Out of range value for column '%s' at row %d"}
	NotSupportedYet              = Kind{1235, "42000", "This version of MySQL doesn't yet support '%s'"}
	TruncatedWrongValue          = Kind{1292, "22007", "Incorrect %s value: '%s' for column '%s' at row %d"}
	LockWaitTimeout              = Kind{1205, "HY000", "Lock wait timeout exceeded; try restarting transaction: %s"}
	QueryInterrupted             = Kind{1317, "70100", "Query execution was interrupted"}
	SPDoesNotExist               = Kind{1305, "42000", "FUNCTION %s does not exist"}
	WrongParamCount              = Kind{1582, "42000", "Incorrect parameter count in the call to native function '%s'"}
	DataTooLong                  = Kind{1406, "22001", "Data too long for column '%s' at row %d"}
	DivisionByZero               = Kind{1365, "22012", "Division by 0"}
	IncorrectValue               = Kind{1366, "HY000", "Incorrect %s value: '%s' for column '%s' at row %d"}
	DataOutOfRange               = Kind{1690, "22003", "%s value is out of range in '%s'"}
	QueryTimeout                 = Kind{3024, "HY000", "Query execution was interrupted, maximum statement execution time exceeded"}
	DBCreateExists               = Kind{1007, "HY000", "Can't create database '%s'; database exists"}
	DBDropExists                 = Kind{1008, "HY000", "Can't drop database '%s'; database doesn't exist"}
	WrongDBName                  = Kind{1102, "42000", "Incorrect database name '%s'"}
	WrongTableName               = Kind{1103, "42000", "Incorrect table name '%s'"}
	UnknownTableIn               = Kind{1109, "42S02", "Unknown table '%s' in %s"}
	FieldSpecifiedTwice          = Kind{1110, "42000", "Column '%s' specified twice"}
	InvalidGroupFunc             = Kind{1111, "HY000", "Invalid use of group function"}
	UnsupportedPS                = Kind{1295, "HY000", "This command is not supported in the prepared statement protocol yet"}
	WrongColumnName              = Kind{1166, "42000", "Incorrect column name '%s'"}
	CantAggregate2Collations     = Kind{1267, "HY000", "Illegal mix of collations"}
	NonGroupingInHaving          = Kind{1463, "42000", "Non-grouping field '%s' is used in HAVING clause"}
	WrongNumberOfColumnsInSelect = Kind{1222, "21000", "The used SELECT statements have a different number of columns"}
	MemLimitExceeded             = Kind{1105, "HY000", "Memory limit exceeded: query used more than exec_mem_limit = %d bytes (%s)"}
	// Doris-specific errors use 1105 (ERR_UNKNOWN_ERROR) as Doris does, except
	// colocate mismatches which Doris reports as 5063.
	Colocate = Kind{5063, "42000", "%s"}
	Doris    = Kind{1105, "HY000", "%s"}
	// ObjectMisuse is Doris's refusal of a BITMAP, HLL or JSON value in a
	// comparison, GROUP BY or ORDER BY.
	ObjectMisuse = Kind{1105, "HY000", "Doris hll, bitmap, array, map, struct, jsonb, variant column must use with specific function, and don't support filter, group by or order by. please run 'help hll' or 'help bitmap' or 'help array' or 'help map' or 'help struct' or 'help jsonb' or 'help variant' in your mysql client."}
	Internal     = Kind{1105, "HY000", "internal error: %s"}
)

// As extracts the *Error in err's chain, or wraps an unknown error as 1105.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: 1105, State: "HY000", Message: err.Error()}
}

// Assertf reports a broken invariant as error 1105; it is the one place
// where internal bugs become user-visible errors.
func Assertf(format string, args ...any) *Error {
	return Internal.New(fmt.Sprintf(format, args...))
}
