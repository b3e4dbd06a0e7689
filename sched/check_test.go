package sched

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/history/stress"
)

// fakeTB records what Check reports, under a chosen test name.
type fakeTB struct {
	testing.TB
	name string
	errs []string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Name() string                   { return f.name }
func (f *fakeTB) Logf(string, ...any)            {}
func (f *fakeTB) Errorf(format string, a ...any) { f.errs = append(f.errs, fmt.Sprintf(format, a...)) }

var replayArg = regexp.MustCompile(`-sched.replay='([^']*)'`)

// TestReplaySelectsCheck: the replay value NAME=SCHEDULE makes only the
// Check named NAME replay (one execution); other tests, and later Checks
// of the same test, explore as usual. The name and schedule are taken
// from the command line Check prints with the failure.
func TestReplaySelectsCheck(t *testing.T) {
	cfg := Config{New: func() stress.Object { return &counter{} }, Bound: 1}
	lost := stress.Test{{{F: "inc"}}, {{F: "inc"}}}
	ok := stress.Test{{{F: "get"}}, {{F: "get"}}}

	first := &fakeTB{TB: t, name: "TestA/sub"}
	Check(first, cfg, ok) // TestA/sub
	res := Check(first, cfg, lost)
	if res == nil || res.Failure == nil || len(first.errs) != 1 {
		t.Fatalf("lost update not reported: %v", first.errs)
	}
	m := replayArg.FindStringSubmatch(first.errs[0])
	if m == nil || !strings.Contains(first.errs[0], "go test -run '^TestA$/^sub$' ") {
		t.Fatalf("no replay command in\n%s", first.errs[0])
	}
	if want := "TestA/sub #2=" + res.Failure.Schedule.String(); m[1] != want {
		t.Fatalf("replay value %q, want %q", m[1], want)
	}

	t.Setenv(ReplayEnv, m[1])
	again := &fakeTB{TB: t, name: "TestA/sub"}
	if r := Check(again, cfg, ok); r == nil || r.Stats.Executions < 2 || r.Failure != nil {
		t.Fatalf("TestA/sub's first check was replayed: %+v", r)
	}
	r := Check(again, cfg, lost)
	if r == nil || r.Stats.Executions != 1 || r.Failure == nil || r.Failure.Kind != "not linearizable" {
		t.Fatalf("TestA/sub #2 not replayed: %+v", r)
	}
	other := &fakeTB{TB: t, name: "TestB"}
	if r := Check(other, cfg, lost); r == nil || r.Stats.Executions < 2 {
		t.Fatalf("TestB was replayed: %+v", r)
	}

	t.Setenv(ReplayEnv, res.Failure.Schedule.String()) // no name
	bare := &fakeTB{TB: t, name: "TestA/sub"}
	if r := Check(bare, cfg, ok); r != nil || len(bare.errs) != 1 || !strings.Contains(bare.errs[0], "NAME=SCHEDULE") {
		t.Fatalf("a schedule without a name: %+v %v", r, bare.errs)
	}
}
