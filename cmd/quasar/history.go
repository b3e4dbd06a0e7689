package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/read"
	"github.com/quasar-verify/quasar/history/view"
	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/pipeline"
	"github.com/quasar-verify/quasar/relax"
)

func newHistoryCmd(st *streams) *cobra.Command {
	return group(command("history", historyHelp, nil, nil), newHistoryCheckCmd(st), newHistoryFactorCmd(st))
}

// historyHelp is the help of "quasar history".
const historyHelp = `Check histories recorded from real runs

Check histories recorded from runs of real code: JSON Lines, EDN (Knossos,
Porcupine) or Jepsen logs. See docs/history.md for the formats.`

// historyCheckOptions are the inputs of "quasar history check".
type historyCheckOptions struct {
	file     string // "-" is standard input
	json     bool
	limits   limitFlags
	model    string // a built-in model, or a model file (.csp)
	process  string // with a model file: the specification process
	quasi    string // quasi factor, as in refines<quasi ...>; "" checks linearizability
	complete bool
	localize bool
	html     string // write the HTML page here
	init     string // register models: the initial value (JSON)
	knossos  bool   // register models: Knossos's conventions
	total    bool   // Jepsen's total-queue check instead of linearizability
	indep    bool   // values are jepsen.independent [key value] tuples
}

// registerModelFlags adds the flags that choose the specification.
func (o *historyCheckOptions) registerModelFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.model, "model", "", "the sequential model: queue, unordered-queue, stack, pqueue, set, register, cas, kv, mutex, multi-register, or a model file FILE.csp")
	fs.StringVar(&o.process, "process", "", "with --model FILE.csp: the specification process (default: the right side of the file's first refinement assertion)")
	fs.StringVar(&o.init, "init", "", "register models: the initial value, as JSON (default null); Knossos's (cas-register 0) is --init 0")
	fs.BoolVar(&o.knossos, "knossos", false, "register models: Knossos's conventions (an ok read of nil may have read any value)")
}

// historyCheckHelp is the help of "quasar history check".
const historyCheckHelp = `Check that a history is linearizable

Check that a history is linearizable with respect to a sequential model.

Models: queue, unordered-queue (a multiset, Knossos's unordered-queue: Jepsen's
queue checker), stack, pqueue (priority queue), set, register, cas (a register
with compare-and-set, as in Jepsen's etcd tests), kv (a key-value store,
checked key by key), mutex and multi-register. Without --model the model is chosen from the operation
names when they leave no doubt (enq/deq: queue, push/pop: stack,
read/write/cas: cas, get/put/append: kv).

The specification may also be a process of a model file (--model spec.csp
--process Queue): an operation f(args) -> r is its event f.args.r, and a
dequeue that returned null is deq.0, as in the library's models.

With --quasi, the history is checked for quasi-linearizability (docs/verdicts.md
§3): the quasi factor is written as in an assertion, e.g. --quasi 1 (every
operation may be displaced by one) or --quasi '1 on {deq} barrier {deq.0}'.

With --total-queue, the history is checked as Jepsen's total-queue checker
does: every acknowledged enqueue is dequeued and nothing is dequeued that was
never enqueued (values are counted, orders ignored; for histories that drain
the queue).

Exit code 0: linearizable; 1: not linearizable; 2: bad input; 3: a limit was
hit (unknown).`

