package relax

import (
	"fmt"
	"slices"

	"github.com/quasar-verify/quasar/lts"
)

// eagerWindow is window mode built eagerly, straight from Algorithms 2-4:
// from a spec state s, every spec path s -e_1 … e_L-> t (1 <= L <= 2QF+1,
// a barrier only as a path of its own) and every permutation of it that
// moves each event by at most QF positions and keeps the events that are
// not movable in place (boundedPerms) gives a chain of pseudo-states that
// performs the permuted word and reconnects to t. A pseudo-state is (t, the
// rest of the word). It is a test oracle for the lazy automaton: exponential
// (every path times every permutation from every state), sharing nothing
// with it but the spec and the classification of Admits (classifier).
type eagerWindow struct {
	spec  lts.Automaton
	cls   *classifier
	qf    int
	ids   map[string]lts.State
	keys  []eagerState
	succ  map[lts.State]map[lts.Event][]lts.State
	steps int
}

type eagerState struct {
	end  lts.State
	rest []lts.Event // empty: the spec state end
}

func newEagerWindow(spec lts.Automaton, cfg Config) *eagerWindow {
	return &eagerWindow{spec: spec, cls: newClassifier(spec.Events(), cfg), qf: cfg.windowFactor(),
		ids: map[string]lts.State{}, succ: map[lts.State]map[lts.Event][]lts.State{}}
}

func (x *eagerWindow) id(end lts.State, rest []lts.Event) lts.State {
	k := fmt.Sprint(end, rest)
	if id, ok := x.ids[k]; ok {
		return id
	}
	id := lts.State(len(x.keys))
	x.ids[k] = id
	x.keys = append(x.keys, eagerState{end, slices.Clone(rest)})
	return id
}

func (x *eagerWindow) Events() *lts.EventTable { return x.spec.Events() }

func (x *eagerWindow) Start(buf []lts.State) []lts.State {
	for _, s := range x.spec.Start(nil) {
		buf = append(buf, x.id(s, nil))
	}
	return buf
}

func (x *eagerWindow) Enabled(s lts.State, buf []lts.Event) ([]lts.Event, error) {
	m, err := x.expand(s)
	if err != nil {
		return buf, err
	}
	for e := range m {
		buf = append(buf, e)
	}
	slices.Sort(buf)
	return buf, nil
}

func (x *eagerWindow) Step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	m, err := x.expand(s)
	if err != nil {
		return buf, err
	}
	return append(buf, m[e]...), nil
}

func (x *eagerWindow) expand(s lts.State) (map[lts.Event][]lts.State, error) {
	if m, ok := x.succ[s]; ok {
		return m, nil
	}
	m := map[lts.Event][]lts.State{}
	add := func(e lts.Event, t lts.State) {
		if !slices.Contains(m[e], t) {
			m[e] = append(m[e], t)
		}
	}
	st := x.keys[s]
	if len(st.rest) > 0 {
		add(st.rest[0], x.id(st.end, st.rest[1:]))
		x.succ[s] = m
		return m, nil
	}
	var path []lts.Event
	var walk func(u lts.State) error
	walk = func(u lts.State) error {
		evs, err := x.spec.Enabled(u, nil)
		if err != nil {
			return err
		}
		for _, e := range evs {
			barrier := x.cls.class(e) == barrierClass
			if barrier && len(path) > 0 {
				continue
			}
			ts, err := x.spec.Step(u, e, nil)
			if err != nil {
				return err
			}
			path = append(path, e)
			for _, t := range ts {
				var fixed uint64
				for i, b := range path {
					if x.cls.class(b) < 0 {
						fixed |= 1 << i
					}
				}
				for _, p := range boundedPerms(len(path), x.qf, fixed) {
					if x.steps++; x.steps > 1<<24 {
						return fmt.Errorf("eager window oracle: too large")
					}
					word := make([]lts.Event, len(p))
					for i, k := range p {
						word[i] = path[k]
					}
					add(word[0], x.id(t, word[1:]))
				}
				if !barrier && len(path) < 2*x.qf+1 {
					if err := walk(t); err != nil {
						return err
					}
				}
			}
			path = path[:len(path)-1]
		}
		return nil
	}
	if err := walk(st.end); err != nil {
		return nil, err
	}
	x.succ[s] = m
	return m, nil
}
