package server

import "testing"

func TestRedactPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"CREATE USER 'u'@'%' IDENTIFIED BY 'se''cr\\'et'":     "CREATE USER 'u'@'%' IDENTIFIED BY '*****'",
		"create user u identified by password \"*ABC\"":       "create user u identified by password '*****'",
		"SET PASSWORD FOR 'u'@'%' = PASSWORD('p3')":           "SET PASSWORD FOR 'u'@'%' = PASSWORD('*****')",
		"SET PASSWORD = 'p4'":                                 "SET PASSWORD = '*****'",
		"ALTER USER 'u'@'%' IDENTIFIED BY 'x' DEFAULT ROLE r": "ALTER USER 'u'@'%' IDENTIFIED BY '*****' DEFAULT ROLE r",
		"SELECT 'IDENTIFIED'":                                 "SELECT 'IDENTIFIED'",
	} {
		if got := redactPasswords(in); got != want {
			t.Errorf("redactPasswords(%q) = %q, want %q", in, got, want)
		}
	}
}
