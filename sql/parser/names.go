package parser

import (
	"strings"
	"unicode/utf8"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// MySQL's identifier limits (NAME_CHAR_LEN and the alias limit), in
// characters: databases, tables, columns, table aliases and every other
// identifier have at most 64, column aliases at most 256. A longer one is
// 1059; before, a table named with a megabyte of text was created.
const (
	maxIdentLen = 64
	maxAliasLen = 256
)

// checkNames returns 1059 for the first identifier of st over its limit.
func checkNames(st Statement) error {
	switch x := st.(type) {
	case *Vitess:
		return checkVitessNames(x.AST)
	case *Explain:
		return checkNames(x.Stmt)
	case *CreateTable:
		names := []string{x.DB, x.Name}
		for _, c := range x.Columns {
			names = append(names, c.Name)
		}
		for _, p := range x.Partitions {
			names = append(names, p.Name)
		}
		return checkIdents(names...)
	case *AlterTableSet:
		return checkIdents(x.DB, x.Table)
	case *AlterTable:
		names := []string{x.DB, x.Table}
		for _, op := range x.Ops {
			names = append(names, op.Name, op.NewName)
			for _, col := range op.Columns {
				names = append(names, col.Name)
			}
		}
		return checkIdents(names...)
	case *ShowTablets:
		return checkIdents(x.DB, x.Table)
	case *Analyze:
		return checkIdents(append([]string{x.DB, x.Table}, x.Columns...)...)
	case *ShowColumnStats:
		return checkIdents(append([]string{x.DB, x.Table}, x.Columns...)...)
	case *DropStats:
		return checkIdents(append([]string{x.DB, x.Table}, x.Columns...)...)
	case *ShowPartitions:
		return checkIdents(x.DB, x.Table)
	case *ShowCreateTable:
		return checkIdents(x.DB, x.Table)
	case *ShowCreateView:
		return checkIdents(x.DB, x.View)
	case *CreateView:
		names := []string{x.DB, x.Name}
		for _, c := range x.Columns {
			names = append(names, c.Name)
		}
		if err := checkIdents(names...); err != nil {
			return err
		}
		return checkNames(x.Query)
	}
	return nil
}

func checkIdents(names ...string) error {
	for _, n := range names {
		if err := checkLen(n, maxIdentLen); err != nil {
			return err
		}
	}
	return nil
}

func checkLen(name string, limit int) error {
	if len(name) <= limit || utf8.RuneCountInString(name) <= limit {
		return nil
	}
	// MySQL quotes the name in a message of at most 512 bytes: a longer
	// one shows its first 64 characters.
	if r := []rune(name); len(r) > maxAliasLen {
		name = string(r[:maxIdentLen]) + "..."
	}
	return sqlerr.TooLongIdent.New(name)
}

func checkVitessNames(ast sqlparser.SQLNode) error {
	var visit sqlparser.Visit
	visit = func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case sqlparser.TableIdent:
			return false, checkLen(x.String(), maxIdentLen)
		case sqlparser.ColIdent:
			return false, checkLen(x.String(), maxIdentLen)
		case *sqlparser.AliasedExpr:
			if err := checkLen(x.As.String(), maxAliasLen); err != nil {
				return false, err
			}
			return false, sqlparser.Walk(visit, x.Expr)
		case *sqlparser.DBDDL:
			return true, checkLen(x.DBName, maxIdentLen)
		}
		return true, nil
	}
	return sqlparser.Walk(visit, ast)
}

// maxNesting is how deep vitess lets parentheses nest: its grammar counts
// every '(' (sqlparser's incNesting) and stops at 200, to bound the
// recursion of everything that walks the tree. 200 derived tables, one
// inside the other, need 200.
const maxNesting = 199

// nestingError is vitess's "max nesting level reached" as MySQL's 1473
// naming the limit: the statement is valid, so 1064 (syntax) would lie.
func nestingError(err error) error {
	if !strings.Contains(err.Error(), "max nesting level reached") {
		return nil
	}
	return sqlerr.TooDeepNesting.New(maxNesting)
}
