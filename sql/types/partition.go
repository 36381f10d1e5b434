package types

// RangeHolds reports whether the range partition [lower, upper) holds v
// (nil bounds are MINVALUE / MAXVALUE); NULL sorts lowest, so it belongs to
// the partition without a lower bound.
func RangeHolds(lower, upper *Datum, v Datum) bool {
	if v.Null {
		return lower == nil
	}
	if lower != nil && Compare(v, *lower) < 0 {
		return false
	}
	return upper == nil || Compare(v, *upper) < 0
}

// ListHolds reports whether a list partition of values holds v.
func ListHolds(values []Datum, v Datum) bool {
	for _, x := range values {
		if Compare(v, x) == 0 && v.Null == x.Null {
			return true
		}
	}
	return false
}
