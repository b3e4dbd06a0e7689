package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/models"
	"github.com/quasar-verify/quasar/pipeline"
)

// checkOptions are the inputs of "quasar check"; the zero value checks the
// demo model with no limits.
type checkOptions struct {
	modelFlags
	cpuprofile string
	memprofile string
	compact    compactFlags
}

// compactFlags select a probabilistic visited set.
type compactFlags struct {
	hashCompact bool
	bitstate    string
	hashes      int
	fs          *pflag.FlagSet // to tell a flag given empty from one not given
}

func (f *compactFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.BoolVar(&f.hashCompact, "hash-compact", false, "store a 64-bit fingerprint per state instead of the state (SPIN's -DHC): less memory, a valid verdict is probabilistic (docs/verdicts.md)")
	fs.StringVar(&f.bitstate, "bitstate", "", "store k bits per state in a bit array of this size (e.g. 512MiB; SPIN's -DBITSTATE): a valid verdict is probabilistic (docs/verdicts.md)")
	fs.IntVar(&f.hashes, "bitstate-hashes", 3, "bits set per state with --bitstate (1 to 32)")
}

// compaction validates the flags; errors are usage errors. A bit array
// larger than maxBytes (the --mem limit; 0: the machine's memory) is
// refused: allocating it would end the process with the Go runtime's
// fatal out-of-memory error, which no recover catches.
func (f *compactFlags) compaction(maxBytes int64) (csp.Compaction, error) {
	given := func(name string) bool { return f.fs != nil && f.fs.Changed(name) }
	switch {
	case given("bitstate") && f.bitstate == "":
		return csp.Compaction{}, fmt.Errorf("--bitstate needs a size (e.g. 64MiB)")
	case given("bitstate-hashes") && f.bitstate == "":
		return csp.Compaction{}, fmt.Errorf("--bitstate-hashes applies to --bitstate only")
	case f.hashCompact && f.bitstate != "":
		return csp.Compaction{}, fmt.Errorf("--hash-compact and --bitstate exclude each other")
	case f.hashCompact:
		return csp.Compaction{Mode: csp.HashCompact}, nil
	case f.bitstate != "":
		n, err := parseSize(f.bitstate)
		if err != nil {
			return csp.Compaction{}, fmt.Errorf("--bitstate: %v", err)
		}
		if n < 8 {
			return csp.Compaction{}, fmt.Errorf("--bitstate: the array must have at least 8 bytes, found %d", n)
		}
		limit, what := maxBytes, "the memory limit of the search (--mem; by default 3/4 of the machine's memory)"
		if limit <= 0 {
			limit, what = int64(float64(budget.DefaultMaxBytes())/budget.DefaultShare), "the machine's memory"
		}
		if limit > 0 && n > limit {
			return csp.Compaction{}, fmt.Errorf("--bitstate: the array (%d bytes) exceeds %s, %d bytes", n, what, limit)
		}
		if f.hashes < 1 || f.hashes > 32 {
			return csp.Compaction{}, fmt.Errorf("--bitstate-hashes must be 1 to 32, found %d", f.hashes)
		}
		return csp.Compaction{Mode: csp.Bitstate, BitstateBytes: n, Hashes: f.hashes}, nil
	}
	return csp.Compaction{}, nil
}

// checkHelp is the help of "quasar check".
const checkHelp = `Check the assertions of a model

Check runs every assertion of a model (or the one chosen with --assert) and
prints one line per assertion: the verdict, the assertion, and the states,
transitions, time and memory of the search. A violated assertion is followed
by its counterexample, one step per line: the event (tau for an internal
step), the process that performed it, and the variables it changed.

With no FILE, check runs the library's demo model (quasar models show demo).
FILE "-" reads the model from standard input.

--timeout bounds the whole run: the assertion being checked when it passes
ends unknown ("time limit"), the later ones unknown ("cancelled"). Ctrl-C
stops the run the same way and prints the results so far.

Exit code 0: every assertion holds; 1: some assertion is violated; 2: bad
usage, a model with errors, or a run-time error of the model met while
checking; 3: a limit was hit or the run was interrupted, and no assertion is
violated (the verdict is unknown); 4: internal error.

--hash-compact and --bitstate SIZE trade certainty for memory on deadlockfree,
nonterminating, reaches (and, with --hash-compact, deterministic) assertions:
the search stores a fingerprint or a few bits per state, and may take a new
state for a visited one. A verdict that rests on every state having been
visited is then printed "valid (probabilistic)" (or "invalid (probabilistic)"
for a reaches without a witness) with the estimated probability that some
state was missed; the exit code is the verdict's as usual. A counterexample or
witness is exact: it is rebuilt and re-validated on the full state space.
These searches run on one worker. Other assertions end with an error.`

