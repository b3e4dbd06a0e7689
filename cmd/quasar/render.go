package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/pipeline"
)

// emit prints rep as one indented JSON document or, without --json, as
// text, and returns the exit code of verdict (1 invalid, 3 unknown).
func emit[R any](w io.Writer, asJSON bool, rep R, text func(io.Writer, R), verdict lts.Verdict) error {
	if asJSON {
		if err := writeIndentedJSON(w, rep); err != nil {
			return err
		}
	} else {
		text(w, rep)
	}
	switch verdict {
	case lts.Invalid:
		return &exitError{code: exitInvalid}
	case lts.Unknown:
		return &exitError{code: exitUnknown}
	}
	return nil
}

func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeReport prints one verdict line per assertion, each followed by its
// counterexample, if any:
//
//	queue.csp:12: valid   Impl() refines Spec()  (1234 states, 5678 transitions, 12ms, 3.1 MiB)
//
// sources holds the model's text, for the caret under a run-time error.
func writeReport(w io.Writer, rep *pipeline.Report, sources map[string][]byte) {
	for _, a := range rep.Assertions {
		writeAssertion(w, rep.File, a, sources)
	}
}

func writeAssertion(w io.Writer, file string, a *pipeline.Assertion, sources map[string][]byte) {
	verdict := a.Verdict.String()
	if a.Verdict == lts.Unknown && a.Reason != "" {
		// A run-time error is printed in full below, with its source line.
		reason := strings.TrimSuffix(strings.TrimSuffix(a.Reason, a.Error), ": ")
		verdict += " (" + reason + ")"
	}
	if a.Probabilistic {
		verdict += " (probabilistic)"
	}
	fmt.Fprintf(w, "%s:%d: %-7s %s", file, a.Line, verdict, a.Text)
	if a.Value != nil {
		fmt.Fprintf(w, " = %d", *a.Value)
	}
	fmt.Fprintf(w, "  (%s)\n", formatStats(a.Stats))
	if a.Verdict != lts.Unknown && a.Reason != "" {
		fmt.Fprintf(w, "  %s\n", a.Reason)
	}
	if c := a.Coverage; c != nil && a.Probabilistic {
		fmt.Fprintf(w, "  probabilistic: %s\n", coverageText(c, a.Stats.States))
	} else if c != nil && (a.Counterexample != nil || a.Witness != nil) {
		mode := "bitstate"
		if c.Mode == "hash-compact" {
			mode = "hash-compaction"
		}
		fmt.Fprintf(w, "  exact: the trace was rebuilt from the %s search and re-validated on the full state space\n", mode)
	}
	if a.Error != "" {
		msg := strings.TrimRight(formatError(errors.New(a.Error), sources), "\n")
		msg = strings.TrimPrefix(msg, "quasar: ")
		fmt.Fprintf(w, "  error: %s\n", strings.ReplaceAll(msg, "\n", "\n  "))
		if a.Internal {
			fmt.Fprintln(w, "  this is a bug of quasar, not of the model; please report it with the model and the command line")
		}
	}
	if a.Counterexample != nil {
		writeTrace(w, "counterexample", a.Counterexample)
	}
	if a.Witness != nil {
		writeTrace(w, "witness", a.Witness)
	}
}

// coverageText explains a probabilistic verdict: the visited set and the
// estimated probability that some reachable state was missed.
func coverageText(c *csp.Coverage, states int64) string {
	if c.Mode == "hash-compact" {
		return fmt.Sprintf("hash compaction with %d-bit fingerprints; estimated probability that some state was missed %s (n(n-1)/2^%d, n = %d states stored)",
			c.FingerprintBits, formatProb(c.Omission), c.FingerprintBits+1, states)
	}
	return fmt.Sprintf("bitstate hashing, %s bits (%s), %d hash functions, hash factor %.1f; expected states missed %s (coverage about %s), probability that some state was missed about %s",
		formatCount(c.Bits), budget.FormatBytes(c.Bits/8), c.Hashes, c.HashFactor, formatProb(c.ExpectedOmitted), formatPercent(c.Coverage), formatProb(c.Omission))
}

