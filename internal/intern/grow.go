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

// AppendDoubling is append(s, v...) that doubles the capacity of a full
// slice whatever its length. For the per-state tables of a search that
// outgrow the caches (linearize.Wrapper's, linearize.Reduced's cache):
// append's growth by a quarter copies such a table about four times over
// on its way, each copy a pass of cache misses over memory no longer
// cached; doubling copies it about once, for up to twice its spare
// capacity.
func AppendDoubling[T any](s []T, v ...T) []T {
	if n := len(s) + len(v); n > cap(s) {
		t := make([]T, len(s), max(2*cap(s), n, 64))
		copy(t, s)
		s = t
	}
	return append(s, v...)
}