func newHistoryCheckCmd(st *streams) *cobra.Command {
	var opts historyCheckOptions
	cmd := fileCommand("check FILE", historyCheckHelp, &opts.file, func(cmd *cobra.Command) error {
		return runHistoryCheck(cmd.Context(), cmd, st, opts)
	})
	fs := cmd.Flags()
	opts.registerModelFlags(fs)
	fs.StringVar(&opts.quasi, "quasi", "", "check quasi-linearizability with this quasi factor, as in refines<quasi ...>: '1 on {deq} barrier {deq.0}'")
	fs.BoolVar(&opts.complete, "complete", false, "with --quasi: no obligation may remain at the end (for histories that drain the object)")
	fs.BoolVar(&opts.localize, "localize", false, "for a violation, also print a minimal failing test case")
	fs.StringVar(&opts.html, "html", "", "write a page that shows the check (and, for a violation, a minimal test case) to this file")
	fs.BoolVar(&opts.json, "json", false, "print the result as one JSON document")
	fs.BoolVar(&opts.indep, "independent", false, "values are jepsen.independent [key value] tuples: check each key's sub-history on its own")
	fs.BoolVar(&opts.total, "total-queue", false, "check Jepsen's total-queue property (what is enqueued is dequeued: nothing lost, nothing unexpected) instead of linearizability")
	opts.limits.register(fs)
	return cmd
}

// totalQueueReport is the JSON document of "quasar history check
// --total-queue --json".
type totalQueueReport struct {
	File         string      `json:"file"`
	Property     string      `json:"property"` // "total-queue"
	Ops          int         `json:"ops"`
	Verdict      lts.Verdict `json:"verdict"`
	Attempts     int         `json:"attempt_count"`
	Acknowledged int         `json:"acknowledged_count"`
	OK           int         `json:"ok_count"`
	// Multisets of values (as in the text output), with repetition.
	Lost       []string `json:"lost"`
	Unexpected []string `json:"unexpected"`
	Duplicated []string `json:"duplicated"`
	Recovered  []string `json:"recovered"`
}

