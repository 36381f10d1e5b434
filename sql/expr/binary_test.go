package expr

import (
	"math"
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
)

// TestBinaryCoversFields fails when an expression node, a type or a value
// gains a field: AppendBinary writes fields one by one, so the new field
// must be added there (and to execution/rpc's TestPlanRoundTrip values).
func TestBinaryCoversFields(t *testing.T) {
	for _, c := range []struct {
		v any
		n int
	}{{ColRef{}, 5}, {Const{}, 1}, {Param{}, 2}, {Call{}, 4}, {Cast{}, 3}, {Case{}, 4}, {When{}, 2},
		{types.T{}, 5}, {types.Datum{}, 8}} {
		if got := reflect.TypeOf(c.v).NumField(); got != c.n {
			t.Errorf("%T has %d fields, binary.go encodes %d", c.v, got, c.n)
		}
	}
}

// TestBinaryNaN: a NaN constant keeps its bits (DeepEqual cannot say so).
func TestBinaryNaN(t *testing.T) {
	b, err := AppendBinary(nil, &Const{Val: types.FloatDatum(math.NaN())})
	if err != nil {
		t.Fatal(err)
	}
	e, err := DecodeBinary(b)
	if err != nil {
		t.Fatal(err)
	}
	if f := e.(*Const).Val.F; !math.IsNaN(f) {
		t.Fatalf("NaN decoded as %v", f)
	}
	if _, err := DecodeBinary(append(b, b...)); err == nil {
		t.Fatal("two expressions decoded as one")
	}
}
