package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// TraceHistory reads a trace of invocation and response events (names as
// linearize.Naming says) as the history it shows: one operation per
// invocation, called at the invocation's index and returning at its
// response's, pending (Info) if it has none; IDs count from 1. Other
// events are skipped.
func TraceHistory(trace []string, naming linearize.Naming) ([]history.Op, error) {
	var ops []history.Op
	open := map[int]int{} // thread -> index in ops of its pending call
	for i, name := range trace {
		base, data := lts.SplitName(name)
		inv := strings.HasSuffix(base, naming.Inv)
		res := strings.HasSuffix(base, naming.Res)
		if !inv && !res {
			continue
		}
		if len(data) == 0 {
			return nil, fmt.Errorf("event %s names no thread", name)
		}
		t := data[0]
		if inv {
			if _, busy := open[t]; busy {
				return nil, fmt.Errorf("thread %d invokes %s with a call pending", t, name)
			}
			open[t] = len(ops)
			ops = append(ops, history.Op{
				ID: len(ops) + 1, Process: t, F: strings.TrimSuffix(base, naming.Inv),
				Input: ints(data[1:]), Status: history.Info, Call: int64(i), Return: history.Pending,
			})
			continue
		}
		k, ok := open[t]
		if !ok {
			return nil, fmt.Errorf("thread %d responds %s with no call pending", t, name)
		}
		delete(open, t)
		ops[k].Output, ops[k].Status, ops[k].Return = ints(data[1:]), history.Ok, int64(i)
	}
	return ops, nil
}

// ints is a history value of event data: none, one integer or a list.
func ints(d []int) history.Value {
	switch len(d) {
	case 0:
		return history.Nil()
	case 1:
		return history.Int(int64(d[0]))
	}
	vs := make([]history.Value, len(d))
	for i, x := range d {
		vs[i] = history.Int(int64(x))
	}
	return history.List(vs...)
}

// validateLinearizes re-checks a counterexample of `linearizes` with the
// history engine, which shares no code with the wrapper automaton: the
// history of the trace must be not (quasi-)linearizable with respect to
// the same specification and relaxation, and that of the trace without
// its last event must be. It returns the history's lines and the engine's
// explanation.
func validateLinearizes(ctx context.Context, spec lts.Automaton, cfg *relax.Config, trace []string) ([]string, string, error) {
	ops, err := TraceHistory(trace, linearize.DefaultNaming)
	if err != nil {
		return nil, "", fmt.Errorf("counterexample rejected: %v", err)
	}
	prefix, err := TraceHistory(trace[:len(trace)-1], linearize.DefaultNaming)
	if err != nil {
		return nil, "", fmt.Errorf("counterexample rejected: %v", err)
	}
	// The history engine finds an operation's event by its name; a lazily
	// compiled specification names an event only once it has offered it,
	// so every completed operation's event is named first (naming one
	// changes nothing else).
	tab := spec.Events()
	for _, o := range ops {
		if o.Status == history.Ok {
			tab.InternName(opEvent(o))
		}
	}
	opt := history.Options{Quasi: cfg, Workers: 1, NoPartition: true}
	full, err := history.CheckOps(ctx, ops, history.FromAutomaton(spec), opt)
	if err != nil {
		return nil, "", fmt.Errorf("counterexample rejected by the history engine: %v", err)
	}
	if full.Verdict != lts.Invalid {
		return nil, "", fmt.Errorf("counterexample rejected: the history engine finds its history %v", full.Verdict)
	}
	pre, err := history.CheckOps(ctx, prefix, history.FromAutomaton(spec), opt)
	if err != nil {
		return nil, "", fmt.Errorf("counterexample rejected by the history engine: %v", err)
	}
	if pre.Verdict != lts.Valid {
		return nil, "", fmt.Errorf("counterexample rejected: the history engine finds the history before its last event %v", pre.Verdict)
	}
	lines := make([]string, len(ops))
	for i := range ops {
		o := &ops[i]
		ret := "pending"
		if o.Status == history.Ok {
			ret = fmt.Sprintf("%d", o.Return+1)
		}
		lines[i] = fmt.Sprintf("%s  (trace events %d..%s)", o.String(), o.Call+1, ret)
	}
	return lines, full.Reason, nil
}

// opEvent is the specification's event of a completed operation:
// OP.ARGS.RESULTS.
func opEvent(o history.Op) string {
	var sb strings.Builder
	sb.WriteString(o.F)
	for _, v := range []history.Value{o.Input, o.Output} {
		vs := []history.Value{v}
		if l, ok := v.List(); ok {
			vs = l
		}
		for _, x := range vs {
			if n, ok := x.Int(); ok {
				fmt.Fprintf(&sb, ".%d", n)
			}
		}
	}
	return sb.String()
}