func valueStrings(vs []history.Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// runTotalQueue is "history check --total-queue".
func runTotalQueue(cmd *cobra.Command, st *streams, opts historyCheckOptions) error {
	switch {
	case opts.quasi != "" || opts.complete || opts.localize || opts.html != "":
		return &usageError{cmd, fmt.Errorf("--total-queue counts values: it takes no --quasi, --complete, --localize or --html")}
	case opts.model != "" || opts.process != "" || opts.init != "" || opts.knossos:
		return &usageError{cmd, fmt.Errorf("--total-queue takes no model flags")}
	}
	h, src, err := readHistory(opts.file, st.stdin)
	if err != nil {
		return &exitError{exitBadInput, &sourceError{err, map[string][]byte{opts.file: src}}}
	}
	tq := history.TotalQueue(h)
	rep := &totalQueueReport{File: opts.file, Property: "total-queue", Ops: len(h.Ops), Verdict: lts.Invalid,
		Attempts: tq.Attempts, Acknowledged: tq.Acknowledged, OK: tq.OK,
		Lost: valueStrings(tq.Lost), Unexpected: valueStrings(tq.Unexpected), Duplicated: valueStrings(tq.Duplicated), Recovered: valueStrings(tq.Recovered)}
	if tq.Valid {
		rep.Verdict = lts.Valid
	}
	return emit(cmd.OutOrStdout(), opts.json, rep, writeTotalQueue, rep.Verdict)
}

// writeTotalQueue prints the verdict line and the counts, then each
// non-empty multiset.
func writeTotalQueue(w io.Writer, rep *totalQueueReport) {
	fmt.Fprintf(w, "%s: %-7s total-queue, %d operations: %d enqueues attempted, %d acknowledged, %d attempted values dequeued\n",
		rep.File, rep.Verdict, rep.Ops, rep.Attempts, rep.Acknowledged, rep.OK)
	for _, part := range []struct {
		name string
		vs   []string
	}{{"lost (acknowledged, never dequeued)", rep.Lost}, {"unexpected (dequeued, never enqueued)", rep.Unexpected},
		{"duplicated (dequeued more often than enqueued)", rep.Duplicated}, {"recovered (dequeued, enqueue not acknowledged)", rep.Recovered}} {
		if len(part.vs) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s: %d: %s\n", part.name, len(part.vs), strings.Join(part.vs, " "))
	}
}

// historyReport is the JSON document of "quasar history check --json"
// (docs/cli.md).
type historyReport struct {
	File         string               `json:"file"`
	Model        string               `json:"model"`
	Property     string               `json:"property"` // "linearizability" or "quasi-linearizability SPEC"
	Localization *historyLocalization `json:"localization,omitempty"`
	Ops          int                  `json:"ops"`
	Verdict      lts.Verdict          `json:"verdict"`
	Reason       string               `json:"reason,omitempty"`
	Stats        lts.Stats            `json:"stats"`
	Witness      []int                `json:"witness,omitempty"`
	Failure      *historyFailure      `json:"failure,omitempty"`
	Partitions   []historyPartition   `json:"partitions,omitempty"`
}

type historyFailure struct {
	Partition string   `json:"partition,omitempty"`
	Longest   []string `json:"longest"`
	Blocked   string   `json:"blocked,omitempty"`
	State     string   `json:"state,omitempty"`
}

type historyPartition struct {
	Name    string      `json:"name"`
	Ops     int         `json:"ops"`
	Verdict lts.Verdict `json:"verdict"`
	Reason  string      `json:"reason,omitempty"`
}

func runHistoryCheck(ctx context.Context, cmd *cobra.Command, st *streams, opts historyCheckOptions) error {
	if opts.total {
		return runTotalQueue(cmd, st, opts)
	}
	limits, err := opts.limits.limits()
	if err != nil {
		return &usageError{cmd, err}
	}
	defer budget.TuneGC(limits.MaxBytes)()
	hopt := history.Options{Limits: limits, Workers: opts.limits.workers}
	if opts.quasi != "" {
		cfg, err := parseQuasi(opts.quasi, opts.complete)
		if err != nil {
			return &usageError{cmd, err}
		}
		hopt.Quasi = &cfg
	} else if opts.complete {
		return &usageError{cmd, fmt.Errorf("--complete needs --quasi")}
	}
	if opts.indep && hopt.Quasi != nil {
		return &usageError{cmd, fmt.Errorf("--independent checks keys one at a time; quasi checks are not partitioned")}
	}
	h, m, err := loadHistory(ctx, cmd, st, &opts)
	if err != nil {
		return err
	}
	// A live line on a terminal for long checks (not with --json: a
	// script reads that); erased before the results.
	var prog *progress
	if !opts.json {
		prog = startProgress(st.stderr)
	}
	if prog != nil {
		hopt.Progress = prog.historyUpdate
	}
	res, err := history.Check(ctx, h, m.Model, hopt)
	if err != nil {
		prog.finish()
		return &exitError{exitBadInput, fmt.Errorf("%s: %w", opts.file, err)}
	}
	rep := newHistoryReport(opts.file, m.name, h, res)
	rep.Property = "linearizability"
	if hopt.Quasi != nil {
		rep.Property = "quasi-linearizability " + hopt.Quasi.String()
	}
	var loc *history.Localization
	if (opts.localize || opts.html != "") && res.Verdict == lts.Invalid && ctx.Err() == nil {
		prog.setText("history: localising the violation")
		hopt.Progress = nil
		loc, err = history.Localize(ctx, h, m.Model, hopt)
		if err != nil {
			prog.finish()
			return &exitError{exitBadInput, fmt.Errorf("%s: %w", opts.file, err)}
		}
		if opts.localize {
			rep.Localization = newHistoryLocalization(h, loc)
		}
	}
	if opts.html != "" {
		var page bytes.Buffer
		if err := view.HTML(&page, h, res, loc, view.Options{Model: m.name, Property: rep.Property}); err != nil {
			return err
		}
		if err := writeFileAtomic(opts.html, page.Bytes()); err != nil {
			prog.finish()
			return &exitError{exitBadInput, err}
		}
	}
	prog.finish()
	err = emit(cmd.OutOrStdout(), opts.json, rep, writeHistoryReport, res.Verdict)
	if ctx.Err() != nil && !opts.json {
		fmt.Fprintln(st.stderr, "quasar: interrupted; the result so far is above")
	}
	return err
}

// parseQuasi reads a quasi factor as written in refines<quasi ...>.
func parseQuasi(text string, complete bool) (relax.Config, error) {
	cfg, err := relax.ParseConfig(text)
	if err != nil {
		return cfg, fmt.Errorf("--quasi %q: %v", text, err)
	}
	if complete {
		cfg.Complete = true
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("--quasi %q: %v", text, err)
	}
	return cfg, nil
}

// namedModel is a model with the name it is shown under.
type namedModel struct {
	history.Model
	name string
}

// loadHistory reads the history and the model it is checked against.
//
// The model's name in messages is the built-in model's, or the process and
// file ("Queue() in spec.csp").
func loadHistory(ctx context.Context, cmd *cobra.Command, st *streams, opts *historyCheckOptions) (*history.History, namedModel, error) {
	h, src, err := readHistory(opts.file, st.stdin)
	if err != nil {
		return nil, namedModel{}, &exitError{exitBadInput, &sourceError{err, map[string][]byte{opts.file: src}}}
	}
	if opts.indep {
		if h, err = history.SplitIndependent(h); err != nil {
			return nil, namedModel{}, &exitError{exitBadInput, fmt.Errorf("%s: %w", opts.file, err)}
		}
	}
	nm, err := pickModel(ctx, cmd, h, opts)
	if opts.indep && err == nil {
		nm.Model = history.PerKey(nm.Model)
	}
	return h, nm, err
}

// pickModel is the model of loadHistory.
func pickModel(ctx context.Context, cmd *cobra.Command, h *history.History, opts *historyCheckOptions) (namedModel, error) {
	var err error
	name := opts.model
	if name == "" {
		if opts.process != "" {
			return namedModel{}, &usageError{cmd, fmt.Errorf("--process needs --model FILE.csp")}
		}
		if name, err = guessModel(h); err != nil {
			return namedModel{}, &usageError{cmd, err}
		}
	}
	if strings.HasSuffix(name, ".csp") {
		m, shown, err := automatonModel(ctx, name, opts.process)
		if err != nil {
			return namedModel{}, &exitError{exitBadInput, err}
		}
		return namedModel{m, shown}, nil
	}
	if opts.process != "" {
		return namedModel{}, &usageError{cmd, fmt.Errorf("--process needs --model FILE.csp")}
	}
	m, err := historyModel(name)
	if err != nil {
		return namedModel{}, &usageError{cmd, err}
	}
	if opts.init != "" || opts.knossos {
		if m, err = registerWith(m, opts.init, opts.knossos); err != nil {
			return namedModel{}, &usageError{cmd, err}
		}
	}
	return namedModel{m, m.Name()}, nil
}

// automatonModel loads a model file and returns one of its processes as a
// sequential specification (pipeline.HistoryModel).
func automatonModel(ctx context.Context, file, process string) (history.Model, string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, "", err
	}
	m, shown, err := pipeline.HistoryModel(ctx, file, src, process)
	if err != nil {
		return nil, "", &sourceError{err, map[string][]byte{file: src}}
	}
	return m, shown, nil
}

