package sched

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/quasar-verify/quasar/history"

	"github.com/quasar-verify/quasar/history/stress"
)

// ReplayEnv is the environment variable read by Check when the
// -sched.replay flag is not set.
const ReplayEnv = "QUASAR_SCHED_REPLAY"

var replayFlag = flag.String("sched.replay", "", "NAME=SCHEDULE: the sched.Check named NAME (as printed with a failure) replays SCHEDULE instead of exploring; other checks run as usual")

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
	s.stats.Interleavings, s.stats.Histories = len(s.seen), len(s.verdicts)
	res.Stats = s.stats
	res.First = res.Failure
	return res, nil
}

// checkCalls counts the Check calls of each test, to name them.
var checkCalls = struct {
	sync.Mutex
	n map[testing.TB]int
}{n: map[testing.TB]int{}}

// checkName names a Check call: the test's name (t.Name(), subtests
// included) for its first Check, with " #2", " #3", ... for later ones (a
// test name has no spaces: package testing rewrites them to '_').
func checkName(t testing.TB) string {
	checkCalls.Lock()
	defer checkCalls.Unlock()
	checkCalls.n[t]++
	if n := checkCalls.n[t]; n > 1 {
		return fmt.Sprintf("%s #%d", t.Name(), n)
	}
	return t.Name()
}

// replayFor returns the schedule that the -sched.replay flag (or
// QUASAR_SCHED_REPLAY) gives the check named name: the value is
// NAME=SCHEDULE, split at its last '=' (a schedule has none).
func replayFor(name string) (schedule string, ok bool, err error) {
	v := *replayFlag
	if v == "" {
		v = os.Getenv(ReplayEnv)
	}
	if v == "" {
		return "", false, nil
	}
	i := strings.LastIndexByte(v, '=')
	if i < 0 {
		return "", false, fmt.Errorf("sched: replay %q names no check: use NAME=SCHEDULE, as printed with the failure", v)
	}
	if v[:i] != name {
		return "", false, nil
	}
	return v[i+1:], true, nil
}

// Check explores test under cfg and fails t with the failure's schedule,
// test, history and explanation, and the command that replays it. It logs
// the statistics and returns the result (nil after a configuration
// error).
//
// Each Check call is named by its test (t.Name()) and, from the second
// call in the same test on, " #2", " #3", ...; when the -sched.replay flag
// (or the QUASAR_SCHED_REPLAY variable) is NAME=SCHEDULE, the check named
// NAME replays SCHEDULE instead of exploring, and every other check runs
// as usual. The names follow the order of the Check calls within a test,
// so a test whose Check calls depend on earlier outcomes must keep that
// order for a replay to reach the same check.
func Check(t testing.TB, cfg Config, test stress.Test) *Result {
	t.Helper()
	name := checkName(t)
	sch, replay, err := replayFor(name)
	if err != nil {
		t.Errorf("%v", err)
		return nil
	}
	var res *Result
	if replay {
		res, err = Replay(cfg, test, sch)
	} else {
		res, err = Explore(cfg, test)
	}
	if err != nil {
		t.Errorf("sched: check %s: %v", name, err)
		return nil
	}
	if replay {
		t.Logf("sched: check %s replayed %q (%d steps, %d preemptions)", name, sch, res.Stats.Steps, res.Stats.MaxPreemptions)
	} else {
		t.Logf("sched: check %s: %s", name, res.Stats)
	}
	if f := res.Failure; f != nil {
		t.Errorf("%sreplay: %s", f.Report(), ReplayCommand(name, f.Schedule))
	}
	return res
}

// ReplayCommand is the go test command line that makes the check named
// name (see Check) replay s, in the check's package directory.
func ReplayCommand(name string, s Schedule) string {
	test, _, _ := strings.Cut(name, " #")
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return fmt.Sprintf("go test -run '%s' -sched.replay='%s=%s'   # or %s='%s=%s'", strings.Join(parts, "/"), name, s, ReplayEnv, name, s)
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
	fmt.Fprintf(&sb, "schedule: %q (sched.Replay re-runs it; see Check for -sched.replay)\n", f.Schedule.String())
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