// formatProb prints a probability or an expected count with two
// significant digits: "7.7e-09", "0.12", "1".
func formatProb(p float64) string {
	if p == 0 {
		return "0"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// formatCount prints a power of two as 2^k, other counts in full.
func formatCount(n int64) string {
	if n > 0 && n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", bits.TrailingZeros64(uint64(n)))
	}
	return strconv.FormatInt(n, 10)
}

// formatPercent prints a fraction as a percentage that does not round a
// loss away: 1 - 1e-9 is "99.9999999%", not "100%".
func formatPercent(f float64) string {
	if f >= 1 {
		return "100%"
	}
	for d := 1; d < 15; d++ {
		s := strconv.FormatFloat(f*100, 'f', d, 64)
		if v, _ := strconv.ParseFloat(s, 64); v < 100 {
			return s + "%"
		}
	}
	return strconv.FormatFloat(f*100, 'g', -1, 64) + "%"
}

// formatStats is "1234 states, 5678 transitions, 12ms, 3.1 MiB"; a search
// that stored one state per thread-symmetry class says so.
func formatStats(s pipeline.Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d states", s.States)
	if s.Symmetry > 0 {
		b.WriteString(" up to symmetry")
	}
	fmt.Fprintf(&b, ", %d transitions", s.Transitions)
	if s.Pairs > 0 {
		fmt.Fprintf(&b, ", %d pairs", s.Pairs)
	}
	if s.LateArgs {
		b.WriteString(", late arguments")
	}
	fmt.Fprintf(&b, ", %s", formatSeconds(s.Seconds))
	if s.PeakBytes > 0 {
		fmt.Fprintf(&b, ", %s", budget.FormatBytes(s.PeakBytes))
	}
	return b.String()
}

// formatSeconds rounds to what a reader can use: "850µs", "12ms", "2.31s".
func formatSeconds(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(10 * time.Millisecond).String()
	}
}

