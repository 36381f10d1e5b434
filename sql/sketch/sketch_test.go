package sketch

import (
	"fmt"
	"testing"
)

func TestBitmapRoundTrip(t *testing.T) {
	b := BitmapOf(5, 1, 1<<40, 3)
	if got := BitmapString(Bitmap(b)); got != "1,3,5,1099511627776" {
		t.Fatalf("round trip: %s", got)
	}
	if len(BitmapOf()) != 0 || !Bitmap(nil).IsEmpty() || !Bitmap([]byte("junk")).IsEmpty() {
		t.Fatal("empty bitmap is not the empty string, or junk decoded")
	}
	for in, want := range map[string]string{"": "", " 3, 1 ,2": "1,2,3", "1,x": "!", "-1": "!", "1,,2": "!"} {
		bm, ok := ParseBitmap(in)
		got := "!"
		if ok {
			got = BitmapString(bm)
		}
		if got != want {
			t.Errorf("ParseBitmap(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestHLLMerge(t *testing.T) {
	a, b := NewHLL(), NewHLL()
	for i := 0; i < 1000; i++ {
		a.Insert([]byte(fmt.Sprint(i)))
		b.Insert([]byte(fmt.Sprint(i + 500)))
	}
	m := HLL(HLLBytes(a))
	MergeHLL(m, HLL(HLLBytes(b)))
	if e := m.Estimate(); e < 1470 || e > 1530 {
		t.Fatalf("estimate of 1500 distinct: %d", e)
	}
	if HLL(nil).Estimate() != 0 || HLL(HLLOf([]byte("x"))).Estimate() != 1 {
		t.Fatal("empty / single sketch")
	}
}
