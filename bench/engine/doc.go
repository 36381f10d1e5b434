// Package engine runs the benchmark queries on the three engines: dorisgo
// (a subprocess, standalone or FE + BEs, over MySQL and HTTP stream load),
// DuckDB embedded, and go-mysql-server's memory engine on loopback. Results
// come back as normalized string rows so they can be compared.
package engine
