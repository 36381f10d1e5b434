package storage

// DiskUsage is the bytes the store occupies on disk (Pebble's sstables,
// logs and manifests: what SHOW BACKENDS calls DataUsedCapacity).
func (s *Store) DiskUsage() int64 { return int64(s.db.Metrics().DiskSpaceUsage()) }
