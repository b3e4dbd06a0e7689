package refine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/internal/frontier"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/models"
	"github.com/quasar-verify/quasar/refine"
)

// counted is a *csp.Proc whose Rounds count their Expands: the search sees
// the Proc's Successors, SuccessorsBatch and NewRounds.
type counted struct {
	*csp.Proc
	expands *int
}

func (c counted) NewRounds(workers int) frontier.Rounds {
	r := c.Proc.NewRounds(workers)
	if r == nil {
		return nil
	}
	return countedRounds{r, c.expands}
}

type countedRounds struct {
	frontier.Rounds
	expands *int
}

func (c countedRounds) Expand(states []lts.State) (int, error) {
	*c.expands++
	return c.Rounds.Expand(states)
}

// Shares forwards the Proc's rounds' (frontier.Sharer).
func (c countedRounds) Shares(sys lts.System) bool {
	return c.Rounds.(frontier.Sharer).Shares(sys)
}

// walking counts the rounds in which the search walked a batch.
var walking int

func (c countedRounds) ExpandWalking(states []lts.State, walk func()) (int, error) {
	*c.expands++
	walking++
	return c.Rounds.(frontier.Walker).ExpandWalking(states, walk)
}

// refinesChecks are trace refinements of library models and of a model
// whose run-time error comes in a wide level; each has levels of more
// than the 512 pairs from which the workers expand.
func refinesChecks(t *testing.T) (srcs []string, names []string) {
	for _, m := range []struct {
		name   string
		params map[string]int
	}{
		{"segqueue", map[string]int{"qf": 2, "seg": 2}},
		{"segqueue-buggy1", map[string]int{"qf": 2, "seg": 2}},
		{"segpq", nil},
		{"linqueue", map[string]int{"cap": 3}},
	} {
		_, src, err := models.Generate(m.name, m.params)
		if err != nil {
			t.Fatal(err)
		}
		srcs, names = append(srcs, string(src)), append(names, fmt.Sprint(m.name, m.params))
	}
	// Four counters up to 9: the level of sum d holds up to 670 states;
	// at sum 30 the index is out of range; poke, from sum 29 on, is not
	// a trace of NoPoke.
	srcs = append(srcs, `var c[4];
var a[31];
P(i) = [c[i] < 9] inc.i{c[i] = c[i] + 1} -> P(i);
Q = [c[0] + c[1] + c[2] + c[3] >= 29] poke{a[c[0] + c[1] + c[2] + c[3] + 1] = 1} -> Q;
Sys = (||| i:{0..3} @ P(i)) ||| Q;
Any = ([] i:{0..3} @ inc.i -> Any) [] poke -> Any;
NoPoke = [] i:{0..3} @ inc.i -> NoPoke;
#assert Sys() refines Any();
#assert Sys() refines NoPoke();
`)
	names = append(names, "counters")
	return srcs, names
}

// TestRoundsRealModels checks trace refinements of csp models with 1, 2, 3
// and 4 workers: the same verdict, statistics, counterexample or error,
// and the same states under the same ids in the implementation's store
// (compared by description), while the workers' rounds expanded the wide
// levels.
func TestRoundsRealModels(t *testing.T) {
	srcs, names := refinesChecks(t)
	checks, rounds, errs, used := 0, 0, 0, 0
	for k, src := range srcs {
		ch, asserts := checkedRefines(t, src)
		for ai, a := range asserts {
			if a == nil {
				continue
			}
			var want string
			var wantStates []string
			for _, c := range []struct{ w, batch int }{{1, 0}, {2, 0}, {3, 0}, {4, 0}, {2, 1}, {2, 5}, {3, 300}} {
				w := c.w
				prog, err := csp.Compile(ch)
				if err != nil {
					t.Fatal(err)
				}
				impl, why, err := prog.SymmetricProcess(a.Left)
				if err != nil {
					t.Fatal(err)
				}
				if why != "" {
					if impl, err = prog.Process(a.Left); err != nil {
						t.Fatal(err)
					}
				}
				spec, err := prog.Process(a.Right)
				if err != nil {
					t.Fatal(err)
				}
				expands := 0
				opt := refine.Options{Workers: w}
				if c.batch > 0 {
					opt = refine.WithRoundBatch(opt, c.batch)
				}
				res, err := refine.Check(context.Background(), counted{impl, &expands}, lts.NewTauClosed(spec), opt)
				var b strings.Builder
				b.WriteString(reportLines(res, err))
				// The states the search stored, by description (term
				// ids depend on the order the workers met the terms).
				// A round may run ahead of the walk, so a search that
				// stops early may have stored more: the common ones are
				// compared, and all of them for a valid verdict.
				n := impl.NumStates()
				if err == nil && res.Verdict == lts.Valid {
					fmt.Fprintf(&b, "%d states\n", n)
				}
				var states []string
				for id := range min(n, 3000) {
					states = append(states, fmt.Sprint(impl.Describe(lts.State(id))))
				}
				got := b.String()
				checks++
				if w == 1 {
					want, wantStates = got, states
					if err != nil {
						errs++
					}
					continue
				}
				for id := range min(len(states), len(wantStates)) {
					if states[id] != wantStates[id] {
						t.Errorf("%s assertion %d, %d workers, batches %d: state %d is\n%s\nwant\n%s", names[k], ai+1, w, c.batch, id, states[id], wantStates[id])
						break
					}
				}
				if expands > 0 {
					used++
				}
				if testing.Verbose() {
					t.Logf("%s assertion %d, %d workers, batches %d: %d rounds; %s", names[k], ai+1, w, c.batch, expands, strings.SplitN(got, "\n", 2)[0])
				}
				rounds += expands
				if got != want {
					t.Errorf("%s assertion %d, %d workers, batches %d:\n%s\nwant\n%s", names[k], ai+1, w, c.batch, got, want)
				}
			}
		}
	}
	// The counters' two checks and two of the library's expand wide
	// levels (checks that find a violation early do not).
	if errs == 0 || used < 4*6 || walking == 0 {
		t.Errorf("%d checks ended in a run-time error; %d searches with 2 to 4 workers used the rounds, %d rounds walked a batch", errs, used, walking)
	}
	t.Logf("%d checks, %d rounds (%d walked a batch), %d errors", checks, rounds, walking, errs)
}

