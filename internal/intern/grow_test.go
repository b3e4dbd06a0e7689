package intern

import (
	"slices"
	"testing"
)

// TestAppendDoubling: AppendDoubling appends what append appends (one
// element or many, into slices with and without room), and a full
// slice's capacity at least doubles.
func TestAppendDoubling(t *testing.T) {
	var got, want []int
	for i := range 20000 {
		k := 1 + i%7
		v := make([]int, k)
		for j := range v {
			v[j] = i*7 + j
		}
		full := len(got) == cap(got)
		old := cap(got)
		got = AppendDoubling(got, v...)
		want = append(want, v...)
		if full && cap(got) < 2*old {
			t.Fatalf("a full slice of capacity %d grew to %d", old, cap(got))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatal("AppendDoubling appended otherwise than append")
	}
	if s := AppendDoubling([]int(nil)); s != nil {
		t.Fatalf("nothing appended to nil gave %v", s)
	}
}
