package lang

import "slices"

// Array parameters. PAT passes arrays to processes by value: `Tx(1, [a, b,
// 0, 0])`, or `P(g)` with g a global array; the process indexes its
// parameter (`arr[i]`) and may pass it on (`Q(arr)`). Quasar gives such a
// parameter one environment slot per element, so it must know each array
// parameter's length from its calls: paramLens infers it, before the
// bodies are checked, by a fixpoint over every call (a parameter passed on
// takes the length of the array it receives). A parameter that receives
// arrays of two lengths, or an array at one call and a scalar at another,
// is an error; only one-dimensional arrays can be passed.

// eachRef calls f for every process reference in p, in source order,
// iteratively (the parser bounds the nesting, but a walk needs no stack of
// its own).
func eachRef(p Proc, f func(*RefProc)) {
	stack := []Proc{p}
	push := func(ps ...Proc) { // the first on top
		for _, q := range slices.Backward(ps) {
			stack = append(stack, q)
		}
	}
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch q := q.(type) {
		case *RefProc:
			f(q)
		case *PrefixProc:
			push(q.Next)
		case *MultiPrefixProc:
			push(q.Next)
		case *ChanOutProc:
			push(q.Next)
		case *ChanInProc:
			push(q.Next)
		case *GuardProc:
			push(q.Body)
		case *IfProc:
			push(q.Then, q.Else)
		case *CaseProc:
			push(q.Default)
			for _, a := range slices.Backward(q.Arms) {
				push(a.Body)
			}
		case *SeqProc:
			push(q.Left, q.Right)
		case *ChoiceProc:
			push(q.Procs...)
		case *ParProc:
			push(q.Procs...)
		case *IndexedProc:
			push(q.Body)
		case *HideProc:
			push(q.Body)
		case *AtomicProc:
			push(q.Body)
		case *InterruptProc:
			push(q.Left, q.Right)
		}
	}
}

// argLen is what a call passes for one parameter: its length if it
// is an array (0 for a scalar), known is false when it cannot tell yet
// (an enclosing parameter whose length is still open).
func (c *checker) argLen(a Expr, caller *ProcDecl) (n int, known bool, err *posErr) {
	switch a := a.(type) {
	case *ArrayLit:
		n := 0
		for _, el := range a.Elems {
			switch {
			case el.Value != nil && isArrayLit(el.Value):
				return 0, true, &posErr{el.Value.Pos(), "only one-dimensional arrays can be passed to a process"}
			case el.Count != nil:
				k, ok := c.constInt(el.Count, nil, "the count of a repeated element of an array argument")
				if !ok {
					return 0, true, &posErr{} // reported
				}
				n += int(max(k, 0))
			case el.To != nil:
				lo, ok1 := c.constInt(el.Value, nil, "a range bound of an array argument")
				hi, ok2 := c.constInt(el.To, nil, "a range bound of an array argument")
				if !ok1 || !ok2 {
					return 0, true, &posErr{} // reported
				}
				if hi >= lo {
					n += int(min(hi-lo+1, maxArray+1))
				}
			default:
				n++
			}
			if n > maxArray {
				return 0, true, &posErr{a.Pos(), "array argument too large"}
			}
		}
		if n == 0 {
			return 0, true, &posErr{a.Pos(), "an array argument must have an element"}
		}
		return n, true, nil
	case *Ident:
		sym := c.globals[a.Name]
		if caller != nil {
			for _, p := range caller.Params {
				if p.Name == a.Name {
					l, ok := c.info.ParamLens[p]
					return l, ok, nil
				}
			}
		}
		if sym != nil && sym.Kind == SymVar && sym.Slot < len(c.info.Vars) {
			if dims := c.info.Vars[sym.Slot].Dims; len(dims) == 1 {
				return dims[0], true, nil
			} else if len(dims) > 1 {
				return 0, true, &posErr{a.Pos(), "only one-dimensional arrays can be passed to a process"}
			}
		}
	}
	return 0, true, nil
}

func isArrayLit(e Expr) bool { _, ok := e.(*ArrayLit); return ok }

// paramLens fills Info.ParamLens (see the comment at the top of the file).
func (c *checker) paramLens() {
	type site struct {
		ref    *RefProc
		caller *ProcDecl // nil for an assertion
	}
	var sites []site
	for _, d := range c.m.Decls {
		switch x := d.(type) {
		case *ProcDecl:
			eachRef(x.Body, func(r *RefProc) { sites = append(sites, site{r, x}) })
		case *AssertDecl:
			for _, p := range []Proc{x.Left, x.Right} {
				if p != nil {
					eachRef(p, func(r *RefProc) { sites = append(sites, site{r, nil}) })
				}
			}
		}
	}
	from := map[*Ident]Pos{} // where a parameter's length was set
	failed := c.badParams
	for changed := true; changed; {
		changed = false
		for _, s := range sites {
			callee := c.info.Procs[s.ref.Name.Name]
			if callee == nil || len(callee.Params) != len(s.ref.Args) {
				continue // reported by the checker
			}
			for i, a := range s.ref.Args {
				prm := callee.Params[i]
				if failed[prm] {
					continue
				}
				n, known, err := c.argLen(a, s.caller)
				if err != nil {
					if err.msg != "" {
						c.errorf(err.pos, "%s", err.msg)
					}
					failed[prm] = true
					c.badArgs[a] = true
					continue
				}
				if !known || n == 0 {
					continue
				}
				if prev, ok := c.info.ParamLens[prm]; ok {
					if prev != n {
						c.errorf(a.Pos(), "parameter %s of %s receives arrays of %d and %d elements (at %s); Quasar needs one length per array parameter",
							prm.Name, callee.Name.Name, n, prev, from[prm])
						failed[prm] = true
						c.badArgs[a] = true
					}
					continue
				}
				c.info.ParamLens[prm] = n
				from[prm] = a.Pos()
				changed = true
			}
		}
	}
	// A scalar passed where another call passes an array.
	for _, s := range sites {
		callee := c.info.Procs[s.ref.Name.Name]
		if callee == nil || len(callee.Params) != len(s.ref.Args) {
			continue
		}
		for i, a := range s.ref.Args {
			prm := callee.Params[i]
			want, isArr := c.info.ParamLens[prm]
			if !isArr || failed[prm] {
				continue
			}
			// After the fixpoint, a parameter with no length is a scalar.
			if n, _, err := c.argLen(a, s.caller); err == nil && n == 0 {
				c.errorf(a.Pos(), "parameter %s of %s is an array of %d elements (from the call at %s), found a scalar", prm.Name, callee.Name.Name, want, from[prm])
				failed[prm] = true
				c.badArgs[a] = true
			}
		}
	}
}

// posErr is an error of an array argument, at a position inside it; one
// with no message has been reported already.
type posErr struct {
	pos Pos
	msg string
}
