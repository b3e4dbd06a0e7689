package intern

// Vec is a growable array that never moves what it holds once it is
// large: its first block grows like a slice (doubling, by copying) up to
// vecBlock elements, and the elements after it go into blocks of
// vecBlock elements that are allocated as needed and never copied. A
// large search appends millions of entries to its trail; a slice would
// copy them at every growth, and each growth leaves the old array as
// garbage and touches a new one (a page fault per 4 KiB): in a 5.7
// million-pair check, about a quarter of the memory allocated. An
// element's address is stable once it lies beyond the first block.
type Vec[T any] struct {
	blocks [][]T // each as long as its capacity; zero beyond n
	n      int
}

const (
	vecBits  = 16
	vecBlock = 1 << vecBits
	vecMask  = vecBlock - 1
)

// Len is the number of elements.
func (v *Vec[T]) Len() int { return v.n }

// At returns element i (0 <= i < Len()).
func (v *Vec[T]) At(i int) T { return v.blocks[i>>vecBits][i&vecMask] }

// Ptr returns the address of element i (0 <= i < Len()); it stays valid
// until the next Append or Grow if i is in the first block, for good
// beyond it.
func (v *Vec[T]) Ptr(i int) *T { return &v.blocks[i>>vecBits][i&vecMask] }

// Set sets element i (0 <= i < Len()).
func (v *Vec[T]) Set(i int, x T) { v.blocks[i>>vecBits][i&vecMask] = x }

// Append adds x at the end.
func (v *Vec[T]) Append(x T) {
	if b, o := v.n>>vecBits, v.n&vecMask; b < len(v.blocks) && o < len(v.blocks[b]) {
		v.blocks[b][o] = x
		v.n++
		return
	}
	v.extend(v.n + 1)
	v.blocks[v.n>>vecBits][v.n&vecMask] = x
	v.n++
}

// Grow extends the array with zero elements to at least n elements.
func (v *Vec[T]) Grow(n int) {
	if n > v.n {
		v.extend(n)
		v.n = n
	}
}

// extend makes room for n elements: the first block doubles (by
// copying) up to vecBlock elements, then blocks of vecBlock are added.
func (v *Vec[T]) extend(n int) {
	if len(v.blocks) == 0 {
		v.blocks = append(v.blocks, make([]T, min(max(64, n), vecBlock)))
	}
	if b := v.blocks[0]; len(b) < vecBlock && len(b) < n {
		t := make([]T, min(max(2*len(b), n), vecBlock))
		copy(t, b)
		v.blocks[0] = t
	}
	for len(v.blocks)<<vecBits < n {
		v.blocks = append(v.blocks, make([]T, vecBlock))
	}
}

// Bytes is the memory the array holds, given the size of an element.
func (v *Vec[T]) Bytes(size int) int64 {
	var n int64
	for _, b := range v.blocks {
		n += int64(len(b))
	}
	return n * int64(size)
}
