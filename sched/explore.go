package sched

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/stress"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// Strategy selects how schedules are explored.
type Strategy uint8

const (
	// DFS explores every schedule with iterative preemption bounding.
	DFS Strategy = iota
	// PCT runs randomised priority schedules (Config.Depth, Config.Seed).
	PCT
)

// Unbounded as Config.Bound explores schedules with any number of
// preemptions.
const Unbounded = -1

// Config describes an exploration. Zero fields get the defaults noted.
type Config struct {
	// New returns a fresh object; required. It is called outside the
	// controlled run (its marked steps are not scheduled).
	New func() stress.Object
	// Model is the sequential specification; nil derives it from serial
	// runs of the test (Line-Up's phase 1, stress.SerialModel).
	Model history.Model
	// Quasi checks quasi-linearizability with these classes (needs Model).
	Quasi    *relax.Config
	Strategy Strategy
	// Bound is DFS's preemption bound: bounds 0, 1, ..., Bound are
	// explored in turn (each schedule once). Unbounded for no bound.
	Bound int
	// SleepSets prunes DFS with sleep sets. They are combined only with
	// Bound == Unbounded (see the package doc); a bounded DFS with sleep
	// sets is an error.
	SleepSets bool
	// Depth is PCT's bug depth d (default 3); Seed makes PCT reproducible.
	Depth int
	Seed  uint64
	// Executions: PCT's number of executions (default 1000); for DFS a cap
	// (default 1,000,000) after which the search stops incomplete.
	Executions int
	// MaxSteps bounds one execution (default 10,000): longer ones are
	// reported as a livelock.
	MaxSteps int
	// NoMinimize reports the first failure as found.
	NoMinimize bool
	// Limits bound each history check (an Unknown verdict is counted in
	// Stats.Unknown, not reported as a failure).
	Limits lts.Limits
	// MaxSerial bounds the serial orders of a derived spec (0: 100000).
	MaxSerial int
}

// Stats describe an exploration.
type Stats struct {
	Executions    int // executions started (complete, pruned or failed)
	Complete      int // executions that ran to the end
	Pruned        int // executions cut by sleep sets
	Interleavings int // distinct schedules among the complete executions
	Histories     int // distinct histories checked
	Unknown       int // checks that hit a limit
	// Bound is the highest preemption bound explored completely (DFS;
	// Unbounded for an unbounded DFS, -1 also before bound 0 completed).
	Bound int
	// Exhausted: every schedule of the test was explored (none was cut
	// by the bound or the execution cap).
	Exhausted      bool
	MaxPreemptions int // in any execution explored
	Steps          int // total scheduled steps
	Time           time.Duration
	CheckTime      time.Duration
}

// Failure is a violation, with the schedule that replays it.
type Failure struct {
	// Kind: "not linearizable", "not quasi-linearizable", "deadlock",
	// "panic", "livelock", "nondeterministic".
	Kind        string
	Schedule    Schedule
	Test        stress.Test // the (reduced) test the schedule runs
	Preemptions int
	History     *history.History
	Check       *history.Result // nil unless a check ran
	Stuck       []int           // deadlock: the threads blocked forever
	Message     string
}

// Result is the outcome of an exploration.
type Result struct {
	// Failure is nil when no violation was found (see Stats.Bound and
	// Stats.Exhausted for what that covers).
	Failure *Failure
	// Stats of the search up to its end or its first failure.
	Stats Stats
	// First is the failure as first found, before minimisation.
	First *Failure
	// MinimizeExecutions counts the executions of the minimisation.
	MinimizeExecutions int
}

func (c *Config) check(test stress.Test) error {
	switch {
	case c.New == nil:
		return errors.New("sched: Config.New is required")
	case len(test) == 0:
		return errors.New("sched: the test has no threads")
	case len(test) > 64:
		return fmt.Errorf("sched: the test has %d threads, at most 64 are supported", len(test))
	case c.Quasi != nil && c.Model == nil:
		return errors.New("sched: a quasi check needs a Model")
	case c.SleepSets && c.Strategy == DFS && c.Bound != Unbounded:
		return errors.New("sched: sleep sets with a preemption bound can miss bugs within the bound; use Bound: Unbounded with SleepSets, or no SleepSets")
	case c.Bound < Unbounded:
		return fmt.Errorf("sched: bad preemption bound %d", c.Bound)
	case c.Strategy > PCT:
		return fmt.Errorf("sched: unknown strategy %d", c.Strategy)
	}
	for g, calls := range test {
		for _, call := range calls {
			if call.F == "" {
				return fmt.Errorf("sched: thread %d has a call without a name", g)
			}
		}
	}
	return nil
}

