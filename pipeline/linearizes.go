package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/lang"
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
		c, err := naming.Read(lts.SplitName(name))
		if err != nil {
			return nil, err
		}
		switch c.Role {
		case linearize.RoleInv:
			if _, busy := open[c.Thread]; busy {
				return nil, fmt.Errorf("thread %d invokes %s with a call pending", c.Thread, name)
			}
			open[c.Thread] = len(ops)
			ops = append(ops, history.Op{
				ID: len(ops) + 1, Process: c.Thread, F: c.Op,
				Input: ints(c.Data), Status: history.Info, Call: int64(i), Return: history.Pending,
			})
		case linearize.RoleRes:
			k, ok := open[c.Thread]
			if !ok {
				return nil, fmt.Errorf("thread %d responds %s with no call pending", c.Thread, name)
			}
			delete(open, c.Thread)
			ops[k].Output, ops[k].Status, ops[k].Return = ints(c.Data), history.Ok, int64(i)
		}
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
func validateLinearizes(ctx context.Context, spec lts.Automaton, cfg *relax.Config, naming linearize.Naming, trace []string) ([]string, string, error) {
	ops, err := TraceHistory(trace, naming)
	if err != nil {
		return nil, "", fmt.Errorf("counterexample rejected: %v", err)
	}
	prefix, err := TraceHistory(trace[:len(trace)-1], naming)
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

// linNaming reads the map of a linearizes assertion (checked by lang) as
// linearize's rules; without a map, the OP_inv/OP_res convention.
func linNaming(a *lang.AssertDecl, info *lang.Info) (linearize.Naming, error) {
	if a.Map == nil {
		return linearize.DefaultNaming, nil
	}
	n := linearize.Naming{Rules: []linearize.Rule{}}
	for _, m := range a.Map {
		r := linearize.Rule{Event: m.From.Name.Name}
		bound := map[string]int{} // name -> its position in the event's data
		datum := func(d lang.Expr) (linearize.Datum, error) {
			if id, ok := d.(*lang.Ident); ok {
				if i, ok := bound[id.Name]; ok {
					return linearize.Datum{Var: i}, nil
				}
			}
			v, ok := info.Consts[d]
			if !ok {
				return linearize.Datum{}, fmt.Errorf("%s: internal error: a map datum is neither bound nor constant", d.Pos())
			}
			return linearize.Datum{Var: -1, Value: int(v)}, nil
		}
		for i, d := range m.From.Data {
			if id, ok := d.(*lang.Ident); ok && info.Defs[id] != nil {
				bound[id.Name] = i
			}
			x, err := datum(d)
			if err != nil {
				return n, err
			}
			r.Match = append(r.Match, x)
		}
		name := m.To.Name.Name
		r.Res = strings.HasSuffix(name, "_res")
		r.Op = name[:len(name)-len("_res")]
		for j, d := range m.To.Data {
			x, err := datum(d)
			if err != nil {
				return n, err
			}
			if j == 0 {
				if x.Var < 0 {
					return n, fmt.Errorf("%s: internal error: the thread is not bound", d.Pos())
				}
				r.Thread = x.Var
				continue
			}
			r.Data = append(r.Data, x)
		}
		n.Rules = append(n.Rules, r)
	}
	return n, nil
}
