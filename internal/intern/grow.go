package intern

// Append is append(s, v) that doubles the capacity of a full slice while
// it holds fewer than doubleUpTo elements (append's own growth, by about
// a quarter beyond 256 elements, copies a slice ten times on its way from
// 256 to 8192 elements: in a short check, the copies left behind were
// about a third of the memory it took, each page of it a page fault in a
// fresh process); larger slices grow as append grows them, so that their
// spare capacity stays small.
func Append[T any](s []T, v T) []T {
	if len(s) == cap(s) && len(s) < doubleUpTo {
		t := make([]T, len(s), max(2*len(s), 64))
		copy(t, s)
		s = t
	}
	return append(s, v)
}

const doubleUpTo = 1 << 16
