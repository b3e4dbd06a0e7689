package csp

import (
	"bytes"
	"fmt"

	"github.com/quasar-verify/quasar/lts"
)

// firstParent returns the first state of the ids [lo, hi), in id order,
// with a transition to t, and the event of its first such transition (the
// parent of t in a search's tree: bfs.parent). It compares the encoded
// successors (their representatives, under a symmetry) with t's bytes, so
// it interns nothing; the states are read and expanded in batches. stop is
// polled before each batch: if it says so, errRebuildCancelled.
func (s *Proc) firstParent(lo, hi, t lts.State, stop func() bool) (parent lts.State, ev lts.Event, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("lts: internal error: %v", r)
		}
	}()
	if n := lts.State(s.NumStates()); t >= n || hi > n || lo > hi {
		return 0, 0, fmt.Errorf("internal error: parent of %d among %d..%d of %d states", t, lo, hi, n)
	}
	target := s.raw(t, nil)
	x := s.getScratch()
	defer s.pool.Put(x)
	const batch = 256
	ids := make([]lts.State, 0, batch)
	for c := lo; c < hi; c += lts.State(len(ids)) {
		if stop() {
			return 0, 0, errRebuildCancelled
		}
		ids = ids[:0]
		for id := c; id < hi && len(ids) < batch; id++ {
			ids = append(ids, id)
		}
		s.readAll(ids, x)
		start := 0
		for k, end := range x.rawEnd {
			x.enc, x.ends, x.evs, x.who = x.enc[:0], x.ends[:0], x.evs[:0], x.who[:0]
			if err := s.expandRaw(x.raws[start:end], x); err != nil {
				return 0, 0, fmt.Errorf("internal error: state %d of the search fails again: %v", ids[k], err)
			}
			start = end
			if s.sym != nil {
				s.canonAll(x)
			}
			b := 0
			for i, e := range x.ends {
				if e-b == len(target) && bytes.Equal(x.enc[b:e], target) {
					return ids[k], x.evs[i], nil
				}
				b = e
			}
		}
	}
	return 0, 0, fmt.Errorf("internal error: no state of %d..%d has %d as a successor", lo, hi-1, t)
}

// readAll copies the bytes of the states ids to x.raws (x.rawEnd: where
// each ends), under the lock, which a panic releases too.
func (s *Proc) readAll(ids []lts.State, x *scratch) {
	x.raws, x.rawEnd = x.raws[:0], x.rawEnd[:0]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fp == nil {
		s.store.PrefetchGet(ids)
	}
	for _, id := range ids {
		x.raws = s.appendGet(x.raws, uint32(id))
		x.rawEnd = append(x.rawEnd, len(x.raws))
	}
}
