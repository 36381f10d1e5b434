package server_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestE2EMariaDBCLI runs a short script through the mariadb command-line
// client, as a new user would, and checks its output text.
func TestE2EMariaDBCLI(t *testing.T) {
	bin, err := exec.LookPath("mariadb")
	if err != nil {
		if os.Getenv("CI") != "true" {
			t.Skip("mariadb client not installed (CI installs it)")
		}
		t.Fatalf("mariadb client missing in CI: %v", err)
	}
	s := newServer(t)
	host, port, _ := net.SplitHostPort(s.MySQLAddr())
	run := func(args ...string) (string, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"-h" + host, "-P" + port, "--skip-ssl", "--default-character-set=utf8mb4"}, args...)...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}

	script := `CREATE DATABASE cli;
USE cli;
CREATE TABLE t (id INT NOT NULL, name VARCHAR(20), amount DECIMAL(8,2)) DUPLICATE KEY(id)
  DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1");
INSERT INTO t VALUES (1, 'alpha', 1.5), (2, 'ünï 世界', NULL), (3, 'three', -0.25);
SELECT id, name, amount FROM t WHERE id = 2;
SELECT name FROM t WHERE amount < 0;
SELECT DATABASE(), @@version_comment;`
	out, errOut, err := run("-uroot", "-e", script)
	if err != nil {
		t.Fatalf("mariadb: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	want := "id\tname\tamount\n2\tünï 世界\tNULL\n" +
		"name\nthree\n" +
		"DATABASE()\t@@version_comment\ncli\tdorisgo (Apache Doris compatible)\n"
	if out != want {
		t.Errorf("mariadb output:\n%s\nwant:\n%s", out, want)
	}

	// Table output (-t) as a user reads it.
	out, errOut, err = run("-uroot", "-t", "cli", "-e", "SELECT id, name FROM t WHERE id = 1")
	if err != nil {
		t.Fatalf("mariadb -t: %v: %s", err, errOut)
	}
	wantTable := "+----+-------+\n| id | name  |\n+----+-------+\n|  1 | alpha |\n+----+-------+\n"
	if out != wantTable {
		t.Errorf("mariadb -t output:\n%s\nwant:\n%s", out, wantTable)
	}

	// An error: exit status 1 and MySQL's message on stderr.
	_, errOut, err = run("-uroot", "cli", "-e", "SELECT * FROM nosuch")
	if err == nil || !strings.Contains(errOut, "ERROR 1146 (42S02)") || !strings.Contains(errOut, "nosuch") {
		t.Errorf("bad query: err %v, stderr %q", err, errOut)
	}

	// A created user logs in with -p; a wrong password is refused with 1045.
	if _, errOut, err := run("-uroot", "-e", "CREATE USER 'cliuser'@'%' IDENTIFIED BY 'pw'"); err != nil {
		t.Fatalf("CREATE USER: %v: %s", err, errOut)
	}
	out, errOut, err = run("-ucliuser", "-ppw", "-N", "-e", "SELECT 41 + 1")
	if err != nil || out != "42\n" {
		t.Errorf("login as cliuser: %q %v %s", out, err, errOut)
	}
	_, errOut, err = run("-ucliuser", "-pwrong", "-e", "SELECT 1")
	if err == nil || !strings.Contains(errOut, "ERROR 1045 (28000)") {
		t.Errorf("wrong password: err %v, stderr %q", err, errOut)
	}
}
