package history

import (
	"context"
	"fmt"

	"github.com/quasar-verify/quasar/lts"

	"github.com/quasar-verify/quasar/relax"
)

// compileQuasi builds the machine of a quasi-linearizability check: the
// model's automaton view (AutomatonModel), relaxed by relax.New with the
// configuration (exact mode by default, docs/verdicts.md §2.2; window mode if
// asked). The search then runs over (linearized set, relaxed configuration);
// in complete mode a linearization must end in a settled configuration.
func compileQuasi(m Model, ops []Op, q *relax.Config) (Machine, error) {
	am, ok := m.(AutomatonModel)
	if !ok {
		return nil, fmt.Errorf("model %s has no event view: quasi-linearizability needs queue, stack, pqueue, set or an automaton model", m.Name())
	}
	a, err := am.Automaton(ops)
	if err != nil {
		return nil, err
	}
	r, err := relax.New(a, *q)
	if err != nil {
		return nil, err
	}
	mc, err := newAutomatonMachine(am, r, ops, nil)
	if err != nil {
		return nil, err
	}
	if q.Complete {
		mc.settled = r.Settled
	}
	return newQuasiMachine(mc, r, a, ops), nil
}

// MinQuasiFactor finds the least quasi factor k in 0..max for which h is
// quasi-linearizable with cfg's classes all given bound k (cfg.All if it
// has no classes). It returns k and that check's result, or -1 and the
// result at max if none is; an Unknown result at some k stops the search
// (k = -1, that result). Acceptance is monotone in k (a larger bound admits
// every configuration a smaller one does), so the search is linear from 0;
// each check is cheap next to the history's search space.
func MinQuasiFactor(ctx context.Context, h *History, m Model, cfg relax.Config, max int, opt Options) (int, *Result, error) {
	var last *Result
	for k := 0; k <= max; k++ {
		c := cfg.WithBound(k)
		o := opt
		o.Quasi = &c
		res, err := Check(ctx, h, m, o)
		if err != nil {
			return -1, nil, err
		}
		last = res
		switch res.Verdict {
		case lts.Valid:
			return k, res, nil
		case lts.Unknown:
			return -1, res, nil
		}
	}
	return -1, last, nil
}
