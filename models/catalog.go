package models

import "fmt"

// Common parameters of the data-structure families.
var (
	pQF  = Param{Name: "qf", Doc: "quasi factor; a segment has qf+1 slots", Default: 2, Min: 1, Max: 4}
	pSeg = Param{Name: "seg", Doc: "number of segments; capacity = (qf+1) x seg", Default: 1, Min: 1, Max: 15}
	// Overtaking is observable only with two values or more, and the
	// quasi-but-not-linearizable behaviours of the priority queue and the
	// bugs that need a concurrent enqueue only with two threads or more:
	// the expectations written in the models assume these minimums.
	pVals    = Param{Name: "vals", Doc: "values 1..vals are enqueued", Default: 2, Min: 2, Max: 4}
	pThreads = Param{Name: "threads", Doc: "threads calling operations forever", Default: 2, Min: 2, Max: 3}
	// track=1 restricts the enqueues of value 1 to one item at a time: a
	// reduction that keeps every refinement verdict against the FIFO and
	// cluster specifications (data independence; docs/models.md).
	pTrack = Param{Name: "track", Doc: "1: at most one item of value 1 at a time (data-independence reduction)", Default: 0, Min: 0, Max: 1}
	pCap   = Param{Name: "cap", Doc: "capacity", Default: 2, Min: 1, Max: 8}
)

func with(p Param, def, min, max int) Param {
	p.Default, p.Min, p.Max = def, min, max
	return p
}

// segmented derives the sizes of a segmented family.
func segmented(p map[string]int) map[string]any {
	k := p["qf"] + 1
	return map[string]any{"K": k, "CAP": k * p["seg"], "V": p["vals"], "T": p["threads"],
		"qfm1": p["qf"] - 1, "capm2": k*p["seg"] - 2, "pickMax": k - 1}
}

func capacity(p map[string]int) map[string]any {
	return map[string]any{"CAP": p["cap"], "V": p["vals"], "T": p["threads"]}
}

// maxCapacity bounds the size of generated arrays (and of state vectors).
func maxCapacity(p map[string]int) error {
	if c := (p["qf"] + 1) * p["seg"]; c > 64 {
		return fmt.Errorf("capacity (qf+1) x seg = %d is larger than 64", c)
	}
	return nil
}

var catalogue = []Info{
	{
		Name:        "demo",
		Description: "First steps: a linearizable queue and a 1-quasi segmented queue against a FIFO queue",
		File:        "lib/demo.csp",
		Tags:        []string{"demo"},
	},
	{
		Name:        "segqueue",
		Description: "Quasi queue: segmented linked list (Afek et al.), segments of qf+1 slots",
		Paper:       "Quasi queue",
		File:        "lib/segqueue.csp.tmpl",
		Params:      []Param{pQF, pSeg, pVals, pThreads, pTrack},
		Tags:        []string{"paper"},
		fixed:       map[string]int{"bug": 0},
		derive:      maxCapacity,
		extra:       segmented,
	},
	{
		Name:        "segqueue-buggy1",
		Description: "Queue buggy1: a dequeue on an empty queue may wrongly change the current segment",
		Paper:       "Queue buggy1",
		File:        "lib/segqueue.csp.tmpl",
		Params:      []Param{pQF, pSeg, pVals, pThreads, pTrack},
		Tags:        []string{"paper"},
		fixed:       map[string]int{"bug": 1},
		derive:      maxCapacity,
		extra:       segmented,
	},
	{
		Name:        "segqueue-buggy2",
		Description: "Queue buggy2: a dequeue may take a value from a wrong segment (the next one)",
		Paper:       "Queue buggy2",
		File:        "lib/segqueue.csp.tmpl",
		// The wrong segment is the next one in the ring: with one segment
		// the bug cannot show, so seg starts at 2.
		Params: []Param{pQF, with(pSeg, 2, 2, 15), pVals, pThreads, pTrack},
		Tags:   []string{"paper"},
		fixed:  map[string]int{"bug": 2},
		derive: maxCapacity,
		extra: func(p map[string]int) map[string]any {
			m := segmented(p)
			m["pickMax"] = p["qf"] + 1 // the off-by-one
			return m
		},
	},
	{
		Name:        "linqueue",
		Description: "Lin. queue: a lock-free ring-buffer queue (linearizable)",
		Paper:       "Lin. queue",
		File:        "lib/linqueue.csp.tmpl",
		Params:      []Param{pCap, with(pVals, 2, 1, 4), with(pThreads, 2, 1, 3)},
		Tags:        []string{"paper"},
		extra:       capacity,
	},
	{
		Name:        "segpq",
		Description: "Quasi priority queue: segmented, a dequeue scans the head segment",
		Paper:       "Q. priority Q",
		File:        "lib/segpq.csp.tmpl",
		Params:      []Param{pQF, pSeg, pVals, pThreads},
		Tags:        []string{"paper"},
		fixed:       map[string]int{"bug": 0},
		derive:      maxCapacity,
		extra:       segmented,
	},
	{
		Name:        "segpq-buggy",
		Description: "Priority Q buggy: a dequeue on an empty priority queue may change the current segment",
		Paper:       "Priority Q buggy",
		File:        "lib/segpq.csp.tmpl",
		Params:      []Param{pQF, pSeg, pVals, pThreads},
		Tags:        []string{"paper"},
		fixed:       map[string]int{"bug": 1},
		derive:      maxCapacity,
		extra:       segmented,
	},
	{
		Name:        "linstack",
		Description: "Lin. stack: a lock-free array stack, CAS on the top index (linearizable)",
		Paper:       "Lin. stack",
		File:        "lib/linstack.csp.tmpl",
		Params:      []Param{pCap, with(pVals, 2, 1, 4), with(pThreads, 2, 1, 3)},
		Tags:        []string{"paper"},
		extra:       capacity,
	},
	{
		Name:        "relaxed-specs",
		Description: "Section 4: the manual cluster spec (Table 1) and the flawed relaxed spec, against the automatic relaxation",
		File:        "lib/relaxed-specs.csp.tmpl",
		Params:      []Param{pQF, with(pSeg, 1, 1, 4), pVals},
		Tags:        []string{"paper", "spec"},
		derive:      maxCapacity,
		extra:       segmented,
	},
	{
		Name:        "philosophers",
		Description: "Dining philosophers: a deadlocking college and a fixed one",
		File:        "lib/philosophers.csp",
		Tags:        []string{"classic"},
	},
	{
		Name:        "readers-writers",
		Description: "Readers and writers: exclusion by reachability, with a broken writer",
		File:        "lib/readers-writers.csp",
		Tags:        []string{"classic"},
	},
	{
		Name:        "peterson",
		Description: "Peterson's mutual exclusion and a naive protocol; busy waiting diverges",
		File:        "lib/peterson.csp",
		Tags:        []string{"classic"},
	},
	{
		Name:        "abp",
		Description: "Alternating bit protocol over lossy synchronous channels, and the protocol without the bit",
		File:        "lib/abp.csp",
		Tags:        []string{"classic"},
	},
}
