//go:build unix

package be

import "syscall"

// diskCapacity is the total and available bytes of the file system holding
// dir (0, 0 when it cannot be read).
func diskCapacity(dir string) (total, avail int64) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0
	}
	return int64(st.Blocks) * int64(st.Bsize), int64(st.Bavail) * int64(st.Bsize)
}
