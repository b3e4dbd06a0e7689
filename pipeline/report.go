// Package pipeline is the one way from a model file to verdicts: it parses
// and checks the model (lang), compiles it (csp), resolves each assertion
// from the checked AST into an implementation, a specification automaton and
// a relaxation (csp, relax), runs the matching check (csp for single-process
// properties, refine for refinement and quasi refinement), re-validates
// every counterexample, and collects one result per assertion. The CLI, the
// model-library tests, the paper reproduction and library users all go
// through it, so a verdict means the same thing everywhere; no other package
// loads a model for checking.
package pipeline

import (
	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

// Options configure a run. The zero value checks every assertion with no
// limits, one worker, and each assertion's own relaxation mode.
type Options struct {
	Limits  lts.Limits
	Workers int
	// Mode, if not nil, overrides the relaxation mode of quasi assertions.
	Mode *relax.Mode
	// Assert selects assertions: "" for all, a 1-based index ("2"), or a
	// substring of the assertion's text ("Impl() refines").
	Assert string
	// Progress, if set, is called from the searching goroutine about every
	// 100 ms with the stats so far.
	Progress func(Progress)
	// Collect runs the garbage collector before each assertion (outside its
	// time), so that an assertion's time does not include collecting the
	// parser's and compiler's garbage (the paper's reproduction times
	// short checks this way).
	Collect bool
	// NoSymmetry turns off the thread-symmetry reduction of refinement
	// checks (csp.Program.SymmetricProcess).
	NoSymmetry bool
	// NoReduction turns off the partial-order reduction of linearizes
	// checks (linearize.Reduced).
	NoReduction bool
	// Fair is the fairness assumption of LTL assertions: "" or "none",
	// "weak", "strong" (strong local) or "global" (strong global).
	Fair string
	// Compact, if its Mode is not csp.Exact, checks the single-process
	// assertions with a probabilistic visited set (hash compaction or
	// bitstate hashing; csp.Compaction); the assertions it does not apply
	// to end with an error saying so.
	Compact csp.Compaction
	// NoLateArgs turns off the arguments chosen late of linearizes
	// checks (late.go, docs/linearizes.md, "Arguments chosen late"): by
	// default an invocation family `[] v:A @ OP_inv.T.v -> P` of the
	// implementation is checked as one invocation whose argument the
	// thread chooses where it first reads it, against object states
	// tagged with it. A model the rewrite does not know is checked as
	// without it (Assertion.LateArgsOff says why).
	NoLateArgs bool

	late       *lateCtx // set per assertion when the late arguments apply
	lateMutant int      // tests: a hand mutant of the rewrite (late.go)
	// lateNoCompress: a choice is not compressed with the responses after
	// it (tests and measurements compare the two).
	lateNoCompress bool
}

// Progress is a snapshot of a running search.
type Progress struct {
	Assertion string
	States    int64
	Depth     int
	Bytes     int64
	Seconds   float64
}

// Report is the outcome of a run over one file.
type Report struct {
	File       string       `json:"file"`
	Assertions []*Assertion `json:"assertions"`
}

// Assertion is the outcome of one #assert.
type Assertion struct {
	Line           int             `json:"line"`
	Text           string          `json:"text"`
	Kind           string          `json:"kind"`
	Verdict        lts.Verdict     `json:"verdict"`
	Reason         string          `json:"reason,omitempty"`
	Stats          Stats           `json:"stats"`
	Counterexample *Counterexample `json:"counterexample,omitempty"`
	Witness        *Counterexample `json:"witness,omitempty"`  // reaches: a shortest trace to the goal (with min/max: to the optimum)
	Value          *int64          `json:"value,omitempty"`    // reaches ... with min/max
	Error          string          `json:"error,omitempty"`    // a run-time error of the model, or an internal error
	Internal       bool            `json:"internal,omitempty"` // Error is a bug of quasar, not of the model
	// LateArgsOff says why a linearizes check ran without the arguments
	// chosen late (Stats.LateArgs false; "" when they were used or turned
	// off by Options.NoLateArgs): the model's shape the rewrite does not
	// know, or what the check with them found that they cannot handle
	// (then checked again without them).
	LateArgsOff string `json:"late_args_off,omitempty"`
	// lateRetry, set by a check with arguments chosen late, says why its
	// result does not stand (the rewrite's assumptions fail on the model:
	// a thread answers before it chose, a counterexample is no
	// violation of the model): Parsed checks again without the option.
	lateRetry string
	// Probabilistic: the verdict comes from a compact search (--hash-compact,
	// --bitstate) and rests on its having visited every reachable state,
	// which it may not have done; Coverage.Omission estimates the
	// probability that it did not. A verdict with a counterexample or a
	// witness is exact (rebuilt and re-validated on the full system).
	Probabilistic bool          `json:"probabilistic,omitempty"`
	Coverage      *csp.Coverage `json:"coverage,omitempty"` // the compact search's visited set and estimates
}

// Stats are the figures of one check.
type Stats struct {
	States      int64   `json:"states"`
	Transitions int64   `json:"transitions"`
	Seconds     float64 `json:"seconds"`
	PeakBytes   int64   `json:"peak_bytes"`
	Pairs       int64   `json:"pairs,omitempty"`       // refinement: product pairs
	SpecStates  int64   `json:"spec_states,omitempty"` // refinement: spec macrostates
	// Symmetry is the number of threads whose renamings the refinement
	// search factored out (states then count orbits), or 0.
	Symmetry int `json:"symmetry,omitempty"`
	// LateArgs: a linearizes check ran with arguments chosen late (its
	// states and pairs are those of the rewritten implementation).
	LateArgs bool `json:"late_args,omitempty"`
}

// RefinementStats are the figures of a refinement search: States counts the
// implementation states reached (orbits when symmetry > 0), apart from the
// product pairs the search stored.
func RefinementStats(s refine.Stats, symmetry int) Stats {
	return Stats{
		States: s.ImplStates, Transitions: s.Transitions, Seconds: s.Seconds,
		PeakBytes: s.PeakBytes, Pairs: s.Pairs, SpecStates: s.Macrostates,
		Symmetry: symmetry,
	}
}

// Counterexample is a trace that violates an assertion, re-validated before
// it is reported.
type Counterexample struct {
	Trace       []string `json:"trace"`                 // visible events, the last one is the violation
	Steps       []Step   `json:"steps"`                 // every step, tau included
	Offered     []string `json:"offered,omitempty"`     // refinement: what the spec could do instead
	Explanation string   `json:"explanation,omitempty"` // quasi: the unjustified event or the obligation that ran out
	History     []string `json:"history,omitempty"`     // linearizes: the operations of the trace, one per line
	// refines <F> / <FD>: the kind of violation ("trace", "refusal",
	// "divergence"); for a refusal, the events the implementation refuses
	// and the specification's minimal acceptances (it offers every event
	// of one of them).
	Kind        string     `json:"kind,omitempty"`
	Refused     []string   `json:"refused,omitempty"`
	Acceptances [][]string `json:"acceptances,omitempty"`
}

// Step is one transition of a counterexample.
type Step struct {
	Event   string        `json:"event"`
	Who     string        `json:"who,omitempty"`     // the component that moved
	Changed []lts.Binding `json:"changed,omitempty"` // variables whose value changed
}
