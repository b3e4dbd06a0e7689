package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/lts"
)

func newHistoryCmd(io *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Check histories recorded from real runs",
		Long: `Check histories recorded from runs of real code: JSON Lines, EDN (Knossos,
Porcupine) or Jepsen logs. See docs/history.md for the formats.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return &usageError{cmd, fmt.Errorf("missing subcommand (check)")}
		},
	}
	cmd.AddCommand(newHistoryCheckCmd(io))
	return cmd
}

// historyCheckOptions are the inputs of "quasar history check".
type historyCheckOptions struct {
	file   string // "-" is standard input
	model  string
	json   bool
	limits limitFlags
}

func newHistoryCheckCmd(io *streams) *cobra.Command {
	var opts historyCheckOptions
	cmd := &cobra.Command{
		Use:   "check FILE",
		Short: "Check that a history is linearizable",
		Long: `Check that a history is linearizable with respect to a sequential model.

Models: queue, stack, pqueue (priority queue), set, register, cas (a register
with compare-and-set, as in Jepsen's etcd tests) and kv (a key-value store,
checked key by key). Without --model the model is chosen from the operation
names when they leave no doubt (enq/deq: queue, push/pop: stack,
read/write/cas: cas, get/put/append: kv).

Exit code 0: linearizable; 1: not linearizable; 2: bad input; 3: a limit was
hit (unknown).`,
		Args: rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			return runHistoryCheck(cmd.Context(), cmd, io, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.model, "model", "", "the sequential model: queue, stack, pqueue, set, register, cas or kv")
	fs.BoolVar(&opts.json, "json", false, "print the result as one JSON document")
	opts.limits.register(fs)
	return cmd
}

// historyReport is the JSON document of "quasar history check --json"
// (docs/cli.md).
type historyReport struct {
	File       string             `json:"file"`
	Model      string             `json:"model"`
	Ops        int                `json:"ops"`
	Verdict    lts.Verdict        `json:"verdict"`
	Reason     string             `json:"reason,omitempty"`
	Stats      lts.Stats          `json:"stats"`
	Witness    []int              `json:"witness,omitempty"`
	Failure    *historyFailure    `json:"failure,omitempty"`
	Partitions []historyPartition `json:"partitions,omitempty"`
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

func runHistoryCheck(ctx context.Context, cmd *cobra.Command, io *streams, opts historyCheckOptions) error {
	limits, err := opts.limits.limits()
	if err != nil {
		return &usageError{cmd, err}
	}
	h, src, err := readHistory(opts.file, io.stdin)
	if err != nil {
		return &exitError{exitBadInput, &sourceError{err, map[string][]byte{opts.file: src}}}
	}
	name := opts.model
	if name == "" {
		if name, err = guessModel(h); err != nil {
			return &usageError{cmd, err}
		}
	}
	m, err := historyModel(name)
	if err != nil {
		return &usageError{cmd, err}
	}
	res, err := history.Check(ctx, h, m, history.Options{Limits: limits, Workers: opts.limits.workers})
	if err != nil {
		return &exitError{exitBadInput, &sourceError{fmt.Errorf("%s: %w", opts.file, err), map[string][]byte{opts.file: src}}}
	}
	rep := newHistoryReport(opts.file, m.Name(), h, res)
	out := cmd.OutOrStdout()
	if opts.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		writeHistoryReport(out, rep)
	}
	switch res.Verdict {
	case lts.Invalid:
		return &exitError{code: exitInvalid}
	case lts.Unknown:
		return &exitError{code: exitUnknown}
	}
	return nil
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
	h, err := history.Parse(file, strings.NewReader(string(data)))
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
		return nil, fmt.Errorf("unknown model %q (want queue, stack, pqueue, set, register, cas or kv)", name)
	}
	return m, nil
}

// guessModel picks the model from the operation names when they leave no
// doubt; otherwise the user must say.
func guessModel(h *history.History) (string, error) {
	families := map[string]string{
		"enq": "queue", "deq": "queue",
		"push": "stack", "pop": "stack",
		"read": "cas", "write": "cas", "cas": "cas",
		"get": "kv", "put": "kv", "append": "kv",
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
	op := func(id int) string {
		if id >= 0 && id < len(h.Ops) {
			o := &h.Ops[id]
			if o.Line > 0 {
				return fmt.Sprintf("%s (line %d)", o, o.Line)
			}
			return o.String()
		}
		return fmt.Sprintf("op %d", id)
	}
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
	fmt.Fprintf(w, "%s: %-7s linearizability w.r.t. %s, %d operations  (%s)\n", rep.File, verdict, rep.Model, rep.Ops,
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
}
