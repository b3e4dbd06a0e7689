package relax

import (
	"fmt"
	"slices"
	"strings"

	"github.com/quasar-verify/quasar/lts"
)

// Explanation says why a trace is (not) accepted by a relaxed automaton.
type Explanation struct {
	Accepted bool // the trace is accepted (and, in complete mode, ends settled)
	// Prefix is the length of the longest accepted prefix; if the trace is
	// rejected and Prefix < len(trace), trace[Prefix] is the event that
	// could not be justified.
	Prefix int
	Event  lts.Event
	// Reason says why, at the end of the closest run (empty if accepted).
	Reason string
	// Run is the closest relaxed run over trace[:Prefix]: for every event,
	// how it was justified and the spec events it made the spec perform
	// (the pulled ones first). States describes the relaxed state before
	// the run and after each step (len(Run)+1 entries).
	Run    []RunStep
	States []string
}

type edge struct {
	step RunStep
	to   lts.State
}

func (r *Relaxed) detailed(s lts.State) ([]edge, error) {
	var out []edge
	r.detail = true
	defer func() { r.detail = false }()
	emit := func(st RunStep, t lts.State) { out = append(out, edge{st, t}) }
	var err error
	if r.cfg.Mode == Window {
		err = r.expandWindow(s, emit)
	} else {
		err = r.expandExact(s, emit)
	}
	return out, err
}

// Explain runs trace through r (a set simulation that remembers one
// predecessor per state) and explains the outcome. The closest run ends in
// the state of the last non-empty layer with the fewest obligations (the
// lowest id among those), so the answer is deterministic.
func (r *Relaxed) Explain(trace []lts.Event) (*Explanation, error) {
	type back struct {
		from lts.State
		step RunStep
	}
	layers := []map[lts.State]back{{}}
	cur := r.Start(nil)
	for _, s := range cur {
		layers[0][s] = back{from: s}
	}
	x := &Explanation{}
	for i, e := range trace {
		next := map[lts.State]back{}
		for _, s := range cur {
			es, err := r.detailed(s)
			if err != nil {
				return nil, err
			}
			for _, ed := range es {
				if ed.step.Event != e {
					continue
				}
				if _, ok := next[ed.to]; !ok {
					next[ed.to] = back{from: s, step: ed.step}
				}
			}
		}
		if len(next) == 0 {
			x.Prefix, x.Event = i, e
			break
		}
		layers = append(layers, next)
		cur = cur[:0]
		for s := range next {
			cur = append(cur, s)
		}
		slices.Sort(cur)
		x.Prefix = i + 1
	}
	end := r.closest(cur)
	if x.Prefix == len(trace) {
		x.Accepted = true
		if r.cfg.Complete {
			x.Accepted = false
			for _, s := range cur {
				if r.Settled(s) {
					x.Accepted, end = true, s
					break
				}
			}
		}
	}
	// Walk back from end.
	s := end
	for k := x.Prefix; k > 0; k-- {
		b := layers[k][s]
		x.Run = append(x.Run, b.step)
		x.States = append(x.States, r.Describe(s))
		s = b.from
	}
	x.States = append(x.States, r.Describe(s))
	slices.Reverse(x.Run)
	slices.Reverse(x.States)
	if !x.Accepted {
		var err error
		if x.Prefix == len(trace) {
			x.Reason = r.unsettledReason(end)
		} else {
			x.Reason, err = r.reason(end, x.Event)
		}
		if err != nil {
			return nil, err
		}
	}
	return x, nil
}

// closest picks the state with the fewest obligations (lowest id first).
func (r *Relaxed) closest(states []lts.State) lts.State {
	best, bestN := states[0], -1
	for _, s := range states {
		n := r.pending(s)
		if bestN < 0 || n < bestN || n == bestN && s < best {
			best, bestN = s, n
		}
	}
	return best
}

// pending is the number of obligations of s (exact) or of pending
// positions of its open window (window).
func (r *Relaxed) pending(s lts.State) int {
	b := r.states.Get(uint32(s))
	if r.cfg.Mode == Window {
		_, _, _, pend := decodeWindow(b, nil)
		return len(pend)
	}
	_, obs := r.decodeExact(b, nil)
	return len(obs)
}

func (r *Relaxed) unsettledReason(s lts.State) string {
	if r.cfg.Mode == Window {
		return "the trace ends inside a permuted window"
	}
	_, obs := r.decodeExact(r.states.Get(uint32(s)), nil)
	return "the trace ends with obligations pending (events the spec performed ahead, never performed by the implementation): " + r.obligations(obs)
}

func (r *Relaxed) obligations(obs []obligation) string {
	var parts []string
	for _, o := range obs {
		parts = append(parts, fmt.Sprintf("%s (slack %d)", r.table.Name(o.e), o.slack))
	}
	return strings.Join(parts, ", ")
}

// reason explains why e has no transition from s.
func (r *Relaxed) reason(s lts.State, e lts.Event) (string, error) {
	name := r.table.Name(e)
	b := r.states.Get(uint32(s))
	if r.cfg.Mode == Window {
		tag, _, k, pend := decodeWindow(b, nil)
		if tag == tagWin {
			var owed []string
			for _, p := range pend {
				owed = append(owed, fmt.Sprintf("%s (position %d)", r.table.Name(p.e), p.pos))
			}
			return fmt.Sprintf("%s breaks the permuted window in progress (%d of its events read; owed: %s): no permutation moving each event by at most %d of a spec path of at most %d events continues with it",
				name, k, strings.Join(owed, ", "), r.cfg.windowFactor(), 2*r.cfg.windowFactor()+1), nil
		}
		return fmt.Sprintf("%s is not the first event of any permutation (moving each event by at most %d) of a spec path of 1..%d events from this state",
			name, r.cfg.windowFactor(), 2*r.cfg.windowFactor()+1), nil
	}
	_, obs := r.decodeExact(b, nil)
	k := r.kind(e)
	switch {
	case k == kindBarrier && len(obs) > 0:
		return fmt.Sprintf("barrier %s occurs while obligations are pending: %s", name, r.obligations(obs)), nil
	case k == kindBarrier:
		return fmt.Sprintf("barrier %s is not enabled in the spec here", name), nil
	case k == kindRigid:
		return fmt.Sprintf("rigid event %s is not enabled in the spec here (only relaxed classes may move)", name), nil
	}
	d := k - kindClass
	owed := 0
	for _, o := range obs {
		if o.class != d {
			continue
		}
		owed++
		if o.slack == 1 && o.e != e {
			return fmt.Sprintf("obligation %s ran out of slack: it had to be the next event of its class, found %s", r.table.Name(o.e), name), nil
		}
	}
	return fmt.Sprintf("%s cannot be justified: the spec cannot perform it even after pulling up to %d more events of its class (%d already owed)",
		name, r.bounds[d]-owed, owed), nil
}

// Text renders x for a user, one run step per line.
func (x *Explanation) Text(t *lts.EventTable) string {
	var sb strings.Builder
	if x.Accepted {
		sb.WriteString("accepted\n")
	} else {
		fmt.Fprintf(&sb, "rejected after %d events: %s\n", x.Prefix, x.Reason)
	}
	if len(x.States) > 0 {
		fmt.Fprintf(&sb, "  %s\n", x.States[0])
	}
	for i, st := range x.Run {
		var spec []string
		for _, e := range st.Spec {
			spec = append(spec, t.Name(e))
		}
		fmt.Fprintf(&sb, "  %-10s %-9s spec: %-24s -> %s\n", t.Name(st.Event), st.Kind, strings.Join(spec, " "), x.States[i+1])
	}
	return sb.String()
}
