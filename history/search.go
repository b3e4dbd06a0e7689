package history

import (
	"sort"

	"github.com/quasar-verify/quasar/internal/budget"
)

// Finisher is implemented by machines with accepting states (quasi checks in
// complete mode): a linearization is accepted only if it ends in one.
type Finisher interface {
	Final(s State) bool
}

// search is the memoised depth-first search of Wing & Gong, Lowe and
// Porcupine over one partition (see doc.go).
type search struct {
	m     Machine
	fin   Finisher
	ops   []Op // local indices 0..n-1
	n     int
	bud   *budget.Budget
	steps int64

	// Entries: call of op i is i, return of op i is n+i; head is 2n; -1 ends
	// the list. Pending ops have no return entry.
	next, prev []int32
	head       int32

	complete int // ops that must be linearized (not Info)

	// outcome
	witness []int // local indices
	longest []int
	blocked int
	lstate  State
	reason  string // non-empty: a limit was hit
	states  int
}

type frame struct {
	entry int32
	prev  State
	k     int32 // index of the successor taken
}

func newSearch(m Machine, ops []Op, bud *budget.Budget) *search {
	n := len(ops)
	s := &search{m: m, ops: ops, n: n, bud: bud, blocked: -1}
	s.fin, _ = m.(Finisher)
	type ev struct {
		t   int64
		ret bool
		op  int32
	}
	evs := make([]ev, 0, 2*n)
	for i := range ops {
		evs = append(evs, ev{ops[i].Call, false, int32(i)})
		if ops[i].Status != Info {
			s.complete++
			evs = append(evs, ev{ops[i].Return, true, int32(i)})
		}
	}
	// Calls before returns at equal times: equal times are concurrent.
	sort.Slice(evs, func(a, b int) bool {
		x, y := evs[a], evs[b]
		if x.t != y.t {
			return x.t < y.t
		}
		if x.ret != y.ret {
			return !x.ret
		}
		return x.op < y.op
	})
	s.next = make([]int32, 2*n+1)
	s.prev = make([]int32, 2*n+1)
	s.head = int32(2 * n)
	last := s.head
	for _, e := range evs {
		id := e.op
		if e.ret {
			id += int32(n)
		}
		s.next[last] = id
		s.prev[id] = last
		last = id
	}
	s.next[last] = -1
	return s
}

// lift removes op i's call (and return) entries from the list.
func (s *search) lift(i int32) {
	s.next[s.prev[i]] = s.next[i]
	if nx := s.next[i]; nx >= 0 {
		s.prev[nx] = s.prev[i]
	}
	if s.ops[i].Status != Info {
		r := i + int32(s.n)
		s.next[s.prev[r]] = s.next[r]
		if nx := s.next[r]; nx >= 0 {
			s.prev[nx] = s.prev[r]
		}
	}
}

// unlift undoes lift (in reverse order).
func (s *search) unlift(i int32) {
	if s.ops[i].Status != Info {
		r := i + int32(s.n)
		s.next[s.prev[r]] = r
		if nx := s.next[r]; nx >= 0 {
			s.prev[nx] = r
		}
	}
	s.next[s.prev[i]] = i
	if nx := s.next[i]; nx >= 0 {
		s.prev[nx] = i
	}
}

// zobrist gives each op a fixed pseudo-random 64-bit code; the hash of a set
// is the xor of its members' codes (deterministic: splitmix64 from 0).
func zobrist(n int) []uint64 {
	z := make([]uint64, n)
	x := uint64(0x2545F4914F6CDD1D)
	for i := range z {
		x += 0x9E3779B97F4A7C15
		v := x
		v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
		v = (v ^ (v >> 27)) * 0x94D049BB133111EB
		z[i] = v ^ (v >> 31)
	}
	return z
}

const pollEvery = 1 << 10

// run searches for a linearization. It returns true if one was found (in
// s.witness), false if none exists (s.longest, s.blocked) or a limit was hit
// (s.reason).
func (s *search) run() bool {
	n := s.n
	words := (n + 63) / 64
	if words == 0 {
		words = 1
	}
	set := make([]uint64, words)
	z := zobrist(n)
	mm := newMemo(words)
	var h uint64
	stack := make([]frame, 0, n)
	buf := make([]State, 0, 8)
	inits := s.m.Init(nil)
	var poll int

	for _, init := range inits {
		state := init
		if s.complete == 0 && (s.fin == nil || s.fin.Final(state)) {
			s.witness = []int{}
			return true
		}
		e := s.next[s.head]
		resume := int32(0) // first successor index to try at e
		for {
			poll++
			if poll == pollEvery {
				poll = 0
				s.steps += pollEvery
				if s.bud != nil {
					if r := s.bud.Exceeded(mm.len()); r != "" {
						s.reason = r
						s.states = mm.len()
						return false
					}
				}
			}
			if e >= 0 && int(e) < n {
				// A call entry: try to linearize op e now.
				op := e
				buf = s.m.Step(state, int(op), buf[:0])
				placed := false
				w, bit := op>>6, uint64(1)<<(uint(op)&63)
				for k := resume; int(k) < len(buf); k++ {
					ns := buf[k]
					set[w] |= bit
					nh := h ^ z[op]
					if mm.insert(nh, ns, set) {
						stack = append(stack, frame{entry: op, prev: state, k: k})
						state, h = ns, nh
						s.lift(op)
						placed = true
						break
					}
					set[w] &^= bit
				}
				resume = 0
				if !placed {
					e = s.next[e]
					continue
				}
				if s.ops[op].Status != Info {
					s.complete--
				}
				if s.complete == 0 && (s.fin == nil || s.fin.Final(state)) {
					s.witness = make([]int, len(stack))
					for i, f := range stack {
						s.witness[i] = int(f.entry)
					}
					s.states = mm.len()
					return true
				}
				e = s.next[s.head]
				continue
			}
			// A return entry (or the end): some op must be linearized before
			// this point and none can: backtrack.
			if len(stack) > len(s.longest) || s.longest == nil {
				s.longest = s.longest[:0]
				for _, f := range stack {
					s.longest = append(s.longest, int(f.entry))
				}
				s.lstate = state
				if e >= 0 {
					s.blocked = int(e) - n
				} else {
					s.blocked = -1
				}
			}
			if len(stack) == 0 {
				break
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			op := f.entry
			s.unlift(op)
			if s.ops[op].Status != Info {
				s.complete++
			}
			set[op>>6] &^= uint64(1) << (uint(op) & 63)
			h ^= z[op]
			state = f.prev
			e = op
			resume = f.k + 1
		}
	}
	s.states = mm.len()
	return false
}