func (c *Config) defaults() {
	if c.Depth <= 0 {
		c.Depth = 3
	}
	if c.Executions <= 0 {
		c.Executions = 1000
		if c.Strategy == DFS {
			c.Executions = 1_000_000
		}
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = 10_000
	}
}

// Explore runs the test (a list of calls per thread, each thread a
// goroutine, on a fresh object per execution) under the strategy of cfg
// and checks every complete execution's history. On a violation it
// minimises the failure (fewest preemptions, then fewest calls), replays
// it to re-check, and returns it in Result.Failure.
func Explore(cfg Config, test stress.Test) (*Result, error) {
	if err := cfg.check(test); err != nil {
		return nil, err
	}
	cfg.defaults()
	s, err := newSearcher(&cfg, test)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	if s.failure != nil {
		res.Failure, res.First = s.failure, s.failure
		return res, nil
	}
	start := time.Now()
	var f *Failure
	if cfg.Strategy == PCT {
		f = s.pctSearch()
	} else {
		f = s.dfsSearch(cfg.Bound)
	}
	s.stats.Time = time.Since(start)
	s.stats.Interleavings = len(s.seen)
	s.stats.Histories = len(s.verdicts)
	res.Stats, res.Failure, res.First = s.stats, f, f
	if f != nil && !cfg.NoMinimize {
		res.Failure, res.MinimizeExecutions = minimize(&cfg, test, f)
	}
	return res, nil
}

// searcher explores one test.
type searcher struct {
	cfg      *Config
	test     stress.Test
	model    history.Model
	opts     history.Options
	verdicts map[string]*history.Result
	seen     map[uint64]struct{}
	stats    Stats
	limit    int
	failure  *Failure // set by newSearcher for a nondeterministic serial spec
	// stepless: some execution had an operation without a marked step.
	// The first execution of a DFS has no sleeping thread, so this is
	// known before sleep sets prune anything (see dfs.wake).
	stepless bool
}

func newSearcher(cfg *Config, test stress.Test) (*searcher, error) {
	s := &searcher{cfg: cfg, test: test, model: cfg.Model, limit: cfg.Executions,
		opts:     history.Options{Quasi: cfg.Quasi, Limits: cfg.Limits, Workers: 1},
		verdicts: map[string]*history.Result{}, seen: map[uint64]struct{}{}}
	s.stats.Bound = -1
	if s.model == nil {
		m, err := stress.SerialModel(cfg.New, test, cfg.MaxSerial)
		var nd *stress.NondeterminismError
		if errors.As(err, &nd) {
			s.failure = &Failure{Kind: "nondeterministic", Test: test, Message: nd.Error(), Schedule: Schedule{Choices: []int{}}}
			return s, nil
		}
		if err != nil {
			return nil, err
		}
		s.model = m
	}
	return s, nil
}

// one runs an execution under ch and returns its failure, if any.
func (s *searcher) one(ch chooser) *Failure {
	out := execute(s.cfg.New, s.test, ch, s.cfg.MaxSteps)
	s.stats.Executions++
	s.stats.Steps += len(out.choices)
	s.stats.MaxPreemptions = max(s.stats.MaxPreemptions, out.preempts)
	s.stepless = s.stepless || out.stepless
	f := s.judge(out)
	if f != nil {
		f.Schedule = Schedule{Choices: trim(out.choices, func(i int) uint64 { return out.enabled[i] })}
	}
	return f
}

