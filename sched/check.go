package sched

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/history"

	"github.com/quasar-verify/quasar/history/stress"
)

// ReplayEnv is the environment variable read by Check when the
// -sched.replay flag is not set.
const ReplayEnv = "QUASAR_SCHED_REPLAY"

var replayFlag = flag.String("sched.replay", "", "sched.Check replays this schedule (as printed in a failure) instead of exploring")

// Replay runs test once under the schedule text (as printed in a Failure;
// its "@" part selects a sub-test) and checks the history. A schedule that
// does not fit the test is an error.
func Replay(cfg Config, test stress.Test, schedule string) (*Result, error) {
	sch, err := ParseSchedule(schedule)
	if err != nil {
		return nil, err
	}
	sub, err := sch.apply(test)
	if err != nil {
		return nil, err
	}
	if err := cfg.check(sub); err != nil {
		return nil, err
	}
	cfg.defaults()
	s, err := newSearcher(&cfg, sub)
	if err != nil {
		return nil, err
	}
	res := &Result{Failure: s.failure}
	if s.failure == nil {
		res.Failure = s.one(&replayer{choices: sch.Choices})
		if res.Failure != nil && res.Failure.Kind == "nondeterministic" {
			return nil, fmt.Errorf("sched: replay of %q: %s", schedule, res.Failure.Message)
		}
	}
	if res.Failure != nil {
		res.Failure.Schedule.Keep = sch.Keep
	}
	res.Stats = s.stats
	res.First = res.Failure
	return res, nil
}

// Check explores test under cfg (or, if the -sched.replay flag or the
// QUASAR_SCHED_REPLAY variable is set, replays that schedule) and fails t
// with the failure's schedule, test, history and explanation. It logs the
// statistics and returns the result (nil after a configuration error).
func Check(t testing.TB, cfg Config, test stress.Test) *Result {
	t.Helper()
	sch := *replayFlag
	if sch == "" {
		sch = os.Getenv(ReplayEnv)
	}
	var res *Result
	var err error
	if sch != "" {
		res, err = Replay(cfg, test, sch)
	} else {
		res, err = Explore(cfg, test)
	}
	if err != nil {
		t.Errorf("%v", err)
		return nil
	}
	t.Logf("sched: %s", res.Stats)
	if res.Failure != nil {
		t.Errorf("%s", res.Failure.Report())
	}
	return res
}

// String renders the statistics on one line.
func (s Stats) String() string {
	bound := fmt.Sprint(s.Bound)
	if s.Bound == Unbounded {
		bound = "unbounded"
	}
	return fmt.Sprintf("%d executions (%d complete, %d pruned by sleep sets), %d distinct interleavings, %d distinct histories, preemption bound %s completed (exhausted: %v), max preemptions %d, %d steps, %v (checking %v)",
		s.Executions, s.Complete, s.Pruned, s.Interleavings, s.Histories, bound, s.Exhausted, s.MaxPreemptions, s.Steps, s.Time.Round(1e5), s.CheckTime.Round(1e5))
}

// Report renders the failure: kind, schedule (with how to replay it), the
// test, the history in logical time and the checker's explanation.
func (f *Failure) Report() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "sched: %s with %d preemption(s)\n", f.Kind, f.Preemptions)
	fmt.Fprintf(&sb, "schedule: %q (replay: go test -run <this test> -sched.replay='%s', or %s='%s')\n", f.Schedule.String(), f.Schedule, ReplayEnv, f.Schedule)
	fmt.Fprintf(&sb, "test:\n%s", f.Test)
	if f.History != nil {
		sb.WriteString("history (logical time [call, return]):\n")
		for _, op := range f.History.Ops {
			ret := "stuck"
			if op.Status != history.Info {
				ret = fmt.Sprint(op.Return)
			}
			fmt.Fprintf(&sb, "  [%d, %s] %s\n", op.Call, ret, op.String())
		}
	}
	if f.Message != "" {
		fmt.Fprintf(&sb, "explanation: %s\n", f.Message)
	}
	if c := f.Check; c != nil && c.Failure != nil {
		var longest []string
		for _, id := range c.Failure.Longest {
			longest = append(longest, f.History.Ops[id].String())
		}
		fmt.Fprintf(&sb, "longest linearizable prefix: [%s]\n", strings.Join(longest, "; "))
		if b := c.Failure.Blocked; b >= 0 && b < len(f.History.Ops) {
			fmt.Fprintf(&sb, "cannot then be placed: %s\n", f.History.Ops[b].String())
		}
	}
	return sb.String()
}

// Error makes a Failure an error.
func (f *Failure) Error() string { return f.Report() }
