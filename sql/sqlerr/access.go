package sqlerr

// Privilege errors: MySQL's codes with Doris's messages
// (fe/fe-core/.../common/ErrorCode.java).
var (
	// DBAccessDenied is a database-level privilege missing (USE, CREATE/DROP DATABASE, SHOW TABLES).
	DBAccessDenied = Kind{1044, "42000", "Access denied for user '%s'@'%s' to database '%s'"}
	// KillDenied is KILL of another user's connection without ADMIN_PRIV.
	KillDenied = Kind{1095, "HY000", "You are not owner of thread %d"}
	// NonexistingGrant is REVOKE of a grant that is not there, or SHOW GRANTS FOR an unknown user.
	NonexistingGrant = Kind{1141, "42000", "There is no such grant defined for user '%s' on host '%s'"}
	// TableAccessDenied names the command, the account and the table ('db.tbl').
	TableAccessDenied = Kind{1142, "42000", "%s command denied to user '%s'@'%s' for table '%s'"}
	// SpecificAccessDenied is a global privilege missing (ALTER SYSTEM, SET GLOBAL, GRANT, ...).
	SpecificAccessDenied = Kind{1227, "42000", "Access denied; you need (at least one of) the (%s) privilege(s) for this operation"}
)
