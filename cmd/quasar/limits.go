package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/ltl"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/pipeline"
)

// modelFlags are the flags of the commands that check a model's
// assertions (check, quasi-factor): the model file, the assertion, the
// relaxation mode, symmetry, --json and the limits.
type modelFlags struct {
	file     string // "" for the demo model (check only), "-" for standard input
	assert   string
	json     bool
	mode     modeFlag
	symmetry bool
	lateArgs bool
	fair     string
	limits   limitFlags
}

func (f *modelFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.assert, "assert", "", "the assertion: its number (1 is the first) or a part of its text")
	fs.BoolVar(&f.json, "json", false, "print the result as one JSON document (schema: docs/cli.md)")
	fs.Var(&f.mode, "mode", "relaxation of quasi assertions: exact or window (default: as written)")
	fs.StringVar(&f.fair, "fair", "", "fairness of LTL assertions: none, weak, strong (strong local) or global (strong global); docs/ltl.md")
	fs.BoolVar(&f.symmetry, "symmetry", true, "factor out thread renamings in refinement checks when the model is proved symmetric (docs/cli.md)")
	fs.BoolVar(&f.lateArgs, "late-args", true, "check linearizes with each invocation's argument chosen where the thread first reads it (docs/linearizes.md)")
	f.limits.register(fs)
}

// options validates the flags and returns the pipeline's options; errors
// are usage errors. The caller tunes the GC to the memory limit.
func (f *modelFlags) options() (pipeline.Options, error) {
	limits, err := f.limits.limits()
	if _, ferr := ltl.ParseFairness(f.fair); ferr != nil && err == nil {
		err = fmt.Errorf("--fair: %v", ferr)
	}
	// Collect: each assertion's memory (limit and figure) is its own.
	return pipeline.Options{Limits: limits, Workers: f.limits.workers, Mode: f.mode.mode, Assert: f.assert, NoSymmetry: !f.symmetry, NoLateArgs: !f.lateArgs, Collect: true, Fair: f.fair}, err
}

// limitFlags are the flags shared by the commands that search: a time
// limit, a state limit, a memory budget and the number of workers. The zero
// values mean no limit and the default number of workers.
type limitFlags struct {
	timeout   time.Duration
	maxStates int
	mem       string
	workers   int
}

func (f *limitFlags) register(fs *pflag.FlagSet) {
	fs.DurationVar(&f.timeout, "timeout", 0, "stop after this wall time (e.g. 30s, 5m); the verdict is then unknown")
	fs.IntVar(&f.maxStates, "max-states", 0, "stop after storing this many states; the verdict is then unknown")
	fs.StringVar(&f.mem, "mem", "", "stop when the heap exceeds this size (e.g. 4GiB; 0: no limit); the verdict is then unknown (default: 3/4 of the machine's or container's memory)")
	fs.IntVar(&f.workers, "workers", 0, "parallel search workers (0: the default)")
}

// limits validates the flags and returns them as lts.Limits; errors are
// usage errors.
func (f *limitFlags) limits() (lts.Limits, error) {
	l := lts.Limits{Timeout: f.timeout, MaxStates: f.maxStates}
	switch {
	case f.timeout < 0:
		return l, fmt.Errorf("--timeout must not be negative, found %s", f.timeout)
	case f.maxStates < 0:
		return l, fmt.Errorf("--max-states must not be negative, found %d", f.maxStates)
	case f.workers < 0:
		return l, fmt.Errorf("--workers must not be negative, found %d", f.workers)
	}
	l.MaxBytes = budget.DefaultMaxBytes()
	if f.mem != "" {
		n, err := parseSize(f.mem)
		if err != nil {
			return l, fmt.Errorf("--mem: %v", err)
		}
		l.MaxBytes = n
	}
	return l, nil
}
