//go:build explore

package models

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

// TestExplore (go test -tags explore) compiles every model, runs its
// single-process assertions and explores both sides of its refinement
// assertions, reporting sizes: a development aid until the whole pipeline
// (internal/run) checks refinement.
func TestExplore(t *testing.T) {
	only := os.Getenv("EXPLORE_MODEL")
	ps, err := ParseParams(strings.Fields(os.Getenv("EXPLORE_PARAMS")))
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range List() {
		if only != "" && i.Name != only {
			continue
		}
		t.Run(i.Name, func(t *testing.T) {
			f, src, err := Generate(i.Name, ps)
			if err != nil {
				t.Fatal(err)
			}
			m, err := lang.Parse(f, src)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := lang.Check(m)
			if err != nil {
				t.Fatal(err)
			}
			prog, err := lts.Compile(ch)
			if err != nil {
				t.Fatal(err)
			}
			exp := Expectations(src)
			opt := lts.Options{Limits: lts.Limits{Timeout: 30 * time.Second}}
			ctx := context.Background()
			for k, a := range ch.Info.Asserts {
				switch a.Kind {
				case lang.KindRefines, lang.KindQuasi:
					impl, err := prog.Process(a.Left)
					if err != nil {
						t.Fatal(err)
					}
					specSys, err := prog.Process(a.Right)
					if err != nil {
						t.Fatal(err)
					}
					var spec lts.Automaton = lts.NewTauClosed(specSys)
					if a.Kind == lang.KindQuasi {
						txt := exp[k].Text
						txt = txt[strings.Index(txt, "<quasi")+6 : strings.Index(txt, ">")]
						cfg, err := relax.ParseConfig(txt)
						if err != nil {
							t.Fatal(err)
						}
						if spec, err = relax.New(spec, cfg); err != nil {
							t.Fatal(err)
						}
					}
					r, err := refine.Check(ctx, impl, spec, refine.Options{Limits: opt.Limits})
					if err != nil {
						t.Errorf("line %d: %v", exp[k].Line, err)
						continue
					}
					t.Logf("line %d: %-70s %v (expected %v) %d pairs %.2fs", exp[k].Line, exp[k].Text, r.Verdict, exp[k].Verdict, r.Stats.States, r.Stats.Seconds)
					if r.Counterexample != nil {
						t.Logf("    counterexample %v", r.Counterexample.Trace)
					}
					if r.Verdict != exp[k].Verdict {
						var tr []string
						if r.Counterexample != nil {
							tr = r.Counterexample.Trace
						}
						t.Errorf("line %d: %s: got %v, expected %v; %s %v", exp[k].Line, exp[k].Text, r.Verdict, exp[k].Verdict, r.Reason, tr)
					}
				default:
					r, err := lts.CheckAssertion(ctx, prog, a, opt)
					if err != nil {
						t.Errorf("line %d: %v", exp[k].Line, err)
						continue
					}
					t.Logf("line %d: %s: %v (expected %v) %d states %.2fs", exp[k].Line, exp[k].Text, r.Verdict, exp[k].Verdict, r.Stats.States, r.Stats.Seconds)
					if r.Verdict != exp[k].Verdict {
						var tr []string
						for _, s := range r.Trace {
							tr = append(tr, s.Event)
						}
						t.Errorf("line %d: %s: got %v, expected %v; %s %v", exp[k].Line, exp[k].Text, r.Verdict, exp[k].Verdict, r.Reason, tr)
					}
				}
			}
		})
	}
}
