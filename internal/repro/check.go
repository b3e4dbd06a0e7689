package repro

import (
	"context"
	"fmt"
	"strings"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

// check runs the assertion at line of a model: parse, check, compile, build
// the (relaxed) specification and search the product.
func check(ctx context.Context, name string, src []byte, line int, limits lts.Limits) (outcome, error) {
	m, err := lang.Parse(name, src)
	if err != nil {
		return outcome{}, err
	}
	ch, err := lang.Check(m)
	if err != nil {
		return outcome{}, err
	}
	var a *lang.AssertDecl
	for _, x := range ch.Info.Asserts {
		if x.Pos().Line == line {
			a = x
		}
	}
	if a == nil {
		return outcome{}, fmt.Errorf("%s:%d: no assertion", name, line)
	}
	prog, err := lts.Compile(ch)
	if err != nil {
		return outcome{}, err
	}
	if a.Kind != lang.KindRefines && a.Kind != lang.KindQuasi {
		r, err := lts.CheckAssertion(ctx, prog, a, lts.Options{Limits: limits})
		if err != nil {
			return outcome{}, err
		}
		return outcome{r.Verdict, r.Reason, r.Stats.States, r.Stats.Transitions, r.Stats.Seconds, r.Stats.PeakBytes}, nil
	}
	impl, err := prog.Process(a.Left)
	if err != nil {
		return outcome{}, err
	}
	specSys, err := prog.Process(a.Right)
	if err != nil {
		return outcome{}, err
	}
	var spec lts.Automaton = lts.NewTauClosed(specSys)
	if a.Kind == lang.KindQuasi {
		text := string(src[a.Quasi.Pos().Offset:a.Quasi.End().Offset])
		text = strings.TrimPrefix(strings.TrimSpace(text), "quasi")
		cfg, err := relax.ParseConfig(text)
		if err != nil {
			return outcome{}, fmt.Errorf("%s: %v", a.Quasi.Pos(), err)
		}
		if spec, err = relax.New(spec, cfg); err != nil {
			return outcome{}, err
		}
	}
	r, err := refine.Check(ctx, impl, spec, refine.Options{Limits: limits, Workers: lts.DefaultWorkers()})
	if err != nil {
		return outcome{}, err
	}
	return outcome{r.Verdict, r.Reason, r.Stats.States, r.Stats.Transitions, r.Stats.Seconds, r.Stats.PeakBytes}, nil
}