func readHistory(file string, stdin io.Reader) (*history.History, []byte, error) {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, nil, err
	}
	h, err := read.Parse(file, strings.NewReader(string(data)))
	return h, data, err
}

// historyModel maps the command's model names to the history package's.
func historyModel(name string) (history.Model, error) {
	switch name {
	case "cas":
		name = "cas-register"
	case "priority-queue":
		name = "pqueue"
	}
	m, err := history.ModelByName(name)
	if err != nil {
		return nil, fmt.Errorf("unknown model %q (want queue, unordered-queue, stack, pqueue, set, register, cas, kv, mutex or multi-register)", name)
	}
	return m, nil
}

// registerWith applies --init and --knossos to a register model.
func registerWith(m history.Model, init string, knossos bool) (history.Model, error) {
	o := history.RegisterOptions{AnyNilRead: knossos}
	if init != "" {
		v, err := history.ParseValue(init)
		if err != nil {
			return nil, fmt.Errorf("--init %q: %v", init, err)
		}
		o.Init = v
	}
	switch m.Name() {
	case "register":
		return history.RegisterWith(o), nil
	case "cas-register":
		return history.CASRegisterWith(o), nil
	case "multi-register":
		// Knossos's nil reads are always legal in its multi-register.
		return history.MultiRegister(o.Init), nil
	}
	return nil, fmt.Errorf("--init and --knossos are for the register models (register, cas, multi-register), not %s", m.Name())
}

