package lang

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// This file checks the map of a linearizes assertion:
//
//	#assert Impl() linearizes Queue() map {push_call.t.v -> enq_inv.t.v, push_ret.t -> enq_res.t, ...};
//
// Each entry reads the implementation's events matching its left side as
// the invocation or response on its right, written in the convention of
// docs/linearizes.md (OP_inv.THREAD.ARGS, OP_res.THREAD.RESULTS). As in a
// channel input, a name on the left binds the datum unless it is a
// constant or enum member, which must match; the right side uses the
// bound names and constants.

// linMap checks a.Map. Events are known from the processes' prefixes
// (eventArities): a name no process performs, or a pattern with another
// number of data, is an error, and so is an operation whose arguments and
// results do not add up to its event's data in the specification.
func (c *checker) linMap(a *AssertDecl) {
	if a.Map == nil {
		return
	}
	arities := c.eventArities()
	type half struct {
		m *EventMapping
		n int // arguments or results
	}
	type op struct{ inv, res []half }
	ops := map[string]*op{}
	var names []string
	errs := len(c.errs)
	for i, m := range a.Map {
		bound := c.linPattern(m.From, arities)
		for _, p := range a.Map[:i] {
			if overlaps(p.From, m.From, c.info.Consts) {
				c.errorf(m.From.Pos(), "%s overlaps %s (at %s): an event would match both", eventString(m.From), eventString(p.From), p.From.Pos())
				break
			}
		}
		name := m.To.Name.Name
		var o string
		var res bool
		switch {
		case strings.HasSuffix(name, "_inv") && len(name) > 4:
			o = strings.TrimSuffix(name, "_inv")
		case strings.HasSuffix(name, "_res") && len(name) > 4:
			o, res = strings.TrimSuffix(name, "_res"), true
		default:
			c.errorf(m.To.Pos(), "the right side of a mapping is an invocation OP_inv.THREAD.ARGS or a response OP_res.THREAD.RESULTS, found %s", name)
			continue
		}
		if len(m.To.Data) == 0 {
			c.errorf(m.To.Pos(), "%s names no thread: the first datum of OP%s.THREAD... is the thread", name, name[len(o):])
			continue
		}
		used := map[string]bool{}
		bad := false
		for j, d := range m.To.Data {
			if id, ok := d.(*Ident); ok {
				if sym := bound.names[id.Name]; sym != nil {
					c.info.Uses[id] = sym
					used[id.Name] = true
					continue
				}
			}
			if j == 0 {
				c.errorf(d.Pos(), "the thread of %s must be a name bound on the left side (%s)", name, eventString(m.From))
				bad = true
				continue
			}
			if id, ok := d.(*Ident); ok && c.lookup(nil, id.Name) == nil {
				c.errorf(id.Pos(), "%s is not bound on the left side (%s)", id.Name, eventString(m.From))
				bad = true
				continue
			}
			c.expr(d, bound)
			if _, ok := c.info.Consts[d]; !ok {
				c.errorf(d.Pos(), "the data on the right side are names bound on the left side or constants, found %s", exprString(d))
				bad = true
			}
		}
		for _, d := range m.From.Data {
			if id, ok := d.(*Ident); ok && !bad && bound.names[id.Name] != nil && c.info.Defs[id] != nil && !used[id.Name] {
				c.errorf(id.Pos(), "%s is not used on the right side (%s)", id.Name, eventString(m.To))
			}
		}
		if _, ok := arities[o]; !ok {
			c.unknownEvent(m.To.Name, o, arities, "operation")
			continue
		}
		x := ops[o]
		if x == nil {
			x = &op{}
			ops[o] = x
			names = append(names, o)
		}
		h := half{m, len(m.To.Data) - 1}
		if res {
			x.res = append(x.res, h)
		} else {
			x.inv = append(x.inv, h)
		}
	}
	if len(c.errs) > errs {
		return // the operations' checks would only repeat the entries' errors
	}
	for _, o := range names {
		x := ops[o]
		switch {
		case len(x.inv) == 0:
			c.errorf(x.res[0].m.To.Pos(), "the map gives %s a response but no invocation (%s_inv.THREAD.ARGS)", o, o)
			continue
		case len(x.res) == 0:
			c.errorf(x.inv[0].m.To.Pos(), "the map gives %s an invocation but no response (%s_res.THREAD.RESULTS)", o, o)
			continue
		}
		for _, r := range x.res {
			for _, in := range x.inv {
				if !slices.Contains(arities[o], in.n+r.n) {
					c.errorf(r.m.To.Pos(), "%s carries %s in the model, but %s gives %d and %s %d", o, dataWords(arities[o]),
						eventString(in.m.To), in.n, eventString(r.m.To), r.n)
				}
			}
		}
	}
}

