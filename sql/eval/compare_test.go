package eval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestStringEqConst checks the equality-with-a-constant fast path on
// sliced arrays (offsets not starting at 0) against plain comparison.
func TestStringEqConst(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	words := []string{"", "a", "AIR", "AIR REG", "DELIVER IN PERSON", "b", "ab"}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < 300; i++ {
		b.Append(words[r.Intn(len(words))])
	}
	full := b.NewStringArray()
	for _, off := range []int{0, 7, 64} {
		sl := array.NewSlice(full, int64(off), int64(off+150)).(*array.String)
		for _, c := range words {
			cb := array.NewStringBuilder(memory.DefaultAllocator)
			cb.Append(c)
			ca := cb.NewStringArray()
			for _, op := range []string{"eq", "ne"} {
				out := make([]byte, (sl.Len()+7)/8)
				if err := compareInto(cmpOps[op], vec{arr: sl}, vec{arr: ca, scalar: true}, sl.Len(), out); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < sl.Len(); i++ {
					want := (sl.Value(i) == c) == (op == "eq")
					if got := out[i>>3]&(1<<(i&7)) != 0; got != want {
						t.Fatal(fmt.Sprintf("offset %d: %q %s %q = %v", off, sl.Value(i), op, c, got))
					}
				}
			}
		}
	}
}

// TestLikeSegments checks the '%'-only LIKE fast path against likeMatch.
func TestLikeSegments(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	alpha := "ab%"
	for i := 0; i < 20000; i++ {
		var s, p []byte
		for j := r.Intn(7); j > 0; j-- {
			s = append(s, "ab"[r.Intn(2)])
		}
		for j := r.Intn(6); j > 0; j-- {
			p = append(p, alpha[r.Intn(3)])
		}
		want := likeMatch(string(s), string(p), '\\')
		if got := likeSegments(string(s), strings.Split(string(p), "%")); got != want {
			t.Fatalf("%q LIKE %q = %v, likeMatch says %v", s, p, got, want)
		}
	}
}
