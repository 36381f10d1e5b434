package parser

import (
	"github.com/dorisgo/dorisgo/sql/types"
)

// nestedType reads the rest of ARRAY<T>, MAP<K, V> or STRUCT<a:T, b:U>
// after its name (ok false for any other name).
func (c *cursor) nestedType(name string) (types.T, bool) {
	switch name {
	case "ARRAY", "MAP", "STRUCT":
	default:
		return types.T{}, false
	}
	c.expectP("<")
	var out types.T
	switch name {
	case "ARRAY":
		out = types.ArrayOf(c.columnType())
	case "MAP":
		k := c.columnType()
		c.expectP(",")
		out = types.MapOf(k, c.columnType())
	case "STRUCT":
		var fs []types.Field
		for c.err == nil {
			f := types.Field{Name: c.ident()}
			c.expectP(":")
			f.T = c.columnType()
			c.accept("COMMENT") // field comments are allowed and dropped
			fs = append(fs, f)
			if !c.acceptP(",") {
				break
			}
		}
		out = types.StructOf(fs)
	}
	c.closeAngle()
	return out, true
}

// closeAngle consumes one '>', splitting the lexer's '>>' of nested types.
func (c *cursor) closeAngle() {
	if c.err != nil {
		return
	}
	if t := c.peek(); t.isP(">>") {
		c.toks[c.i].val = ">"
		c.toks[c.i].pos++
		return
	}
	c.expectP(">")
}