// guessModel picks the model from the operation names when they leave no
// doubt; otherwise the user must say.
func guessModel(h *history.History) (string, error) {
	families := map[string]string{
		"enq": "queue", "deq": "queue", "enqueue": "queue", "dequeue": "queue", "offer": "queue", "poll": "queue",
		"push": "stack", "pop": "stack",
		"read": "cas", "write": "cas", "cas": "cas",
		"get": "kv", "put": "kv", "append": "kv",
		"acquire": "mutex", "release": "mutex", "txn": "multi-register",
	}
	found := ""
	for _, o := range h.Ops {
		fam, ok := families[o.F]
		if !ok || (found != "" && fam != found) {
			return "", fmt.Errorf("cannot tell the model from the operations (found %q): use --model", o.F)
		}
		found = fam
	}
	if found == "" {
		return "", fmt.Errorf("empty history: use --model")
	}
	return found, nil
}

func newHistoryReport(file, model string, h *history.History, res *history.Result) *historyReport {
	rep := &historyReport{
		File: file, Model: model, Ops: len(h.Ops),
		Verdict: res.Verdict, Reason: res.Reason, Stats: res.Stats, Witness: res.Witness,
	}
	op := func(id int) string { return opString(h, id) }
	if f := res.Failure; f != nil {
		hf := &historyFailure{Partition: f.Partition, Longest: []string{}, State: f.State}
		for _, id := range f.Longest {
			hf.Longest = append(hf.Longest, op(id))
		}
		if f.Blocked >= 0 {
			hf.Blocked = op(f.Blocked)
		}
		rep.Failure = hf
	}
	if len(res.Partitions) > 1 {
		for _, p := range res.Partitions {
			rep.Partitions = append(rep.Partitions, historyPartition{Name: p.Name, Ops: len(p.Ops), Verdict: p.Verdict, Reason: p.Reason})
		}
	}
	return rep
}

// writeHistoryReport prints the verdict line and, for a violation, the
// operations the search could linearize and the one it could not place.
func writeHistoryReport(w io.Writer, rep *historyReport) {
	verdict := rep.Verdict.String()
	if rep.Verdict == lts.Unknown && rep.Reason != "" {
		verdict += " (" + rep.Reason + ")"
	}
	fmt.Fprintf(w, "%s: %-7s %s w.r.t. %s, %d operations  (%s)\n", rep.File, verdict, rep.Property, rep.Model, rep.Ops,
		formatStats(runStats(rep.Stats)))
	if f := rep.Failure; f != nil {
		if rep.Reason != "" {
			fmt.Fprintf(w, "  %s\n", rep.Reason)
		}
		// The end of the prefix is where the search got stuck; the JSON
		// output has all of it.
		const shown = 10
		fmt.Fprintf(w, "  longest linearizable prefix found: %d operations", len(f.Longest))
		first := 0
		if len(f.Longest) > shown {
			first = len(f.Longest) - shown
			fmt.Fprintf(w, ", the last %d", shown)
		}
		fmt.Fprintln(w)
		for i := first; i < len(f.Longest); i++ {
			fmt.Fprintf(w, "    %3d  %s\n", i+1, f.Longest[i])
		}
		if f.State != "" {
			fmt.Fprintf(w, "  model state after it: %s\n", f.State)
		}
		if f.Blocked != "" {
			fmt.Fprintf(w, "  cannot be linearized next: %s\n", f.Blocked)
		}
	}
	if l := rep.Localization; l != nil {
		writeLocalization(w, l)
	}
}