// TestFailuresRoundsRealModels: stable-failures refinement of csp models
// (each refinement assertion's sides, and its implementation against
// itself: valid, with wide levels) with 1 to 3 workers gives the same
// verdicts, statistics, counterexamples and errors, and the same states
// under the same ids in the implementation's store.
func TestFailuresRoundsRealModels(t *testing.T) {
	srcs, names := refinesChecks(t)
	checks, used := 0, 0
	// Self-refinements normalise the implementation, which some models
	// blow up: a state limit ends those alike.
	limit := 120000
	if testing.Short() {
		limit = 30000
	}
	for k, src := range srcs {
		ch, asserts := checkedRefines(t, src)
		for ai, a := range asserts {
			if a == nil {
				continue
			}
			for _, self := range []bool{false, true} {
				var want string
				var wantStates []string
				for _, w := range []int{1, 2, 3} {
					prog, err := csp.Compile(ch)
					if err != nil {
						t.Fatal(err)
					}
					impl, err := prog.Process(a.Left)
					if err != nil {
						t.Fatal(err)
					}
					right := a.Right
					if self {
						right = a.Left
					}
					spec, err := prog.Process(right)
					if err != nil {
						t.Fatal(err)
					}
					expands := 0
					t0 := time.Now()
					res, err := refine.CheckFailures(context.Background(), counted{impl, &expands}, spec, refine.StableFailures, refine.Options{Workers: w, Limits: lts.Limits{MaxStates: limit}})
					var b strings.Builder
					b.WriteString(reportLines(res, err))
					var states []string
					for id := range min(impl.NumStates(), 3000) {
						states = append(states, fmt.Sprint(impl.Describe(lts.State(id))))
					}
					got := b.String()
					if testing.Verbose() {
						t.Logf("%s assertion %d (self %v), %d workers, %v: %s", names[k], ai+1, self, w, time.Since(t0), strings.SplitN(got, "\n", 2)[0])
					}
					checks++
					if w == 1 {
						want, wantStates = got, states
						continue
					}
					if expands > 0 {
						used++
					}
					if got != want {
						t.Errorf("%s assertion %d (self %v), %d workers:\n%s\nwant\n%s", names[k], ai+1, self, w, got, want)
					}
					for id := range min(len(states), len(wantStates)) {
						if states[id] != wantStates[id] {
							t.Errorf("%s assertion %d (self %v), %d workers: state %d is\n%s\nwant\n%s", names[k], ai+1, self, w, id, states[id], wantStates[id])
							break
						}
					}
				}
			}
		}
	}
	if used < 4 {
		t.Errorf("%d searches with 2 or 3 workers used the rounds", used)
	}
	t.Logf("%d checks, %d used the rounds", checks, used)
}

// checkedRefines parses and checks src and returns it with its assertions
// (nil in place of those that are not trace refinements, so that their
// numbers stay).
func checkedRefines(t *testing.T, src string) (*lang.Checked, []*lang.AssertDecl) {
	t.Helper()
	m, err := lang.Parse("m.csp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := lang.Check(m)
	if err != nil {
		t.Fatal(err)
	}
	var asserts []*lang.AssertDecl
	for _, a := range ch.Info.Asserts {
		if a.Kind != lang.KindRefines {
			a = nil
		}
		asserts = append(asserts, a)
	}
	return ch, asserts
}
