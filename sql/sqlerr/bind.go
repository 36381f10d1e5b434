package sqlerr

// Errors of the binder's grouping-set support (MySQL 8 codes).
var (
	FieldInGroupingNotGroupBy = Kind{3580, "HY000", "Argument #%d of GROUPING function is not in GROUP BY"}
)