// opString renders operation id of h as "p0 deq() -> 2 (line 5)", as the
// HTML page does.
func opString(h *history.History, id int) string { return view.OpText(h, id) }

// historyLocalization is a minimal failing test case (history.Localize).
type historyLocalization struct {
	Verdict      lts.Verdict `json:"verdict"` // invalid: a test case was found
	Reason       string      `json:"reason,omitempty"`
	PrefixEvents int         `json:"prefix_events"` // the shortest violating prefix (see undecided)
	PrefixOps    int         `json:"prefix_ops"`
	// Undecided: prefix lengths (events) whose check ran out of its budget;
	// one below prefix_events means a shorter violating prefix may exist.
	Undecided  []int    `json:"undecided,omitempty"`
	Revealing  string   `json:"revealing,omitempty"`
	Sequential []string `json:"sequential"`
	Core       []string `json:"core"`
	Suffix     []string `json:"suffix"`
}

func newHistoryLocalization(h *history.History, l *history.Localization) *historyLocalization {
	ops := func(ids []int) []string {
		out := []string{}
		for _, id := range ids {
			out = append(out, opString(h, id))
		}
		return out
	}
	hl := &historyLocalization{
		Verdict: l.Verdict, Reason: l.Reason, PrefixEvents: l.PrefixEvents, PrefixOps: l.PrefixOps,
		Undecided:  l.Undecided,
		Sequential: ops(l.Sequential), Core: ops(l.Core), Suffix: ops(l.Suffix),
	}
	if l.Revealing >= 0 {
		hl.Revealing = opString(h, l.Revealing)
	}
	return hl
}

func writeLocalization(w io.Writer, l *historyLocalization) {
	if l.Verdict != lts.Invalid {
		fmt.Fprintf(w, "  no minimal test case: %s %s\n", l.Verdict, l.Reason)
		return
	}
	// If a shorter prefix ran out of its budget, this one is the shortest
	// found, not necessarily the shortest.
	shortest := view.ViolatingPrefix(l.Undecided, l.PrefixEvents)
	fmt.Fprintf(w, "  %s: %d operations (%d events), revealed by %s\n", shortest, l.PrefixOps, l.PrefixEvents, l.Revealing)
	fmt.Fprintf(w, "  minimal test case (%d operations):\n", len(l.Sequential)+len(l.Core)+len(l.Suffix))
	for _, part := range []struct {
		name string
		ops  []string
	}{{"sequential prefix", l.Sequential}, {"concurrent core", l.Core}, {"revealing suffix", l.Suffix}} {
		if len(part.ops) == 0 {
			continue
		}
		fmt.Fprintf(w, "    %s:\n", part.name)
		for _, o := range part.ops {
			fmt.Fprintf(w, "      %s\n", o)
		}
	}
}

// historyFactorOptions are the inputs of "quasar history factor".
type historyFactorOptions struct {
	historyCheckOptions
	max int
}

// historyFactorHelp is the help of "quasar history factor".
const historyFactorHelp = `Find the least quasi factor for which a history is quasi-linearizable

Factor finds the least k in 0..max such that the history is
quasi-linearizable with quasi factor k (0 is linearizability).

--quasi chooses the relaxed classes and barriers, as in refines<quasi ...>,
without the bound, which factor supplies: --quasi 'on {deq} barrier {deq.0}'.
By default every operation is in one class.

` + factorExitCodes

