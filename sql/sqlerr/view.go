package sqlerr

// Views (CREATE/ALTER/DROP VIEW and queries through them): MySQL's codes,
// with Doris's wording where Doris has its own.
var (
	// WrongObject is a statement for one kind of object naming another:
	// DROP VIEW of a table, DROP TABLE of a view, ALTER VIEW of a table.
	// The last argument is Doris's hint (". Use 'DROP TABLE db.t'.") or "".
	WrongObject = Kind{1347, "HY000", "'%s.%s' is not %s%s"}
	// ViewSelectVariable is a view query reading a user variable or a
	// prepared statement's parameter, which have no value when it is used.
	ViewSelectVariable = Kind{1351, "HY000", "View's SELECT contains a variable or parameter"}
	// ViewWrongList is a column list whose length differs from the SELECT's.
	ViewWrongList = Kind{1353, "HY000", "View's SELECT and view's field list have different column counts"}
	// ViewInvalid is a view whose SELECT no longer yields its columns.
	ViewInvalid = Kind{1356, "HY000", "View '%s.%s' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them"}
	// ViewRecursive is a view that reaches itself through its definition.
	ViewRecursive = Kind{1462, "HY000", "`%s`.`%s` contains view recursion"}
	// NonInsertable is an INSERT into a view. Doris names the object's type
	// where MySQL names the statement: "of the VIEW".
	NonInsertable = Kind{1471, "HY000", "The target table %s of the %s is not insertable-into"}
)
