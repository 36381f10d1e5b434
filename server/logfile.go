package server

import (
	"io"

	"gopkg.in/natefinch/lumberjack.v2"
)

// LogFile is a process log at path (--log-file) rotated as the audit log
// is: at 100 MB, 10 old files kept (Doris's sys_log_roll_num is 10 too).
// It is here because the server owns the rotation dependency (layers_test).
func LogFile(path string) io.WriteCloser {
	return &lumberjack.Logger{Filename: path, MaxSize: 100, MaxBackups: 10}
}
