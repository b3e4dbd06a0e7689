package sched

// node is a choice point of the current DFS path.
type node struct {
	enabled uint64
	sleep   uint64 // sleep set on entry
	done    uint64 // choices explored (the current one included)
	chosen  int
	cur     int
	known   bool // enabled and cur are filled (false for a deferred prefix until first run)
}

// dfs explores, by re-execution, every schedule that extends a prefix
// (an item) without further preemptions (bounded mode), or every schedule
// (unbounded mode), pruned by sleep sets if asked.
type dfs struct {
	bounded  bool
	sleepSet bool
	base     int // nodes below base belong to the item's prefix: not backtracked
	preempts int // of the item's prefix
	nodes    []node
	next     uint64 // sleep set of the next new node
	deferred []item // preempting alternatives, for the next bound
	stepless *bool  // an operation without a marked step was seen
}

// item is a schedule prefix whose last choice is a preemption, explored
// in the iteration of its preemption count.
type item struct {
	prefix   []int
	preempts int
}

func newDFS(it item, bounded, sleepSet bool) *dfs {
	d := &dfs{bounded: bounded, sleepSet: sleepSet, base: len(it.prefix), preempts: it.preempts}
	for _, t := range it.prefix {
		d.nodes = append(d.nodes, node{chosen: t})
	}
	return d
}

func (d *dfs) choose(depth int, enabled uint64, cur int, acc []access, edge uint8) int {
	d.next = d.wake(d.next, edge, acc)
	if depth < len(d.nodes) {
		n := &d.nodes[depth]
		if !n.known {
			n.enabled, n.cur, n.known = enabled, cur, true
		} else if n.enabled != enabled || n.cur != cur {
			return -2
		}
		if enabled&(1<<n.chosen) == 0 {
			return -2
		}
		d.next = d.childSleep(n, acc)
		return n.chosen
	}
	avail := enabled &^ d.next
	if avail == 0 {
		return -1 // every runnable step is asleep: an equivalent run was explored
	}
	t := defaultChoice(cur, avail)
	if d.bounded && cur >= 0 && enabled&(1<<cur) != 0 && t != cur {
		// cur is asleep; bounded mode has no sleep sets, so this cannot
		// happen, but stay within the bound if it does.
		return -1
	}
	n := node{enabled: enabled, sleep: d.next, done: 1 << t, chosen: t, cur: cur, known: true}
	d.nodes = append(d.nodes, n)
	if d.bounded {
		for u := 0; u < len(acc); u++ {
			if u != t && enabled&(1<<u) != 0 && isPreemption(cur, u, enabled) {
				p := make([]int, depth+1)
				for i := 0; i < depth; i++ {
					p[i] = d.nodes[i].chosen
				}
				p[depth] = u
				d.deferred = append(d.deferred, item{prefix: p, preempts: d.preempts + 1})
			}
		}
	}
	d.next = d.childSleep(&d.nodes[depth], acc)
	return t
}

// childSleep is the sleep set after n's choice: the threads asleep at n or
// explored before the choice at n, whose steps are independent of the
// chosen one (so they stay at the same step and commute with it).
func (d *dfs) childSleep(n *node, acc []access) uint64 {
	if !d.sleepSet {
		return 0
	}
	s := (n.sleep | n.done) &^ (1 << n.chosen)
	a := acc[n.chosen]
	for u := 0; u < len(acc); u++ {
		if s&(1<<u) != 0 && acc[u].dependent(a) {
			s &^= 1 << u
		}
	}
	return s
}

// wake removes from the sleep set the threads whose pending step does not
// commute with the step just taken as far as the history is concerned.
// The history orders a return before a call (precedence), so two quanta
// that stamp, one a return and the other a call, do not commute even on
// independent steps. A sleeping thread's quantum stamps a call if its
// step is its operation's first (acc.first), and may stamp a return (its
// operation may end there) and, after it, the call of an operation
// without marked steps (d.stepless: seen in some execution; whether an
// operation has marked steps does not depend on the schedule, as it reads
// no shared state otherwise). So: after a call, wake all; after a return
// only, wake the first steps (all, if stepless operations exist).
func (d *dfs) wake(sleep uint64, edge uint8, acc []access) uint64 {
	switch {
	case sleep == 0 || edge == 0:
		return sleep
	case edge&edgeCall != 0 || d.stepless != nil && *d.stepless:
		return 0
	}
	for u := range acc {
		if acc[u].first {
			sleep &^= 1 << u
		}
	}
	return sleep
}

// backtrack moves to the deepest choice point with an unexplored
// alternative allowed in this iteration; false when the item is done.
func (d *dfs) backtrack() bool {
	for i := len(d.nodes) - 1; i >= d.base; i-- {
		n := &d.nodes[i]
		alts := n.enabled &^ n.done &^ n.sleep
		if d.bounded && n.cur >= 0 && n.enabled&(1<<n.cur) != 0 {
			alts = 0 // the alternatives are preemptions: deferred
		}
		if alts != 0 {
			u := lowest(alts)
			n.done |= 1 << u
			n.chosen = u
			d.nodes = d.nodes[:i+1]
			return true
		}
	}
	return false
}

// replayer forces a schedule, then continues with default choices.
type replayer struct{ choices []int }

func (p *replayer) choose(depth int, enabled uint64, cur int, _ []access, _ uint8) int {
	if depth < len(p.choices) {
		return p.choices[depth]
	}
	return defaultChoice(cur, enabled)
}
