package refine

import (
	"strings"

	"github.com/quasar-verify/quasar/lts"
)

// Options configure a check. The zero value works: sequential search,
// antichain pruning on, no limits.
type Options struct {
	Limits lts.Limits
	// Workers >= 2 expands each BFS level of at least a few hundred pairs
	// with that many goroutines: an impl that gives frontier.Rounds
	// (*csp.Proc) stores their successors with them, with the ids one
	// worker gives; another has impl.Successors called concurrently. The
	// verdict, the statistics and the counterexample are the same as with
	// one worker.
	Workers int
	// NoAntichain turns antichain pruning off (every (impl, macrostate)
	// pair is explored); it exists to compare both ways in tests.
	NoAntichain bool
	// Progress, if set, is called from the search goroutine whenever the
	// limits are polled (every few thousand pairs) with the stats so far.
	// With Workers >= 2 and a *csp.Proc impl, the figures of the polls
	// made while the workers expand a batch are reported after it, so the
	// callback may use the impl; the search still sees a context the
	// callback cancels at the poll one worker sees it.
	Progress func(Stats)

	parallelAll bool // tests: the workers expand small levels too
	noRounds    bool // benchmarks: an Expander even for an impl with Rounds
	roundBatch  int  // tests: the pairs per batch of levelRounds (0: Rounds.Size)
	eagerAnti   bool // tests: antichain lists kept from the first pair (search.antiOn)
}

// Result of a refinement check.
type Result struct {
	Verdict lts.Verdict `json:"verdict"`
	// Reason says why the verdict is Unknown ("state limit 1000",
	// "cancelled", ...); empty otherwise.
	Reason         string          `json:"reason,omitempty"`
	Stats          Stats           `json:"stats"`
	Counterexample *Counterexample `json:"counterexample,omitempty"`
}

// Stats of a finished or interrupted search. The embedded lts.Stats count
// product pairs as States.
type Stats struct {
	lts.Stats
	ImplStates     int64   `json:"impl_states"`      // distinct implementation states reached
	Pairs          int64   `json:"pairs"`            // product pairs stored (= States)
	Macrostates    int64   `json:"macrostates"`      // distinct non-empty spec macrostates
	PairsPerSecond float64 `json:"pairs_per_second"` // Pairs / Seconds
}

// Counterexample is a shortest violation t·e: t is a trace of both the
// implementation and the specification, t·e of the implementation only.
type Counterexample struct {
	// Trace is t·e, the visible events; its last element is Event.
	Trace []string `json:"trace"`
	// Event is e, the implementation event the specification cannot follow.
	Event string `json:"event"`
	// Offered are the events the specification could perform after t
	// (the union of Enabled over its states after t), sorted by event id.
	Offered []string `json:"offered"`
	// Initial describes the initial implementation state (nil if the
	// implementation is not an lts.Describer).
	Initial []lts.Binding `json:"initial,omitempty"`
	// Path is the implementation path that performs t·e, tau steps
	// included; its last step is e. For a refusal it ends in the stable
	// state that refuses; for a divergence its last Cycle steps are the
	// tau cycle.
	Path []Step `json:"path"`

	// Failures checks (CheckFailures) only. Kind is KindTrace, KindRefusal
	// or KindDivergence. For a trace violation t·e is as above (e may be
	// TickName: the implementation terminates, the specification cannot).
	// For the others Trace is t and Event is empty.
	Kind string `json:"kind,omitempty"`
	// Refusal: ImplOffers are the events the stable implementation state
	// offers (TickName if it terminated; empty if it deadlocks);
	// Acceptances are the specification's minimal acceptances after t (it
	// offers all events of at least one of them); Refused are the events of
	// those the implementation refuses.
	ImplOffers  []string   `json:"impl_offers,omitempty"`
	Acceptances [][]string `json:"acceptances,omitempty"`
	Refused     []string   `json:"refused,omitempty"`
	// Cycle is the number of tau steps at the end of Path that lead from
	// the state reached by t back to itself (a divergence).
	Cycle int `json:"cycle,omitempty"`
}

// Step is one transition of a counterexample path.
type Step struct {
	Event   string    `json:"event"` // "tau" for an internal step
	Visible bool      `json:"visible"`
	State   lts.State `json:"state"` // implementation state after the step
	// Vars describe State (lts.Describer); Changed lists the bindings that
	// differ from the previous state (new or changed values).
	Vars    []lts.Binding `json:"vars,omitempty"`
	Changed []lts.Binding `json:"changed,omitempty"`
}

// TraceError is a run-time error of the implementation or the specification
// met during the search, with the visible trace that reached it (the event
// whose evaluation failed last, if any).
type TraceError struct {
	Err   error
	Trace []string
}

func (e *TraceError) Error() string {
	if len(e.Trace) == 0 {
		return e.Err.Error() + " (in the initial state)"
	}
	return e.Err.Error() + " (after trace " + strings.Join(e.Trace, ", ") + ")"
}

func (e *TraceError) Unwrap() error { return e.Err }
