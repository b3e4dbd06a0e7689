package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/refine"
)

// checkFailures runs `Left refines <F> Right` or `Left refines <FD>
// Right`. Thread symmetry is not used: the reduction is proved for traces
// only (docs/refinement.md).
func checkFailures(ctx context.Context, prog *csp.Program, a *lang.AssertDecl, res *Assertion, opt Options, model refine.Model) error {
	impl, spec, err := refinementSides(prog, a, true)
	if err != nil {
		return err
	}
	ropt := refine.Options{Limits: opt.Limits, Workers: opt.Workers, Progress: opt.pairProgress(res)}
	r, err := refine.CheckFailures(ctx, impl, spec, model, ropt)
	if err != nil {
		return err
	}
	res.Verdict, res.Reason = r.Verdict, r.Reason
	res.Stats = RefinementStats(r.Stats, 0)
	if rc := r.Counterexample; rc != nil {
		ce := pathSteps(prog, impl, rc)
		ce.Kind, ce.Refused, ce.Acceptances = rc.Kind, rc.Refused, rc.Acceptances
		ce.Explanation = failureExplanation(rc)
		if rc.Kind != refine.KindTrace {
			ce.Offered = nil // "instead" of an event: only trace violations have one
		}
		res.Counterexample = ce
	}
	return nil
}

// failureExplanation says in words what a failures counterexample shows.
func failureExplanation(c *refine.Counterexample) string {
	switch c.Kind {
	case refine.KindRefusal:
		offers := "nothing (it deadlocks)"
		if len(c.ImplOffers) > 0 {
			offers = "only " + strings.Join(c.ImplOffers, " ")
		}
		var accs []string
		for _, a := range c.Acceptances {
			accs = append(accs, "{"+strings.Join(a, " ")+"}")
		}
		must := "the specification has no stable state there, so it refuses nothing"
		switch len(accs) {
		case 0:
		case 1:
			must = "every stable state of the specification there offers at least " + accs[0]
		default:
			must = "every stable state of the specification there offers at least " + strings.Join(accs, " or ")
		}
		if len(c.Refused) == 0 {
			return fmt.Sprintf("after the trace the implementation is stable and offers %s; %s", offers, must)
		}
		return fmt.Sprintf("after the trace the implementation is stable and offers %s, so it refuses %s; %s",
			offers, strings.Join(c.Refused, " "), must)
	case refine.KindDivergence:
		return fmt.Sprintf("after the trace the implementation can diverge: the last %d steps form a cycle of internal steps, and the specification cannot diverge there", c.Cycle)
	case refine.KindTrace:
		if c.Event == refine.TickName {
			return "the implementation terminates (✓) where the specification cannot"
		}
	}
	return ""
}
