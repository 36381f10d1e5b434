package sqlerr

// Limits on the size of a statement: MySQL's codes, with the limit named.
var (
	// TooManyTables is a FROM clause joining more tables than the planner
	// takes (planner/bind: maxJoinTables).
	TooManyTables = Kind{1116, "HY000", "Too many tables; MySQL can only use %d tables in a join"}
	// TooDeepNesting is parentheses (subqueries, derived tables,
	// expressions) nested deeper than the parser's limit.
	TooDeepNesting = Kind{1473, "HY000", "Too high level of nesting for select: the parser allows %d nested parentheses"}
)
