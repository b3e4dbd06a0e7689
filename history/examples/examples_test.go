package examples

import (
	"slices"
	"sync"
	"testing"
)

// TestSegmentedQueueSequential: with segments of k, a dequeue returns one
// of the items of the oldest segment still holding items (Afek et al.).
func TestSegmentedQueueSequential(t *testing.T) {
	for _, k := range []int{1, 2, 3, 5} {
		q := NewSegmentedQueue(k)
		if _, ok := q.Dequeue(); ok {
			t.Fatal("dequeue of an empty queue succeeded")
		}
		const n = 40
		for v := int64(1); v <= n; v++ {
			q.Enqueue(v)
		}
		var got []int64
		for range n {
			v, ok := q.Dequeue()
			if !ok {
				t.Fatalf("k=%d: empty after %d dequeues", k, len(got))
			}
			// The oldest segment still holding items is the one of the
			// least value not yet dequeued.
			least := int64(1)
			for slices.Contains(got, least) {
				least++
			}
			seg := (least - 1) / int64(k)
			if (v-1)/int64(k) != seg {
				t.Fatalf("k=%d: dequeued %d while segment %d holds %d", k, v, seg, least)
			}
			got = append(got, v)
		}
		if _, ok := q.Dequeue(); ok {
			t.Fatalf("k=%d: dequeue after draining succeeded", k)
		}
		if k == 1 && !slices.IsSorted(got) {
			t.Fatalf("k=1 is a FIFO queue, got %v", got)
		}
	}
}

// TestStarvingSegmentedQueueStrands: sequentially the starving variant
// sometimes skips a segment that still holds an item: the item is never
// dequeued and the queue reports empty while holding it.
func TestStarvingSegmentedQueueStrands(t *testing.T) {
	stranded := 0
	for trial := 0; trial < 200; trial++ {
		q := NewStarvingSegmentedQueue(2)
		for v := int64(1); v <= 6; v++ {
			q.Enqueue(v)
		}
		n := 0
		for {
			if _, ok := q.Dequeue(); !ok {
				break
			}
			n++
		}
		if n > 6 {
			t.Fatalf("dequeued %d of 6 items", n)
		}
		if n < 6 {
			stranded++
		}
	}
	if stranded == 0 {
		t.Fatal("no item was ever stranded in 200 trials")
	}
}

func TestTreiberStackSequential(t *testing.T) {
	for _, s := range []*TreiberStack{NewTreiberStack(), NewRacyTreiberStack()} {
		for v := int64(1); v <= 5; v++ {
			s.Push(v)
		}
		for want := int64(5); want >= 1; want-- {
			if v, ok := s.Pop(); !ok || v != want {
				t.Fatalf("pop = %d, %v; want %d", v, ok, want)
			}
		}
		if _, ok := s.Pop(); ok {
			t.Fatal("pop of an empty stack succeeded")
		}
	}
}

// conserve runs producers and consumers concurrently and returns how often
// each value came out (each should come out exactly once).
func conserve(put func(int64), take func() (int64, bool)) map[int64]int {
	const goroutines, per = 4, 300
	var mu sync.Mutex
	out := map[int64]int{}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				put(int64(g*per + i + 1))
				if v, ok := take(); ok {
					mu.Lock()
					out[v]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for {
		v, ok := take()
		if !ok {
			break
		}
		out[v]++
	}
	return out
}

// TestConservation: the correct structures neither lose nor duplicate
// items under concurrency; the racy stack eventually does.
func TestConservation(t *testing.T) {
	ok := func(out map[int64]int) bool {
		if len(out) != 1200 {
			return false
		}
		for _, c := range out {
			if c != 1 {
				return false
			}
		}
		return true
	}
	q := NewSegmentedQueue(3)
	if out := conserve(q.Enqueue, q.Dequeue); !ok(out) {
		t.Errorf("segmented queue: %d distinct values out of 1200", len(out))
	}
	s := NewTreiberStack()
	if out := conserve(s.Push, s.Pop); !ok(out) {
		t.Errorf("Treiber stack: %d distinct values out of 1200", len(out))
	}
	broken := false
	for trial := 0; trial < 20 && !broken; trial++ {
		r := NewRacyTreiberStack()
		broken = !ok(conserve(r.Push, r.Pop))
	}
	if !broken {
		t.Error("the racy stack conserved items in 20 concurrent runs")
	}
}