func newHistoryFactorCmd(st *streams) *cobra.Command {
	var opts historyFactorOptions
	cmd := fileCommand("factor FILE", historyFactorHelp, &opts.file, func(cmd *cobra.Command) error {
		return runHistoryFactor(cmd.Context(), cmd, st, opts)
	})
	fs := cmd.Flags()
	opts.registerModelFlags(fs)
	fs.StringVar(&opts.quasi, "quasi", "", "the relaxed classes and barriers, without the bound: 'on {deq} barrier {deq.0}'")
	fs.BoolVar(&opts.complete, "complete", false, "no obligation may remain at the end (for histories that drain the object)")
	fs.IntVar(&opts.max, "max", 10, "the largest factor tried")
	fs.BoolVar(&opts.json, "json", false, "print the result as one JSON document")
	opts.limits.register(fs)
	return cmd
}

// historyFactorReport is the JSON document of "quasar history factor --json".
type historyFactorReport struct {
	File    string      `json:"file"`
	Model   string      `json:"model"`
	Classes string      `json:"classes"` // the quasi factor with bound k
	Max     int         `json:"max"`
	Verdict lts.Verdict `json:"verdict"` // valid: K found; invalid: none up to max; unknown: a limit
	K       int         `json:"k"`       // -1 if none
	Reason  string      `json:"reason,omitempty"`
	Stats   lts.Stats   `json:"stats"` // of the last check
}

func runHistoryFactor(ctx context.Context, cmd *cobra.Command, st *streams, opts historyFactorOptions) error {
	limits, err := opts.limits.limits()
	if err != nil {
		return &usageError{cmd, err}
	}
	defer budget.TuneGC(limits.MaxBytes)()
	if opts.max < 0 {
		return &usageError{cmd, fmt.Errorf("--max must not be negative, found %d", opts.max)}
	}
	text := strings.TrimSpace(opts.quasi)
	if text == "" || !strings.ContainsAny(text[:1], "0123456789{") {
		text = strings.TrimSpace("0 " + text) // the bound is MinQuasiFactor's
	}
	cfg, err := parseQuasi(text, opts.complete)
	if err != nil {
		return &usageError{cmd, err}
	}
	h, m, err := loadHistory(ctx, cmd, st, &opts.historyCheckOptions)
	if err != nil {
		return err
	}
	fopt := history.Options{Limits: limits, Workers: opts.limits.workers}
	var prog *progress
	if !opts.json {
		prog = startProgress(st.stderr)
	}
	if prog != nil {
		fopt.Progress = prog.historyUpdate
	}
	k, res, err := history.MinQuasiFactor(ctx, h, m.Model, cfg, opts.max, fopt)
	prog.finish()
	if err != nil {
		return &exitError{exitBadInput, fmt.Errorf("%s: %w", opts.file, err)}
	}
	rep := historyFactorReport{File: opts.file, Model: m.name, Max: opts.max, K: k, Verdict: lts.Valid}
	if res != nil {
		rep.Stats, rep.Reason = res.Stats, res.Reason
	}
	switch {
	case k >= 0:
		rep.Reason = ""
	case res != nil && res.Verdict == lts.Unknown:
		rep.Verdict = lts.Unknown
	default:
		rep.Verdict = lts.Invalid
	}
	rep.Classes = cfg.WithBound(max(k, 0)).String()
	return emit(cmd.OutOrStdout(), opts.json, &rep, writeHistoryFactor, rep.Verdict)
}

func writeHistoryFactor(w io.Writer, rep *historyFactorReport) {
	switch rep.Verdict {
	case lts.Valid:
		fmt.Fprintf(w, "%s: least quasi factor %d: quasi-linearizable %s w.r.t. %s", rep.File, rep.K, rep.Classes, rep.Model)
		if rep.K == 0 {
			fmt.Fprint(w, " (linearizable)")
		}
	case lts.Invalid:
		fmt.Fprintf(w, "%s: not quasi-linearizable w.r.t. %s with any factor up to %d", rep.File, rep.Model, rep.Max)
	default:
		fmt.Fprintf(w, "%s: unknown (%s)", rep.File, rep.Reason)
	}
	fmt.Fprintf(w, "  (%s)\n", formatStats(runStats(rep.Stats)))
}
