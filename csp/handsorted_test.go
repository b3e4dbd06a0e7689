package csp

import "testing"

// A breadth-first search with delayed duplicate detection (sorting in
// place of hashing), by hand, as a second reference point beside the
// hashed explorers of handwritten_test.go: it asks whether the memory
// floor those meet (a random read per transition) bounds every explorer
// on this machine. Each level's successors are sorted (LSD radix sort,
// 11-bit digits), made unique, and merged with the visited states (one
// sorted array); the new ones are the next level, in sorted order. No
// pass reads memory at random: every pass streams.

const hwDigit = 11

// hwRadixSort sorts a by its low bits bits (LSD, hwDigit bits a pass),
// with tmp (at least len(a)) as scratch; it returns the sorted slice
// (a's or tmp's array).
func hwRadixSort(a, tmp []uint64, bits int) []uint64 {
	if len(a) == 0 {
		return a
	}
	tmp = tmp[:len(a)]
	const maxPasses = (64 + hwDigit - 1) / hwDigit
	passes := (bits + hwDigit - 1) / hwDigit
	// All the passes' counts in one read of a.
	var counts [maxPasses][1 << hwDigit]uint32
	for _, v := range a {
		for k := range passes {
			counts[k][v>>(k*hwDigit)&(1<<hwDigit-1)]++
		}
	}
	for k := range passes {
		count := &counts[k]
		if count[a[0]>>(k*hwDigit)&(1<<hwDigit-1)] == uint32(len(a)) {
			continue // one digit throughout: the pass changes nothing
		}
		sum := uint32(0)
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		shift := k * hwDigit
		for _, v := range a {
			d := v >> shift & (1<<hwDigit - 1)
			tmp[count[d]] = v
			count[d]++
		}
		a, tmp = tmp, a
	}
	return a
}

// hwExploreSorted explores the model level by level with sorted arrays.
func hwExploreSorted(p *hwPhil) hwStats {
	var st hwStats
	bits := 3 * p.n
	visited := []uint64{0}
	spare := []uint64(nil)
	cur := []uint64{0}
	var succ, tmp, next []uint64
	for ; len(cur) > 0; st.levels++ {
		succ = succ[:0]
		for _, s := range cur {
			if cap(succ)-len(succ) < p.n {
				succ = append(succ, make([]uint64, p.n)...)[:len(succ)]
			}
			succ = succ[:len(succ)+p.succ(s, succ[len(succ):len(succ)+p.n])]
		}
		st.transitions += len(succ)
		if cap(tmp) < len(succ) {
			tmp = make([]uint64, len(succ))
		}
		sorted := hwRadixSort(succ, tmp, bits)
		// Unique, then merged with visited: next gets the new ones.
		next = next[:0]
		if cap(spare) < len(visited)+len(sorted) {
			spare = make([]uint64, 0, (len(visited)+len(sorted))*5/4)
		}
		merged := spare[:0]
		i := 0
		last := ^uint64(0)
		for _, v := range sorted {
			if v == last {
				continue
			}
			last = v
			for i < len(visited) && visited[i] < v {
				merged = append(merged, visited[i])
				i++
			}
			if i < len(visited) && visited[i] == v {
				continue
			}
			merged = append(merged, v)
			next = append(next, v)
		}
		merged = append(merged, visited[i:]...)
		visited, spare = merged, visited
		cur, next = next, cur
	}
	st.states = len(visited)
	return st
}

func TestHandWrittenSorted(t *testing.T) {
	for n := 2; n <= 11; n++ {
		s, tr := hwMapBFS(n)
		st := hwExploreSorted(newHWPhil(n, hwRight))
		if st.states != s || st.transitions != tr || st.levels != 3*n-1 {
			t.Errorf("N = %d: %d states, %d transitions, %d levels; the oracle %d, %d, %d", n, st.states, st.transitions, st.levels, s, tr, 3*n-1)
		}
	}
	for _, mu := range []int{hwSymmetric, hwPutSwapped, hwNoSecondReq} {
		caught := 0
		for n := 2; n <= 11; n++ {
			s, tr := hwMapBFS(n)
			st := hwExploreSorted(newHWPhil(n, mu))
			if st.states != s || st.transitions != tr {
				caught++
			}
		}
		if caught == 0 {
			t.Errorf("mutant %d not caught", mu)
		}
	}
}
