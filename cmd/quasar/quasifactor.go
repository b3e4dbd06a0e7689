package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/internal/run"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

// quasiFactorOptions are the inputs of "quasar quasi-factor".
type quasiFactorOptions struct {
	file     string
	assert   string
	max      int
	mode     string
	json     bool
	symmetry bool
	limits   limitFlags
}

func newQuasiFactorCmd(st *streams) *cobra.Command {
	var opts quasiFactorOptions
	cmd := &cobra.Command{
		Use:   "quasi-factor FILE",
		Short: "Find the least quasi factor for which an implementation refines its specification",
		Long: `Quasi-factor finds the least K in 0..max such that the implementation of a
refinement assertion refines its specification relaxed by quasi factor K.
The assertion is the first quasi refinement of the file (or the one chosen
with --assert: its number, 1 being the first, or a part of its text); its
classes and barriers are kept and its bound is replaced by K. For a plain
refinement, every event is in one class. Factor 0 is plain refinement.

The check at K-1 is printed with its counterexample: why K-1 is not enough.

Exit code 0: a factor was found; 1: none up to --max; 2: bad input; 3: a
limit was hit.`,
		Args: rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			return runQuasiFactor(cmd.Context(), cmd, st, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.assert, "assert", "", "the assertion: its number (1 is the first) or a part of its text")
	fs.IntVar(&opts.max, "max", 6, "the largest factor tried")
	fs.StringVar(&opts.mode, "mode", "", "relaxation: exact or window (default: as written in the assertion)")
	fs.BoolVar(&opts.json, "json", false, "print the result as one JSON document")
	fs.BoolVar(&opts.symmetry, "symmetry", true, "factor out thread renamings when the model is proved symmetric (as check)")
	opts.limits.register(fs)
	return cmd
}

// quasiFactorReport is the JSON document of "quasar quasi-factor --json".
type quasiFactorReport struct {
	File    string      `json:"file"`
	Line    int         `json:"line"`
	Text    string      `json:"text"`    // the assertion
	Quasi   string      `json:"quasi"`   // the quasi factor at K (at max when none)
	Verdict lts.Verdict `json:"verdict"` // valid: K found; invalid: none up to max; unknown: a limit
	K       int         `json:"k"`       // -1 if none
	Max     int         `json:"max"`
	Reason  string      `json:"reason,omitempty"`
	Stats   run.Stats   `json:"stats"` // of the check at K (or the last check)
	// Below is the check at K-1 with its counterexample (why K-1 is not
	// enough); absent when K is 0 or not found.
	Below *refine.Counterexample `json:"below,omitempty"`
	Steps []refine.FactorStep    `json:"steps"`
}

func runQuasiFactor(ctx context.Context, cmd *cobra.Command, st *streams, opts quasiFactorOptions) error {
	limits, err := opts.limits.limits()
	if err != nil {
		return &usageError{cmd, err}
	}
	defer budget.TuneGC(limits.MaxBytes)()
	if opts.max < 0 {
		return &usageError{cmd, fmt.Errorf("--max must not be negative, found %d", opts.max)}
	}
	if opts.mode != "" && opts.mode != "exact" && opts.mode != "window" {
		return &usageError{cmd, fmt.Errorf("--mode must be exact or window, found %q", opts.mode)}
	}
	src, err := os.ReadFile(opts.file)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	srcs := map[string][]byte{opts.file: src}
	ch, err := checkSource(opts.file, src)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	a, err := pickRefinement(ch, opts.assert)
	if err != nil {
		return &exitError{exitBadInput, fmt.Errorf("%s: %v", opts.file, err)}
	}
	text := assertText(src, a)
	cfg := relax.Config{}
	if a.Kind == lang.KindQuasi {
		q := strings.TrimSpace(string(src[a.Quasi.Pos().Offset:a.Quasi.End().Offset]))
		if cfg, err = relax.ParseConfig(strings.TrimSpace(strings.TrimPrefix(q, "quasi"))); err != nil {
			return &exitError{exitBadInput, &sourceError{fmt.Errorf("%s: %v", a.Quasi.Pos(), err), srcs}}
		}
	}
	switch opts.mode {
	case "exact":
		cfg.Mode = relax.Exact
	case "window":
		cfg.Mode = relax.Window
	}
	withBound := func(k int) relax.Config {
		c := cfg
		c.Classes = append([]relax.Class(nil), cfg.Classes...)
		for i := range c.Classes {
			c.Classes[i].Bound = k
		}
		if len(c.Classes) == 0 {
			c.All = k
		}
		return c
	}
	prog, err := lts.Compile(ch)
	if err != nil {
		return &exitError{exitBadInput, &sourceError{err, srcs}}
	}
	var impl *lts.Proc
	if opts.symmetry {
		impl, _, err = prog.SymmetricProcess(a.Left)
	} else {
		impl, err = prog.Process(a.Left)
	}
	if err != nil {
		return &exitError{exitBadInput, &sourceError{err, srcs}}
	}
	specSys, err := prog.Process(a.Right)
	if err != nil {
		return &exitError{exitBadInput, &sourceError{err, srcs}}
	}
	build := func(k int) (lts.Automaton, error) {
		return relax.New(lts.NewTauClosed(specSys), withBound(k))
	}
	workers := opts.limits.workers
	if workers == 0 {
		workers = lts.DefaultWorkers()
	}
	fr, err := refine.MinFactor(ctx, impl, build, opts.max, refine.Options{Limits: limits, Workers: workers})
	if err != nil {
		return &exitError{exitBadInput, &sourceError{fmt.Errorf("%s:%d: %w", opts.file, a.Pos().Line, err), srcs}}
	}
	rep := quasiFactorReport{File: opts.file, Line: a.Pos().Line, Text: text, Verdict: fr.Verdict, K: fr.K, Max: opts.max,
		Reason: fr.Reason, Steps: fr.Steps}
	if fr.Result != nil {
		rep.Stats = run.RefinementStats(fr.Result.Stats, impl.Symmetry())
	}
	if fr.Below != nil && fr.Below.Counterexample != nil {
		// Checked against the definition, independently of the automaton.
		if _, err := run.ValidateQuasi(lts.NewTauClosed(specSys), withBound(fr.K-1), fr.Below.Counterexample.Trace); err != nil {
			return &exitError{exitInternal, err}
		}
		rep.Below = fr.Below.Counterexample
	}
	rep.Quasi = withBound(max(fr.K, 0)).String()
	if fr.K < 0 {
		rep.Quasi = withBound(opts.max).String()
	}
	out := cmd.OutOrStdout()
	if opts.json {
		if err := writeIndentedJSON(out, rep); err != nil {
			return err
		}
	} else {
		writeQuasiFactor(out, &rep, fr, impl)
	}
	switch fr.Verdict {
	case lts.Invalid:
		return &exitError{code: exitInvalid}
	case lts.Unknown:
		return &exitError{code: exitUnknown}
	}
	return nil
}

func writeQuasiFactor(w io.Writer, rep *quasiFactorReport, fr *refine.FactorResult, impl *lts.Proc) {
	where := fmt.Sprintf("%s:%d", rep.File, rep.Line)
	switch rep.Verdict {
	case lts.Valid:
		left, right := assertSides(rep.Text)
		fmt.Fprintf(w, "%s: least quasi factor %d: %s refines<quasi %s> %s", where, rep.K, left, rep.Quasi, right)
	case lts.Invalid:
		fmt.Fprintf(w, "%s: no quasi factor up to %d: %s", where, rep.Max, rep.Text)
	default:
		fmt.Fprintf(w, "%s: unknown (%s): %s", where, rep.Reason, rep.Text)
	}
	fmt.Fprintf(w, "  (%s)\n", formatStats(rep.Stats))
	for _, s := range fr.Steps {
		how := formatStats(run.RefinementStats(s.Stats, impl.Symmetry()))
		if s.Replayed {
			how = "refuted by replaying the previous counterexample"
		}
		fmt.Fprintf(w, "  factor %d: %-7s %s\n", s.K, s.Verdict, how)
	}
	if c := rep.Below; c != nil {
		fmt.Fprintf(w, "  at factor %d: counterexample: %s\n", rep.K-1, strings.Join(c.Trace, " "))
		if len(c.Offered) > 0 {
			fmt.Fprintf(w, "  the relaxed specification offers instead: %s\n", strings.Join(c.Offered, " "))
		}
	}
}

// assertSides splits a refinement's text into its implementation and
// specification.
func assertSides(text string) (left, right string) {
	i := strings.Index(text, " refines")
	if i < 0 {
		return text, ""
	}
	left, right = text[:i], text[i+len(" refines"):]
	if strings.HasPrefix(right, "<") {
		if j := strings.Index(right, ">"); j >= 0 {
			right = right[j+1:]
		}
	}
	return left, strings.TrimSpace(right)
}

// pickRefinement selects the assertion: by number (1-based, among all
// assertions), by a part of its text, or the first quasi refinement, else
// the first refinement.
func pickRefinement(ch *lang.Checked, sel string) (*lang.AssertDecl, error) {
	asserts := ch.Info.Asserts
	isRef := func(a *lang.AssertDecl) bool { return a.Kind == lang.KindRefines || a.Kind == lang.KindQuasi }
	if sel == "" {
		for _, a := range asserts {
			if a.Kind == lang.KindQuasi {
				return a, nil
			}
		}
		for _, a := range asserts {
			if isRef(a) {
				return a, nil
			}
		}
		return nil, fmt.Errorf("no refinement assertion")
	}
	var found *lang.AssertDecl
	if n, err := strconv.Atoi(sel); err == nil {
		if n < 1 || n > len(asserts) {
			return nil, fmt.Errorf("--assert %d: the file has %d assertions", n, len(asserts))
		}
		found = asserts[n-1]
	} else {
		src := []byte(nil)
		for _, a := range asserts {
			if src == nil {
				src, _ = os.ReadFile(a.Pos().File)
			}
			if strings.Contains(assertText(src, a), sel) {
				found = a
				break
			}
		}
		if found == nil {
			return nil, fmt.Errorf("--assert %q: no assertion contains this text", sel)
		}
	}
	if !isRef(found) {
		return nil, fmt.Errorf("line %d: not a refinement assertion", found.Pos().Line)
	}
	return found, nil
}

// assertText is the source of an assertion without "#assert" and ";".
func assertText(src []byte, a *lang.AssertDecl) string {
	start, end := a.Pos().Offset, a.End().Offset
	if start < 0 || end > len(src) || start > end {
		return ""
	}
	t := strings.TrimSpace(string(src[start:end]))
	t = strings.TrimSpace(strings.TrimPrefix(t, "#assert"))
	return strings.TrimSpace(strings.TrimSuffix(t, ";"))
}
