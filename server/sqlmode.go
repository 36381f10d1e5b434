package server

import (
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// sql_mode, as far as dorisgo honours it.
//
// ONLY_FULL_GROUP_BY is honoured: without it a select list, HAVING or
// ORDER BY may name a column that is neither grouped nor aggregated, which
// then takes any value of its group (MySQL's, and ANY_VALUE's).
//
// The other modes of MySQL 5.7's default (STRICT_TRANS_TABLES,
// STRICT_ALL_TABLES, NO_ZERO_IN_DATE, NO_ZERO_DATE,
// ERROR_FOR_DIVISION_BY_ZERO, NO_AUTO_CREATE_USER, NO_ENGINE_SUBSTITUTION)
// and NO_DIR_IN_CREATE are accepted and change nothing: dorisgo, as Doris,
// behaves the same with or without them (INSERT converts strictly and
// stream load follows strict_mode whatever sql_mode says; there are no
// engines, no zero dates, no automatic users; a division by zero is NULL).
// Clients set that default list on connect, so refusing it would break
// them.
//
// The modes that would change how statements parse or compute
// (PIPES_AS_CONCAT, ANSI_QUOTES, NO_BACKSLASH_ESCAPES, REAL_AS_FLOAT,
// HIGH_NOT_PRECEDENCE, ...) are refused with 1235 naming the mode, rather
// than accepted and ignored; a name MySQL does not know is 1231.
var sqlModes = map[string]bool{ // name → honoured or inert (true), refused (false)
	"ONLY_FULL_GROUP_BY":         true,
	"STRICT_TRANS_TABLES":        true,
	"STRICT_ALL_TABLES":          true,
	"NO_ZERO_IN_DATE":            true,
	"NO_ZERO_DATE":               true,
	"ERROR_FOR_DIVISION_BY_ZERO": true,
	"NO_AUTO_CREATE_USER":        true,
	"NO_ENGINE_SUBSTITUTION":     true,
	"NO_DIR_IN_CREATE":           true,
	"PIPES_AS_CONCAT":            false,
	"ANSI_QUOTES":                false,
	"NO_BACKSLASH_ESCAPES":       false,
	"REAL_AS_FLOAT":              false,
	"IGNORE_SPACE":               false,
	"HIGH_NOT_PRECEDENCE":        false,
	"NO_UNSIGNED_SUBTRACTION":    false,
	"NO_AUTO_VALUE_ON_ZERO":      false,
	"ALLOW_INVALID_DATES":        false,
	"PAD_CHAR_TO_FULL_LENGTH":    false,
	"TIME_TRUNCATE_FRACTIONAL":   false,
	"NO_FIELD_OPTIONS":           false,
	"NO_KEY_OPTIONS":             false,
	"NO_TABLE_OPTIONS":           false,
}

// sqlModeSets are MySQL's combination modes, by what they stand for.
var sqlModeSets = map[string][]string{
	"TRADITIONAL": {"STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE",
		"ERROR_FOR_DIVISION_BY_ZERO", "NO_AUTO_CREATE_USER", "NO_ENGINE_SUBSTITUTION"},
	"ANSI": {"REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "ONLY_FULL_GROUP_BY"},
}

// normalizeSQLMode checks a sql_mode value and returns it as MySQL shows
// it: upper case, combination modes expanded, each mode once, in the
// order given.
func normalizeSQLMode(val string) (string, error) {
	var out []string
	seen := map[string]bool{}
	var add func(m, given string) error
	add = func(m, given string) error {
		if set, ok := sqlModeSets[m]; ok {
			for _, x := range set {
				if err := add(x, x); err != nil {
					return err
				}
			}
			return nil
		}
		ok, known := sqlModes[m]
		switch {
		case !known:
			return sqlerr.WrongValueForVar.New("sql_mode", given)
		case !ok:
			return sqlerr.NotSupportedYet.New("sql_mode " + m)
		}
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
		return nil
	}
	for _, given := range strings.Split(val, ",") {
		m := strings.ToUpper(strings.TrimSpace(given))
		if m == "" {
			continue
		}
		if err := add(m, strings.TrimSpace(given)); err != nil {
			return "", err
		}
	}
	return strings.Join(out, ","), nil
}

// hasSQLMode reports whether the sql_mode value mode lists m.
func hasSQLMode(mode, m string) bool {
	for _, x := range strings.Split(mode, ",") {
		if strings.EqualFold(strings.TrimSpace(x), m) {
			return true
		}
	}
	return false
}
