package sqlerr

// ALTER TABLE: MySQL's codes for partitions, as Doris reports them.
var (
	// DropPartitionNonExistent is DROP PARTITION of a partition the table
	// does not have (Doris's ERR_DROP_PARTITION_NON_EXISTENT).
	DropPartitionNonExistent = Kind{1507, "HY000", "Error in list of partitions to %s"}
	// SamePartitionName is ADD PARTITION of a name the table already has.
	SamePartitionName = Kind{1517, "HY000", "Duplicate partition name %s"}
)