// linPattern checks the left side of a map entry and returns the names it
// binds (recorded in Info.Defs, as SymInput).
func (c *checker) linPattern(e *EventExpr, arities map[string][]int) *scope {
	ps := (*scope)(nil).push()
	switch ar, ok := arities[e.Name.Name]; {
	case e.Name.Name == "tau":
		c.errorf(e.Pos(), "tau is not an invocation or a response")
	case !ok:
		c.unknownEvent(e.Name, e.Name.Name, arities, "event")
	case !slices.Contains(ar, len(e.Data)):
		c.errorf(e.Pos(), "%s carries %s in the model, found %d", e.Name.Name, dataWords(ar), len(e.Data))
	}
	for _, d := range e.Data {
		if id, ok := d.(*Ident); ok {
			if sym := c.lookup(nil, id.Name); sym == nil || (sym.Kind != SymConst && sym.Kind != SymEnum) {
				if prev := ps.names[id.Name]; prev != nil {
					c.errorf(id.Pos(), "%s appears twice in %s", id.Name, eventString(e))
					continue
				}
				sym := &Symbol{Kind: SymInput, Name: id.Name, Decl: id, Type: TypeInt}
				ps.names[id.Name] = sym
				c.info.Defs[id] = sym
				continue
			}
		}
		c.constInt(d, nil, "event pattern data")
	}
	return ps
}

// unknownEvent reports a name no process performs as an event.
func (c *checker) unknownEvent(id *Ident, name string, arities map[string][]int, what string) {
	names := make([]string, 0, len(arities))
	for n := range arities {
		names = append(names, n)
	}
	msg := fmt.Sprintf("unknown %s %s: no process performs it", what, name)
	if best := closest(name, names); best != "" {
		msg += "; did you mean " + best + "?"
	}
	c.errorf(id.Pos(), "%s", msg)
}

// overlaps reports whether some event matches both patterns: same name and
// number of data, and no position where both are different constants.
func overlaps(a, b *EventExpr, consts map[Expr]int64) bool {
	if a.Name.Name != b.Name.Name || len(a.Data) != len(b.Data) {
		return false
	}
	for i := range a.Data {
		x, okx := consts[a.Data[i]]
		y, oky := consts[b.Data[i]]
		if okx && oky && x != y {
			return false
		}
	}
	return true
}

func dataWords(ar []int) string {
	s := make([]string, len(ar))
	for i, n := range ar {
		s[i] = fmt.Sprint(n)
	}
	word := " data"
	if len(ar) == 1 && ar[0] == 1 {
		word = " datum"
	}
	return strings.Join(s, " or ") + word
}

// eventArities returns, for every event name a process performs in a
// prefix, the numbers of data it is performed with (sorted).
func (c *checker) eventArities() map[string][]int {
	out := map[string][]int{}
	add := func(e *EventExpr) {
		if e == nil || e.Name.Name == "tau" {
			return
		}
		if !slices.Contains(out[e.Name.Name], len(e.Data)) {
			out[e.Name.Name] = append(out[e.Name.Name], len(e.Data))
		}
	}
	var walk func(p Proc)
	walk = func(p Proc) {
		switch x := p.(type) {
		case *PrefixProc:
			add(x.Event)
			walk(x.Next)
		case *MultiPrefixProc:
			for _, e := range x.Events {
				add(e)
			}
			walk(x.Next)
		case *ChanOutProc:
			walk(x.Next)
		case *ChanInProc:
			walk(x.Next)
		case *GuardProc:
			walk(x.Body)
		case *IfProc:
			walk(x.Then)
			walk(x.Else)
		case *CaseProc:
			for _, a := range x.Arms {
				walk(a.Body)
			}
			walk(x.Default)
		case *SeqProc:
			walk(x.Left)
			walk(x.Right)
		case *ChoiceProc:
			for _, q := range x.Procs {
				walk(q)
			}
		case *ParProc:
			for _, q := range x.Procs {
				walk(q)
			}
		case *IndexedProc:
			walk(x.Body)
		case *HideProc:
			walk(x.Body)
		case *AtomicProc:
			walk(x.Body)
		case *InterruptProc:
			walk(x.Left)
			walk(x.Right)
		}
	}
	for _, d := range c.m.Decls {
		if p, ok := d.(*ProcDecl); ok {
			walk(p.Body)
		}
	}
	for _, ar := range out {
		sort.Ints(ar)
	}
	return out
}
