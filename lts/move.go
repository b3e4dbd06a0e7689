package lts

// Move says more about one transition of a system of interleaved
// components (csp.Proc.SuccessorsMoves): who moved, whether the step is
// independent of the other components, and, under a thread symmetry, how
// the target was renamed to its representative. The linearizes check uses
// it for its partial-order and symmetry reductions (package linearize,
// refine).
type Move struct {
	// Comp is the component that moved, -1 if several took part.
	Comp int32
	// Local: no other component can enable, disable or alter the step, and
	// it changes nothing but its component's control (an unguarded prefix
	// without event block whose event data read no variable, in an
	// interleaving without atomic steps).
	Local bool
	// CompLocal: every step the moving component's control offers is
	// local, so the transitions with this Comp are all it offers until it
	// moves, whatever the others do.
	CompLocal bool
	// Perm is the thread renaming that took the target to the state
	// returned (its representative): thread i of the target is thread
	// Perm.At(i) of the representative. Zero is the identity.
	Perm Perm
	// Ties has bit j set when threads j and j+1 of the representative have
	// the same local state: the renamings within each run of tied threads
	// map the representative to itself.
	Ties uint64
}

// Perm is a renaming of up to 16 threads: nibble i holds i XOR the image
// of i, so that the zero value is the identity.
type Perm uint64

// MaxPermThreads is the number of threads a Perm can rename.
const MaxPermThreads = 16

// PermOf is the renaming i -> img[i] (len(img) <= MaxPermThreads).
func PermOf(img []int) Perm {
	var p Perm
	for i, j := range img {
		p |= Perm(uint64(i^j)&15) << (4 * i)
	}
	return p
}

// At is the image of thread i.
func (p Perm) At(i int) int {
	if i >= MaxPermThreads {
		return i
	}
	return i ^ int(p>>(4*i)&15)
}

// Then is the renaming p followed by q: i -> q(p(i)).
func (p Perm) Then(q Perm) Perm {
	var r Perm
	for i := range MaxPermThreads {
		r |= Perm(uint64(i^q.At(p.At(i)))&15) << (4 * i)
	}
	return r
}

// Inverse is the renaming that undoes p.
func (p Perm) Inverse() Perm {
	var r Perm
	for i := range MaxPermThreads {
		j := p.At(i)
		r |= Perm(uint64(i^j)&15) << (4 * j)
	}
	return r
}

// TiedPerms returns the renamings that permute each run of tied threads
// (Move.Ties) among themselves, the identity first, or nil when there are
// more than limit of them.
func TiedPerms(ties uint64, limit int) []Perm {
	out := []Perm{0}
	for j := 0; j < MaxPermThreads-1; {
		if ties&(1<<j) == 0 {
			j++
			continue
		}
		k := j
		for k < MaxPermThreads-1 && ties&(1<<k) != 0 {
			k++
		}
		// Threads j..k are one run: every permutation of them.
		run := permutations(j, k)
		if len(out)*len(run) > limit {
			return nil
		}
		var next []Perm
		for _, p := range out {
			for _, q := range run {
				next = append(next, p.Then(q))
			}
		}
		out = next
		j = k + 1
	}
	return out
}

// permutations lists the renamings of threads lo..hi among themselves, the
// identity first.
func permutations(lo, hi int) []Perm {
	img := make([]int, hi+1)
	for i := range img {
		img[i] = i
	}
	var out []Perm
	var rec func(k int)
	rec = func(k int) {
		if k > hi {
			out = append(out, PermOf(img))
			return
		}
		for i := k; i <= hi; i++ {
			img[k], img[i] = img[i], img[k]
			rec(k + 1)
			img[k], img[i] = img[i], img[k]
		}
	}
	rec(lo)
	return out
}