// judge classifies an outcome and checks a complete history.
func (s *searcher) judge(out *outcome) *Failure {
	f := &Failure{Test: s.test, Preemptions: out.preempts, History: out.hist, Stuck: out.stuck, Message: out.msg}
	switch out.kind {
	case oPruned:
		s.stats.Pruned++
		return nil
	case oPanic:
		f.Kind = "panic"
		return f
	case oLivelock:
		f.Kind = "livelock"
		return f
	case oDiverged:
		f.Kind = "nondeterministic"
		return f
	case oDeadlock:
		f.Kind = "deadlock"
		var ops []string
		for _, op := range out.hist.Ops {
			if op.Status == history.Info {
				ops = append(ops, op.String())
			}
		}
		f.Message = fmt.Sprintf("threads %v are blocked forever: stuck operations %s", out.stuck, strings.Join(ops, ", "))
		f.Check, _ = s.checkHistory(out.hist)
		return f
	}
	s.stats.Complete++
	s.seen[hashChoices(out.choices)] = struct{}{}
	res, err := s.checkHistory(out.hist)
	if err != nil {
		f.Kind, f.Message = "bad history", err.Error()
		return f
	}
	switch res.Verdict {
	case lts.Invalid:
		f.Kind, f.Check, f.Message = "not linearizable", res, res.Reason
		if s.cfg.Quasi != nil {
			f.Kind = "not quasi-linearizable"
		}
		return f
	case lts.Unknown:
		s.stats.Unknown++
	}
	return nil
}

func (s *searcher) checkHistory(h *history.History) (*history.Result, error) {
	key := historyKey(h)
	if r, ok := s.verdicts[key]; ok {
		return r, nil
	}
	start := time.Now()
	r, err := history.Check(context.Background(), h, s.model, s.opts)
	s.stats.CheckTime += time.Since(start)
	if err != nil {
		return nil, err
	}
	s.verdicts[key] = r
	return r, nil
}

// historyKey identifies a history up to the values of its logical times:
// the operations, their results and the order of all calls and returns.
func historyKey(h *history.History) string {
	type ev struct {
		t  int64
		id int
		c  byte
	}
	evs := make([]ev, 0, 2*len(h.Ops))
	var sb strings.Builder
	for _, op := range h.Ops {
		fmt.Fprintf(&sb, "%d %s %v %v %d;", op.Process, op.F, op.Input, op.Output, op.Status)
		evs = append(evs, ev{op.Call, op.ID, 'c'}, ev{op.Return, op.ID, 'r'})
	}
	// Times are distinct (one logical clock), so sorting is a total order.
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].t < evs[j-1].t; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
	for _, e := range evs {
		fmt.Fprintf(&sb, "%c%d", e.c, e.id)
	}
	return sb.String()
}

func hashChoices(cs []int) uint64 {
	h := fnv.New64a()
	b := make([]byte, len(cs))
	for i, c := range cs {
		b[i] = byte(c)
	}
	h.Write(b)
	return h.Sum64()
}

// dfsSearch explores bounds 0..bound in turn; each iteration extends the
// prefixes whose last choice was a preemption deferred by the previous one,
// so every schedule is executed once overall.
func (s *searcher) dfsSearch(bound int) *Failure {
	bounded := bound != Unbounded
	items := []item{{}}
	for b := 0; ; b++ {
		var next []item
		for _, it := range items {
			d := newDFS(it, bounded, s.cfg.SleepSets)
			d.stepless = &s.stepless
			for {
				if f := s.one(d); f != nil {
					return f
				}
				if s.stats.Executions >= s.limit {
					return nil
				}
				if !d.backtrack() {
					break
				}
			}
			next = append(next, d.deferred...)
		}
		if !bounded {
			s.stats.Bound, s.stats.Exhausted = Unbounded, true
			return nil
		}
		s.stats.Bound = b
		if len(next) == 0 {
			s.stats.Exhausted = true
			return nil
		}
		if b == bound {
			return nil
		}
		items = next
	}
}

// pctSearch runs cfg.Executions PCT executions, execution i seeded by
// (Seed, i); the step count k is the mean execution length so far.
func (s *searcher) pctSearch() *Failure {
	if f := s.one(&replayer{}); f != nil {
		return f
	}
	for i := 1; i < s.limit; i++ {
		k := max(s.stats.Steps/max(s.stats.Executions, 1), 1)
		rng := rand.New(rand.NewPCG(s.cfg.Seed, uint64(i)))
		if f := s.one(newPCT(rng, len(s.test), s.cfg.Depth, k)); f != nil {
			return f
		}
	}
	return nil
}
