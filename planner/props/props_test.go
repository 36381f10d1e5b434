package props

import (
	"testing"

	"github.com/dorisgo/dorisgo/planner/logical"
)

func TestSatisfies(t *testing.T) {
	g := &BucketLayout{Group: 7, Table: 1, Buckets: 8}
	g2 := &BucketLayout{Group: 7, Table: 2, Buckets: 8}
	t1 := &BucketLayout{Table: 1, Buckets: 8}
	t3 := &BucketLayout{Table: 3, Buckets: 8}
	eq := NewEquivClasses()
	eq.Union(1, 11)
	ids := func(c ...logical.ColumnID) []logical.ColumnID { return c }
	cases := []struct {
		name string
		d    Delivered
		r    Required
		want bool
	}{
		{"any", Delivered{Kind: DelRandom}, Required{Kind: ReqAny}, true},
		{"single", Delivered{Kind: DelSingle}, Required{Kind: ReqSingle}, true},
		{"random not single", Delivered{Kind: DelRandom}, Required{Kind: ReqSingle}, false},
		{"exec hash exact", Delivered{Kind: DelExecHash, Keys: ids(1)}, Required{Kind: ReqHash, Keys: ids(1)}, true},
		{"exec hash equiv", Delivered{Kind: DelExecHash, Keys: ids(11)}, Required{Kind: ReqHash, Keys: ids(1)}, true},
		{"exec hash other key", Delivered{Kind: DelExecHash, Keys: ids(2)}, Required{Kind: ReqHash, Keys: ids(1)}, false},
		{"storage not exact hash", Delivered{Kind: DelStorageBucketed, Keys: ids(1), Layout: t1}, Required{Kind: ReqHash, Keys: ids(1)}, false},
		{"storage subset", Delivered{Kind: DelStorageBucketed, Keys: ids(1), Layout: t1}, Required{Kind: ReqHash, Keys: ids(1, 2), Subset: true}, true},
		{"subset miss", Delivered{Kind: DelExecHash, Keys: ids(3)}, Required{Kind: ReqHash, Keys: ids(1, 2), Subset: true}, false},
		{"single subset", Delivered{Kind: DelSingle}, Required{Kind: ReqHash, Keys: ids(1), Subset: true}, true},
		{"same group", Delivered{Kind: DelStorageBucketed, Keys: ids(1), Layout: g}, Required{Kind: ReqBucket, Keys: ids(1), Layout: g2}, true},
		{"same table", Delivered{Kind: DelStorageBucketed, Keys: ids(1), Layout: t1}, Required{Kind: ReqBucket, Keys: ids(11), Layout: t1}, true},
		{"other table", Delivered{Kind: DelStorageBucketed, Keys: ids(1), Layout: t1}, Required{Kind: ReqBucket, Keys: ids(1), Layout: t3}, false},
		{"exec hash not bucket", Delivered{Kind: DelExecHash, Keys: ids(1)}, Required{Kind: ReqBucket, Keys: ids(1), Layout: t1}, false},
		{"replicated", Delivered{Kind: DelReplicated}, Required{Kind: ReqReplicated}, true},
		{"single not replicated", Delivered{Kind: DelSingle}, Required{Kind: ReqReplicated}, false},
		{"exec random", Delivered{Kind: DelExecRandom}, Required{Kind: ReqExecRandom}, true},
		{"scan random not exec random", Delivered{Kind: DelRandom}, Required{Kind: ReqExecRandom}, false},
		{"single not exec random", Delivered{Kind: DelSingle}, Required{Kind: ReqExecRandom}, false},
		{"exec random not hash", Delivered{Kind: DelExecRandom}, Required{Kind: ReqHash, Keys: ids(1), Subset: true}, false},
	}
	for _, c := range cases {
		if got := c.d.Satisfies(c.r, eq); got != c.want {
			t.Errorf("%s: Satisfies = %v, want %v", c.name, got, c.want)
		}
		if c.r.Kind != ReqAny {
			if !Enforced(c.r).Satisfies(c.r, eq) {
				t.Errorf("%s: Enforced(r) does not satisfy r", c.name)
			}
		}
	}
}