func newCheckCmd(st *streams) *cobra.Command {
	var opts checkOptions
	cmd := command("check [FILE]", checkHelp, rangeArgs(0, 1), func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			opts.file = args[0]
		}
		return runCheck(cmd.Context(), cmd, st, opts)
	})
	fs := cmd.Flags()
	opts.modelFlags.register(fs)
	fs.StringVar(&opts.cpuprofile, "cpuprofile", "", "write a CPU profile to this file")
	fs.StringVar(&opts.memprofile, "memprofile", "", "write a heap profile to this file")
	opts.compact.register(fs)
	return cmd
}

func runCheck(ctx context.Context, cmd *cobra.Command, st *streams, opts checkOptions) (err error) {
	ropt, err := opts.options()
	if err != nil {
		return &usageError{cmd, err}
	}
	if ropt.Compact, err = opts.compact.compaction(ropt.Limits.MaxBytes); err != nil {
		return &usageError{cmd, err}
	}
	limits := ropt.Limits
	defer budget.TuneGC(limits.MaxBytes)()
	name, src, err := readModel(opts.file, st.stdin)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	stopProfiles, err := startProfiles(opts.cpuprofile, opts.memprofile)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	defer func() {
		if perr := stopProfiles(); perr != nil && err == nil {
			err = &exitError{exitBadInput, perr}
		}
	}()

	// --timeout bounds the whole run, not each assertion: a CI job wants
	// the command to end in time. The search that is running when the
	// deadline passes ends with "time limit", the ones after it are
	// cancelled; all are unknown.
	interrupted := ctx // cancelled by Ctrl-C only
	if limits.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = withClockDeadline(ctx, time.Now().Add(limits.Timeout))
		defer cancel()
	}
	prog := startProgress(st.stderr)
	if prog != nil {
		ropt.Progress = prog.update
	}
	rep, err := pipeline.Source(ctx, name, src, ropt)
	prog.finish()
	if err != nil {
		return &exitError{exitBadInput, &sourceError{err, map[string][]byte{name: src}}}
	}

	out := cmd.OutOrStdout()
	if opts.json {
		if err := writeJSON(out, rep); err != nil {
			return err
		}
	} else {
		writeReport(out, rep, map[string][]byte{name: src})
	}
	if len(rep.Assertions) == 0 {
		fmt.Fprintf(st.stderr, "quasar: %s has no assertions\n", name)
	}
	if opts.mode.mode != nil && !opts.json {
		fmt.Fprintf(st.stderr, "note: quasi refinements were checked in %s mode (--mode)\n", opts.mode.mode)
	}
	if opts.file == "" && !opts.json {
		demoNote(st.stderr, src, rep)
	}
	if interrupted.Err() != nil {
		fmt.Fprintln(st.stderr, "quasar: interrupted; the results so far are above")
	}
	if code := reportCode(rep); code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

// readModel returns the model to check: the file, standard input ("-"), or
// the demo model of the library ("").
func readModel(file string, stdin io.Reader) (name string, src []byte, err error) {
	switch file {
	case "":
		name, src = models.Demo()
		return name, src, nil
	case "-":
		src, err = io.ReadAll(stdin)
		return "<stdin>", src, err
	}
	src, err = os.ReadFile(file)
	return file, src, err
}

// startProfiles starts the CPU profile and returns a function that stops it
// and writes the heap profile; each is skipped when its file name is empty.
func startProfiles(cpu, mem string) (stop func() error, err error) {
	var cpuFile *os.File
	if cpu != "" {
		if cpuFile, err = os.Create(cpu); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			cpuFile.Close()
			return nil, err
		}
	}
	return func() error {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			if err := cpuFile.Close(); err != nil {
				return err
			}
		}
		if mem == "" {
			return nil
		}
		f, err := os.Create(mem)
		if err != nil {
			return err
		}
		runtime.GC() // up-to-date statistics
		if err := pprof.WriteHeapProfile(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}, nil
}

// demoNote tells a first-time user what they just ran, and that the demo's
// violation is intended: its verdicts are compared with the ones written in
// the model (// expect: comments).
func demoNote(w io.Writer, src []byte, rep *pipeline.Report) {
	fmt.Fprintln(w, "note: this is the built-in demo model; print it with: quasar models get demo")
	want := map[int]lts.Verdict{}
	for _, e := range models.Expectations(src) {
		want[e.Line] = e.Verdict
	}
	for _, a := range rep.Assertions {
		if w, ok := want[a.Line]; !ok || w != a.Verdict {
			return
		}
	}
	if reportCode(rep) == exitInvalid {
		fmt.Fprintln(w, "note: every verdict is the one the demo expects: one assertion is violated on purpose, hence exit status 1")
	}
}

// clockDeadline is a context with a deadline whose Err reads the clock. A
// plain context's deadline takes effect when its timer fires, which on a
// loaded machine can be well after the deadline: the next assertion would
// then start (and perhaps report a violation) after --timeout has passed.
type clockDeadline struct {
	context.Context
	at time.Time
}

func withClockDeadline(parent context.Context, at time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithDeadline(parent, at)
	return clockDeadline{ctx, at}, cancel
}

func (c clockDeadline) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.at) {
		return context.DeadlineExceeded
	}
	return nil
}
