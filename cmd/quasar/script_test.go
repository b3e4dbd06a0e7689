package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script/*.txtar")

// TestMain lets the test binary act as the quasar command: testscript runs
// "exec quasar ..." lines against the real Main, in a fresh work directory.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"quasar": func() { os.Exit(Main()) }})
}

// TestScript runs testdata/script/*.txtar: each script runs quasar commands
// and compares their stdout, stderr and exit code with what it expects.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"status": cmdStatus,
			"sleep":  cmdSleep,
		},
	})
}

// cmdStatus is "status CODE[,CODE...] [-within=DURATION] PROGRAM ARGS...":
// it runs the program like exec and fails unless it exits with one of the
// CODEs (exec and ! exec only tell zero from non-zero, and quasar's exit
// codes are part of its interface), and, with -within, unless it ends
// within DURATION of wall time.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	usage := "usage: status CODE[,CODE...] [-within=DURATION] PROGRAM [ARGS...]"
	if neg || len(args) < 2 {
		ts.Fatalf("%s", usage)
	}
	want := map[int]bool{}
	for _, c := range strings.Split(args[0], ",") {
		n, err := strconv.Atoi(c)
		if err != nil {
			ts.Fatalf("status: bad exit code %q", c)
		}
		want[n] = true
	}
	var err error
	args = args[1:]
	var within time.Duration
	if d, ok := strings.CutPrefix(args[0], "-within="); ok {
		if within, err = time.ParseDuration(d); err != nil || len(args) < 2 {
			ts.Fatalf("%s", usage)
		}
		args = args[1:]
	}
	start := time.Now()
	got := 0
	if err := ts.Exec(args[0], args[1:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("status: %v", err)
		}
		got = ee.ExitCode()
	}
	took := time.Since(start)
	if !want[got] {
		ts.Fatalf("%s exited with code %d, want one of %v", args[0], got, keys(want))
	}
	if within > 0 && took > within {
		ts.Fatalf("%s took %s, want at most %s", args[0], took.Round(time.Millisecond), within)
	}
}

// cmdSleep is "sleep DURATION".
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil {
		ts.Fatalf("sleep: %v", err)
	}
	time.Sleep(d)
}

func keys(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
