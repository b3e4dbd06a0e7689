package ltl

import (
	"slices"

	"github.com/quasar-verify/quasar/lts"
)

// lasso builds the counterexample through the fair accepting part d of
// the SCC g rooted at the product pair root: a shortest path from an
// initial pair to a node of d (breadth first over the pairs the search
// visited; the DFS tree path if that fails), and a cycle inside d from
// that node that meets every acceptance set and satisfies the fairness
// assumption.
func (s *search) lasso(g *sccGraph, root uint32, d []int) *Lasso {
	prefix, start, ok := s.shortestPrefix(g, d)
	if !ok {
		prefix, start = s.treePrefix(g, root, d)
	}
	inD := make([]bool, len(g.ids))
	for _, u := range d {
		inD[u] = true
	}
	targets := s.targets(g, inD, d)
	var cyc []lstep
	for range len(g.ids) + 2 {
		cyc = cycleThrough(g, inD, start, targets)
		more := s.weakMissing(g, inD, d, cyc)
		if len(more) == 0 {
			break
		}
		targets = append(targets, more...)
	}
	l := &Lasso{Prefix: prefix}
	for _, st := range cyc {
		l.Cycle = append(l.Cycle, g.step(st))
	}
	return l
}

// treePrefix is the DFS tree path from an initial pair to root, then a
// path inside the SCC to the first node of d.
func (s *search) treePrefix(g *sccGraph, root uint32, d []int) ([]Step, int) {
	var prefix []Step
	for id := root; s.info[id].par != noParent; id = s.info[id].par {
		from, _, _ := s.pair(s.info[id].par)
		to, _, _ := s.pair(id)
		prefix = append(prefix, Step{From: from, Event: s.info[id].parEv, To: to})
	}
	slices.Reverse(prefix)
	all := make([]bool, len(g.ids))
	for i := range all {
		all[i] = true
	}
	r, _ := slices.BinarySearch(g.ids, root)
	for _, st := range bfs(g, all, r, d[0]) {
		prefix = append(prefix, g.step(st))
	}
	return prefix, d[0]
}

// shortestPrefix is a shortest path, over the pairs the search visited,
// from an initial pair to a node of d, and that node.
func (s *search) shortestPrefix(g *sccGraph, d []int) ([]Step, int, bool) {
	target := make(map[uint32]int, len(d))
	for _, u := range d {
		target[g.ids[u]] = u
	}
	type via struct {
		par uint32
		ev  lts.Event
	}
	seen := map[uint32]via{}
	var queue []uint32
	for _, id := range s.inits {
		if _, ok := seen[id]; !ok {
			seen[id] = via{par: noParent}
			queue = append(queue, id)
		}
	}
	var buf []edge
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if u, ok := target[id]; ok {
			var prefix []Step
			for v := id; seen[v].par != noParent; v = seen[v].par {
				from, _, _ := s.pair(seen[v].par)
				to, _, _ := s.pair(v)
				prefix = append(prefix, Step{From: from, Event: seen[v].ev, To: to})
			}
			slices.Reverse(prefix)
			return prefix, u, true
		}
		var err error
		if buf, err = s.successors(id, buf[:0]); err != nil {
			return nil, 0, false
		}
		for _, e := range buf {
			if _, ok := seen[e.to]; ok || s.info[e.to].index == 0 {
				continue
			}
			seen[e.to] = via{id, e.ev}
			queue = append(queue, e.to)
		}
	}
	return nil, 0, false
}

func (g *sccGraph) step(st lstep) Step {
	e := g.adj[st.u][st.k]
	return Step{From: g.st[st.u], Event: e.ev, To: g.st[e.to]}
}

// targets are the nodes and edges a cycle in d must pass: a node of each
// acceptance set, an inner edge, and (with fairness) an edge of each
// fairness key taken inside d.
func (s *search) targets(g *sccGraph, inD []bool, d []int) []lstep {
	var out []lstep
	for j := 0; j < s.b.NumAcc; j++ {
		for _, u := range d {
			if g.acc[u]&(1<<j) != 0 {
				out = append(out, lstep{u, -1})
				break
			}
		}
	}
	seen := map[fairKey]bool{}
	first := true
	for _, u := range d {
		for k, e := range g.adj[u] {
			if !inD[e.to] {
				continue
			}
			key, ok := s.key(g.st[u], e.ev, g.st[e.to])
			if first || (s.opt.Fairness != NoFairness && ok && !seen[key]) {
				out = append(out, lstep{u, k})
				first = false
				if ok {
					seen[key] = true
				}
			}
		}
	}
	return out
}

// weakMissing: under weak fairness, the cycle must take every event
// enabled in all of its states. For an event that it misses: an edge of d
// that takes it, or else (d is weakly fair) a node of d where it is not
// enabled, as further targets.
func (s *search) weakMissing(g *sccGraph, inD []bool, d []int, cyc []lstep) []lstep {
	if s.opt.Fairness != Weak {
		return nil
	}
	var visited []int
	takenEv := map[lts.Event]bool{}
	for _, st := range cyc {
		visited = append(visited, st.u)
		takenEv[g.adj[st.u][st.k].ev] = true
	}
	var out []lstep
	for _, ev := range enabledEverywhere(g, visited) {
		if takenEv[ev] {
			continue
		}
		if t, ok := findEdge(g, inD, d, ev); ok {
			out = append(out, t)
			continue
		}
		for _, u := range d {
			if !slices.ContainsFunc(g.sys[u], func(t lts.Transition) bool { return t.Event == ev }) {
				out = append(out, lstep{u, -1})
				break
			}
		}
	}
	return out
}

func findEdge(g *sccGraph, inD []bool, d []int, ev lts.Event) (lstep, bool) {
	for _, u := range d {
		for k, e := range g.adj[u] {
			if inD[e.to] && e.ev == ev {
				return lstep{u, k}, true
			}
		}
	}
	return lstep{}, false
}

// cycleThrough returns a cycle from start through every target (a node,
// k = -1, or an edge) and back, inside the nodes marked in.
func cycleThrough(g *sccGraph, in []bool, start int, targets []lstep) []lstep {
	var cyc []lstep
	cur := start
	for _, t := range targets {
		cyc = append(cyc, bfs(g, in, cur, t.u)...)
		cur = t.u
		if t.k >= 0 {
			cyc = append(cyc, t)
			cur = g.adj[t.u][t.k].to
		}
	}
	return append(cyc, bfs(g, in, cur, start)...)
}

// bfs returns a shortest path from a to b inside the nodes marked in
// (empty if a == b).
func bfs(g *sccGraph, in []bool, a, b int) []lstep {
	if a == b {
		return nil
	}
	par := make([]lstep, len(g.ids))
	seen := make([]bool, len(g.ids))
	seen[a] = true
	queue := []int{a}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for k, e := range g.adj[u] {
			if !in[e.to] || seen[e.to] {
				continue
			}
			seen[e.to], par[e.to] = true, lstep{u, k}
			if e.to == b {
				var path []lstep
				for v := b; v != a; v = par[v].u {
					path = append(path, par[v])
				}
				slices.Reverse(path)
				return path
			}
			queue = append(queue, e.to)
		}
	}
	return nil // unreachable: the nodes are strongly connected
}
