package catalog

import (
	"cmp"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// PartitionSpec is one partition as written in CREATE TABLE.
type PartitionSpec struct {
	Name string
	// Range: VALUES LESS THAN (Upper) leaves Lower nil (the previous
	// partition's upper bound); VALUES [(Lower), (Upper)) gives both.
	// A nil Upper is MAXVALUE.
	Lower, Upper *types.Datum
	// List: VALUES IN (...).
	Values []types.Datum
}

func rangeKeyOK(t types.T) bool { return t.IsInteger() || t.IsTemporal() }

func listKeyOK(t types.T) bool {
	return t.IsInteger() || t.IsTemporal() || t.IsString() || t.Kind == types.Boolean
}

// buildPartitions turns the specs into partitions (without ids or tablets),
// bounds coerced to the partition column's type. Range partitions written
// with LESS THAN start where the previous one ended; any overlap is an error.
func buildPartitions(kind PartKind, col Column, specs []PartitionSpec) ([]*Partition, error) {
	names := map[string]bool{}
	var parts []*Partition
	var prevUpper *types.Datum
	prevMax := false
	for i, s := range specs {
		if s.Name == "" {
			return nil, sqlerr.Doris.New("Partition name can not be empty")
		}
		if names[strings.ToLower(s.Name)] {
			return nil, sqlerr.Doris.New(fmt.Sprintf("Duplicate partition name %s", s.Name))
		}
		names[strings.ToLower(s.Name)] = true
		p := &Partition{Name: s.Name, VisibleVersion: 1, NextVersion: 2}
		switch kind {
		case PartRange:
			if len(s.Values) > 0 {
				return nil, sqlerr.Doris.New(fmt.Sprintf("Partition %s: VALUES IN is only for LIST partitions", s.Name))
			}
			derived := s.Lower == nil
			if derived {
				if i > 0 && prevMax {
					return nil, sqlerr.Doris.New(fmt.Sprintf("Range of partition %s is intersected with partition %s: the previous upper bound is MAXVALUE", s.Name, specs[i-1].Name))
				}
				p.Lower = prevUpper
			} else {
				lo, err := coerceBound(*s.Lower, col)
				if err != nil {
					return nil, err
				}
				p.Lower = &lo
			}
			if s.Upper != nil {
				hi, err := coerceBound(*s.Upper, col)
				if err != nil {
					return nil, err
				}
				p.Upper = &hi
			}
			if p.Lower != nil && p.Upper != nil && compareDatum(*p.Lower, *p.Upper) >= 0 {
				if derived {
					return nil, sqlerr.Doris.New(fmt.Sprintf("Range %s of partition %s is intersected with range of partition %s: upper bounds must increase",
						formatRange(p), s.Name, specs[i-1].Name))
				}
				return nil, sqlerr.Doris.New("The lower values must smaller than upper values")
			}
			prevUpper, prevMax = p.Upper, p.Upper == nil
		case PartList:
			if s.Lower != nil || s.Upper != nil || len(s.Values) == 0 {
				return nil, sqlerr.Doris.New(fmt.Sprintf("Partition %s of a LIST partitioned table needs VALUES IN (...)", s.Name))
			}
			for _, v := range s.Values {
				d, err := coerceBound(v, col)
				if err != nil {
					return nil, err
				}
				p.Values = append(p.Values, d)
			}
		}
		parts = append(parts, p)
	}
	switch kind {
	case PartRange:
		if err := checkRangeOverlap(parts); err != nil {
			return nil, err
		}
	case PartList:
		if err := checkListOverlap(parts); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// checkRangeOverlap sorts by lower bound (nil = MINVALUE first) and requires
// each range to start at or after the previous one's end.
func checkRangeOverlap(parts []*Partition) error {
	sorted := append([]*Partition(nil), parts...)
	sort.SliceStable(sorted, func(i, j int) bool { return compareLower(sorted[i].Lower, sorted[j].Lower) < 0 })
	for i := 1; i < len(sorted); i++ {
		a, b := sorted[i-1], sorted[i]
		if a.Upper == nil || b.Lower == nil || compareDatum(*b.Lower, *a.Upper) < 0 {
			return sqlerr.Doris.New(fmt.Sprintf("Range %s is intersected with range: %s", formatRange(b), formatRange(a)))
		}
	}
	return nil
}

func compareLower(a, b *types.Datum) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return compareDatum(*a, *b)
}

func checkListOverlap(parts []*Partition) error {
	seen := map[string]string{}
	for _, p := range parts {
		for _, v := range p.Values {
			k := v.String()
			if other, ok := seen[k]; ok {
				return sqlerr.Doris.New(fmt.Sprintf("The partition key[('%s')] in partition %s is conflict with partition %s", k, p.Name, other))
			}
			seen[k] = p.Name
		}
	}
	return nil
}

func formatRange(p *Partition) string {
	lo, hi := "MINVALUE", "MAXVALUE"
	if p.Lower != nil {
		lo = p.Lower.String()
	}
	if p.Upper != nil {
		hi = p.Upper.String()
	}
	return fmt.Sprintf("[%s, %s)", lo, hi)
}

// coerceBound converts a partition bound literal (typically a quoted string
// or an integer) to the partition column's type.
func coerceBound(d types.Datum, col Column) (types.Datum, error) {
	t := col.Type
	bad := func() (types.Datum, error) {
		return types.Datum{}, sqlerr.Doris.New(fmt.Sprintf("Invalid partition value '%s' for column %s of type %s", d.String(), col.Name, t))
	}
	if d.Null {
		return bad()
	}
	out := types.Datum{T: t}
	src := d.T
	switch {
	case t.Kind == types.LargeInt:
		switch {
		case src.Kind == types.LargeInt:
			out.Dec = d.Dec
		case src.IsInteger() || src.Kind == types.Boolean:
			out.Dec = decimal128.FromI64(d.I)
		case src.IsString():
			n, ok := parseLargeInt(strings.TrimSpace(d.S))
			if !ok {
				return bad()
			}
			out.Dec = n
		default:
			return bad()
		}
		out.Prepare()
	case t.IsInteger() || t.Kind == types.Boolean:
		switch {
		case src.IsInteger() && src.Kind != types.LargeInt, src.Kind == types.Boolean:
			out.I = d.I
		case src.IsString():
			s := strings.TrimSpace(d.S)
			if t.Kind == types.Boolean {
				switch strings.ToLower(s) {
				case "true":
					s = "1"
				case "false":
					s = "0"
				}
			}
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return bad()
			}
			out.I = v
		default:
			return bad()
		}
		if !intFits(t.Kind, out.I) {
			return bad()
		}
	case t.Kind == types.Date:
		switch {
		case src.Kind == types.Date:
			out.I = d.I
		case src.Kind == types.DateTime:
			out.I = floorDiv(d.I, 86400e6)
		case src.IsString():
			days, ok := types.ParseDate(d.S)
			if !ok {
				return bad()
			}
			out.I = int64(days)
		default:
			return bad()
		}
	case t.Kind == types.DateTime:
		switch {
		case src.Kind == types.DateTime:
			out.I = d.I
		case src.Kind == types.Date:
			out.I = d.I * 86400e6
		case src.IsString():
			us, ok := types.ParseDateTime(d.S)
			if !ok {
				return bad()
			}
			out.I = us
		default:
			return bad()
		}
	case t.IsString():
		if !src.IsString() {
			out.S = d.String()
		} else {
			out.S = d.S
		}
	default:
		return bad()
	}
	return out, nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func intFits(k types.Kind, v int64) bool {
	switch k {
	case types.Boolean:
		return v == 0 || v == 1
	case types.TinyInt:
		return v >= -128 && v <= 127
	case types.SmallInt:
		return v >= -32768 && v <= 32767
	case types.Int:
		return v >= -1<<31 && v <= 1<<31-1
	}
	return true
}

// compareDatum orders two non-NULL bounds of the same (coerced) type.
func compareDatum(a, b types.Datum) int {
	switch {
	case a.T.Kind == types.LargeInt:
		return a.Dec.Cmp(b.Dec)
	case a.T.IsString():
		return strings.Compare(a.S, b.S)
	}
	return cmp.Compare(a.I, b.I)
}

// PartitionIndex is the index of the partition of t holding a value of its
// partition column, -1 when none does (always 0 for an unpartitioned table).
func (t *Table) PartitionIndex(v types.Datum) int {
	for i, p := range t.Partitions {
		switch t.PartKind {
		case PartNone:
			return i
		case PartRange:
			if types.RangeHolds(p.Lower, p.Upper, v) {
				return i
			}
		case PartList:
			if types.ListHolds(p.Values, v) {
				return i
			}
		}
	}
	return -1
}

// PartitionByName finds a partition (case-insensitive, as Doris).
func (t *Table) PartitionByName(name string) *Partition {
	for _, p := range t.Partitions {
		if strings.EqualFold(p.Name, name) {
			return p
		}
	}
	return nil
}

// PartitionByID finds a partition by id.
func (t *Table) PartitionByID(id PartitionID) *Partition {
	for _, p := range t.Partitions {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// LARGEINT spans 39 digits, beyond a 38-digit decimal; go through big.Int.
var (
	maxLargeInt = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	minLargeInt = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
)

func parseLargeInt(s string) (decimal128.Num, bool) {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Cmp(maxLargeInt) > 0 || v.Cmp(minLargeInt) < 0 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(v), true
}

// restoreTable rebuilds the bounds' 128-bit values from their text mirror
// after a JSON load (types.Datum.Restore is limited to 38 digits).
func restoreTable(t *Table) {
	restore := func(d *types.Datum) {
		if d != nil && d.DecS != "" {
			d.Dec, _ = parseLargeInt(d.DecS)
		}
	}
	for _, p := range t.Partitions {
		restore(p.Lower)
		restore(p.Upper)
		for i := range p.Values {
			restore(&p.Values[i])
		}
	}
}