// writeTrace prints a counterexample or a witness (label): the trace, then
// one step per line: the event (tau for internal steps), who performed it,
// and the variables it changed.
//
//	counterexample: enq.1 enq.2 deq.2
//	  1  enq.1  Enq(1)  q[0]=1 tail=1
//	  2  deq.2  Deq()   head=1
//	the specification offers instead: deq.1
func writeTrace(w io.Writer, label string, c *pipeline.Counterexample) {
	trace := strings.Join(c.Trace, " ")
	if trace == "" {
		trace = "(the empty trace)"
	}
	fmt.Fprintf(w, "  %s: %s\n", label, trace)
	if len(c.Steps) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for i, s := range c.Steps {
			ev := s.Event
			if ev == "" {
				ev = "tau"
			}
			var changed []string
			for _, b := range s.Changed {
				changed = append(changed, b.Name+"="+b.Value)
			}
			// An empty last cell would leave trailing blanks.
			fmt.Fprintf(tw, "    %d\t%s\t%s", i+1, ev, s.Who)
			if len(changed) > 0 {
				fmt.Fprintf(tw, "\t%s", strings.Join(changed, " "))
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	if len(c.Offered) > 0 {
		fmt.Fprintf(w, "  the specification offers instead: %s\n", strings.Join(c.Offered, " "))
	}
	if len(c.History) > 0 {
		fmt.Fprintln(w, "  its history, which the history engine also finds violating:")
		for i, l := range c.History {
			fmt.Fprintf(w, "    %d  %s\n", i+1, l)
		}
	}
	if c.Explanation != "" {
		fmt.Fprintf(w, "  %s\n", c.Explanation)
	}
}

// writeJSON prints the report as one JSON document. The schema is part of
// quasar's interface (docs/cli.md): it is written out here, field by field,
// so that a change in an internal type cannot change it unnoticed.
func writeJSON(w io.Writer, rep *pipeline.Report) error {
	doc := jsonReport{File: rep.File, Assertions: []jsonAssertion{}}
	for _, a := range rep.Assertions {
		ja := jsonAssertion{
			Line: a.Line, Text: a.Text, Kind: a.Kind, Verdict: a.Verdict, Reason: a.Reason, Error: a.Error,
			Internal: a.Internal, Stats: a.Stats, Value: a.Value, Probabilistic: a.Probabilistic, Coverage: a.Coverage, LateArgsOff: a.LateArgsOff,
		}
		ja.Counterexample, ja.Witness = jsonTrace(a.Counterexample), jsonTrace(a.Witness)
		doc.Assertions = append(doc.Assertions, ja)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// jsonTrace is the JSON form of a counterexample or witness (nil: none).
func jsonTrace(c *pipeline.Counterexample) *jsonCounterexample {
	if c == nil {
		return nil
	}
	jc := &jsonCounterexample{
		Trace: c.Trace, Steps: []jsonStep{}, Offered: c.Offered, Explanation: c.Explanation, History: c.History,
		Kind: c.Kind, Refused: c.Refused, Acceptances: c.Acceptances,
	}
	if jc.Trace == nil {
		jc.Trace = []string{}
	}
	for _, s := range c.Steps {
		js := jsonStep{Event: s.Event, Who: s.Who}
		for _, b := range s.Changed {
			js.Changed = append(js.Changed, jsonBinding{b.Name, b.Value})
		}
		jc.Steps = append(jc.Steps, js)
	}
	return jc
}

type jsonReport struct {
	File       string          `json:"file"`
	Assertions []jsonAssertion `json:"assertions"`
}

type jsonAssertion struct {
	Line           int                 `json:"line"`
	Text           string              `json:"text"`
	Kind           string              `json:"kind"`
	Verdict        lts.Verdict         `json:"verdict"`
	Reason         string              `json:"reason,omitempty"`
	Error          string              `json:"error,omitempty"`
	Internal       bool                `json:"internal,omitempty"` // the error is a bug of quasar (exit code 4)
	Stats          pipeline.Stats      `json:"stats"`
	LateArgsOff    string              `json:"late_args_off,omitempty"` // why a linearizes check ran without the late arguments
	Counterexample *jsonCounterexample `json:"counterexample,omitempty"`
	Witness        *jsonCounterexample `json:"witness,omitempty"` // reaches: a shortest trace to the goal
	Value          *int64              `json:"value,omitempty"`
	// Probabilistic: a --hash-compact or --bitstate verdict that rests on
	// the search having visited every state (docs/verdicts.md).
	Probabilistic bool          `json:"probabilistic,omitempty"`
	Coverage      *csp.Coverage `json:"coverage,omitempty"` // its JSON names are the documented ones (docs/cli.md)
}

type jsonCounterexample struct {
	Trace       []string   `json:"trace"`
	Steps       []jsonStep `json:"steps"`
	Offered     []string   `json:"offered,omitempty"`
	Explanation string     `json:"explanation,omitempty"`
	History     []string   `json:"history,omitempty"`
	// refines <F> / <FD>: "trace", "refusal" or "divergence"; a refusal's
	// refused events and the specification's minimal acceptances.
	Kind        string     `json:"kind,omitempty"`
	Refused     []string   `json:"refused,omitempty"`
	Acceptances [][]string `json:"acceptances,omitempty"`
}

type jsonStep struct {
	Event   string        `json:"event"` // "" is tau
	Who     string        `json:"who,omitempty"`
	Changed []jsonBinding `json:"changed,omitempty"`
}

type jsonBinding struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// reportCode is the exit code of a report, the worst of its assertions':
// 4 if some check failed with an internal error, else 2 if some met a
// run-time error of the model (bad input), else 1 if some assertion is
// violated, else 3 if some verdict is unknown, else 0.
func reportCode(rep *pipeline.Report) int {
	rank := map[int]int{exitOK: 0, exitUnknown: 1, exitInvalid: 2, exitBadInput: 3, exitInternal: 4}
	code := exitOK
	for _, a := range rep.Assertions {
		c := exitOK
		switch {
		case a.Internal || strings.HasPrefix(a.Error, "internal error"):
			c = exitInternal
		case a.Error != "":
			c = exitBadInput
		case a.Verdict == lts.Invalid:
			c = exitInvalid
		case a.Verdict == lts.Unknown:
			c = exitUnknown
		}
		if rank[c] > rank[code] {
			code = c
		}
	}
	return code
}

// runStats converts the stats of an lts search to the report's.
func runStats(s lts.Stats) pipeline.Stats {
	return pipeline.Stats{States: s.States, Transitions: s.Transitions, Seconds: s.Seconds, PeakBytes: s.PeakBytes, Symmetry: s.Symmetry}
}
