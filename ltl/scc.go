package ltl

import (
	"slices"

	"github.com/quasar-verify/quasar/lts"
)

// sccGraph is one completed SCC of the product, made explicit for the
// fairness analysis and the counterexample: members by local index, the
// product edges between members, and each member's system transitions
// (what is enabled there).
type sccGraph struct {
	ids []uint32
	st  []lts.State
	acc []uint64
	adj [][]ledge
	sys [][]lts.Transition
}

type ledge struct {
	ev lts.Event
	to int
}

// lstep is a step of a path in an sccGraph: edge k of node u.
type lstep struct{ u, k int }

// analyse looks for a fair accepting part of the SCC rooted at root and
// returns the lasso through it, or nil.
func (s *search) analyse(root uint32, members []uint32) (*Lasso, error) {
	var acc uint64
	for _, m := range members {
		_, q, _ := s.pair(m)
		acc |= s.b.States[q].Acc
	}
	if acc != s.b.AllAcc() {
		return nil, nil
	}
	g, err := s.explicit(members)
	if err != nil {
		return nil, err
	}
	all := make([]int, len(members))
	for i := range all {
		all[i] = i
	}
	d := s.fairPart(g, all)
	if d == nil {
		return nil, nil
	}
	return s.lasso(g, root, d), nil
}

// explicit builds the sccGraph of members.
func (s *search) explicit(members []uint32) (*sccGraph, error) {
	slices.Sort(members) // a fixed order: ids are assigned deterministically
	local := make(map[uint32]int, len(members))
	g := &sccGraph{ids: members}
	for i, m := range members {
		local[m] = i
		st, q, _ := s.pair(m)
		g.st = append(g.st, st)
		g.acc = append(g.acc, s.b.States[q].Acc)
	}
	var buf []edge
	for _, m := range members {
		var err error
		if buf, err = s.successors(m, buf[:0]); err != nil {
			return nil, err
		}
		var out []ledge
		for _, e := range buf {
			if j, ok := local[e.to]; ok {
				out = append(out, ledge{e.ev, j})
			}
		}
		g.adj = append(g.adj, out)
		st, _, after := s.pair(m)
		ts, err := s.sysSucc(st, after)
		if err != nil {
			return nil, err
		}
		g.sys = append(g.sys, slices.Clone(ts))
	}
	return g, nil
}

// fairKey is what fairness counts: a visible event (weak, strong) or a
// system transition (global).
type fairKey struct {
	from lts.State
	ev   lts.Event
	to   lts.State
}

func (s *search) key(from lts.State, ev lts.Event, to lts.State) (fairKey, bool) {
	if ev == Deadlock || ev == Terminate {
		return fairKey{}, false
	}
	if s.opt.Fairness == Global {
		return fairKey{from, ev, to}, true
	}
	if ev == lts.Tau {
		return fairKey{}, false
	}
	return fairKey{ev: ev}, true
}

// taken is the set of fairness keys of the edges inside nodes.
func (s *search) taken(g *sccGraph, in []bool, nodes []int) map[fairKey]bool {
	t := map[fairKey]bool{}
	for _, u := range nodes {
		for _, e := range g.adj[u] {
			if in[e.to] {
				if k, ok := s.key(g.st[u], e.ev, g.st[e.to]); ok {
					t[k] = true
				}
			}
		}
	}
	return t
}

// fairPart returns a set of nodes, strongly connected within nodes, that
// has an inner edge, meets every acceptance set and is fair; or nil. nodes
// is strongly connected.
func (s *search) fairPart(g *sccGraph, nodes []int) []int {
	in := make([]bool, len(g.ids))
	var acc uint64
	inner := false
	for _, u := range nodes {
		in[u] = true
		acc |= g.acc[u]
	}
	for _, u := range nodes {
		for _, e := range g.adj[u] {
			inner = inner || in[e.to]
		}
	}
	if !inner || acc != s.b.AllAcc() {
		return nil
	}
	if s.opt.Fairness == NoFairness {
		return nodes
	}
	taken := s.taken(g, in, nodes)
	if s.opt.Fairness == Weak {
		// An event enabled in every node must be taken inside.
		for _, ev := range enabledEverywhere(g, nodes) {
			if !taken[fairKey{ev: ev}] {
				return nil
			}
		}
		return nodes
	}
	// Strong, global: a node that enables a key never taken inside
	// cannot be visited infinitely often by a fair run.
	var keep []int
	for _, u := range nodes {
		ok := true
		for _, t := range g.sys[u] {
			if k, isKey := s.key(g.st[u], t.Event, t.Target); isKey && !taken[k] {
				ok = false
				break
			}
		}
		if ok {
			keep = append(keep, u)
		}
	}
	if len(keep) == len(nodes) {
		return nodes
	}
	for _, sub := range subSCCs(g, keep) {
		if d := s.fairPart(g, sub); d != nil {
			return d
		}
	}
	return nil
}

// enabledEverywhere lists the visible events enabled in every node.
func enabledEverywhere(g *sccGraph, nodes []int) []lts.Event {
	count := map[lts.Event]int{}
	for _, u := range nodes {
		seen := map[lts.Event]bool{}
		for _, t := range g.sys[u] {
			if t.Event != lts.Tau && t.Event != Deadlock && t.Event != Terminate && !seen[t.Event] {
				seen[t.Event] = true
				count[t.Event]++
			}
		}
	}
	var out []lts.Event
	for ev, c := range count {
		if c == len(nodes) {
			out = append(out, ev)
		}
	}
	slices.Sort(out)
	return out
}

// subSCCs returns the SCCs of the subgraph of g induced by nodes
// (Tarjan, iterative), each sorted, in a deterministic order.
func subSCCs(g *sccGraph, nodes []int) [][]int {
	in := make([]bool, len(g.ids))
	for _, u := range nodes {
		in[u] = true
	}
	index, low := make([]int, len(g.ids)), make([]int, len(g.ids))
	onStk := make([]bool, len(g.ids))
	var stack []int
	var out [][]int
	count := 0
	type fr struct{ u, k int }
	for _, r := range nodes {
		if index[r] != 0 {
			continue
		}
		count++
		index[r], low[r] = count, count
		stack, onStk[r] = append(stack, r), true
		frames := []fr{{r, 0}}
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			if f.k < len(g.adj[f.u]) {
				w := g.adj[f.u][f.k].to
				f.k++
				if !in[w] {
					continue
				}
				if index[w] == 0 {
					count++
					index[w], low[w] = count, count
					stack, onStk[w] = append(stack, w), true
					frames = append(frames, fr{w, 0})
				} else if onStk[w] {
					low[f.u] = min(low[f.u], index[w])
				}
				continue
			}
			u := f.u
			frames = frames[:len(frames)-1]
			if len(frames) > 0 {
				p := frames[len(frames)-1].u
				low[p] = min(low[p], low[u])
			}
			if low[u] == index[u] {
				i := len(stack) - 1
				for stack[i] != u {
					i--
				}
				comp := slices.Clone(stack[i:])
				for _, v := range comp {
					onStk[v] = false
				}
				stack = stack[:i]
				slices.Sort(comp)
				out = append(out, comp)
			}
		}
	}
	return out
}
