package intern

// touch writes one element per 4 KiB page of a freshly made table, so that
// its pages are faulted in by writes. A hash table is read (probed) before
// it is written, and a read of a fresh page maps the shared zero page, so
// that the write after it faults a second time: a short refinement check
// met about 30 such second faults in its memos and sets, at 1 to 2 µs each
// on the test machine (csp's store touches its tables for the same reason).
func touch[T any](t []T, elemSize int) {
	step := max(4096/elemSize, 1)
	var zero T
	for k := 0; k < len(t); k += step {
		t[k] = zero
	}
}
