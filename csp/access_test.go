package csp

import (
	"fmt"
	"strings"
	"testing"
)

// TestAccessIndexOrder: elements of arrays of two and five dimensions
// (more than access keeps on its stack), read and written at constant,
// variable and parameter indices, in guards, event data and blocks, with
// blocks generic and specialised. The oracle is the row-major layout
// of the language's definition, computed here: element (i1, ..., ik) of
// dimensions (d1, ..., dk) is number ((i1*d2 + i2)*d3 + ...) + ik, the
// order of a nested initial list. The model initialises element number n
// to n + 1 and multiplies what it reads by 10 after reading it.
func TestAccessIndexOrder(t *testing.T) {
	type arr struct {
		name string
		dims []int
	}
	cases := []arr{{"m", []int{2, 3}}, {"q", []int{2, 1, 3, 1, 2}}}
	for _, a := range cases {
		size := 1
		for _, d := range a.dims {
			size *= d
		}
		// The model visits the elements in the order of a counter k:
		// element k of the layout has the indices idx(k).
		idx := func(k int) []int {
			out := make([]int, len(a.dims))
			for d := len(a.dims) - 1; d >= 0; d-- {
				out[d] = k % a.dims[d]
				k /= a.dims[d]
			}
			return out
		}
		// Index expressions of the counter k (a variable), as the
		// language computes them.
		var ix []string
		div := 1
		for d := len(a.dims) - 1; d >= 0; d-- {
			ix = append([]string{fmt.Sprintf("[(k / %d) %% %d]", div, a.dims[d])}, ix...)
			div *= a.dims[d]
		}
		elem := a.name + strings.Join(ix, "")
		// The last element, at constant indices, and at the parameter's.
		var last, par []string
		for _, d := range a.dims {
			last = append(last, fmt.Sprintf("[%d]", d-1))
			par = append(par, fmt.Sprintf("[(p + %d) %% %d]", d-1, d))
		}
		// The initial value, a nested list in the language's order:
		// element number n is n + 1.
		next := 0
		var lit func(d int) string
		lit = func(d int) string {
			if d == len(a.dims) {
				next++
				return fmt.Sprint(next)
			}
			parts := make([]string, a.dims[d])
			for i := range parts {
				parts[i] = lit(d + 1)
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "var %s", a.name)
		for _, d := range a.dims {
			fmt.Fprintf(&b, "[%d]", d)
		}
		fmt.Fprintf(&b, " = %s;\nvar k = 0;\nvar started = 0;\n", lit(0))
		// A first step whose block reads and writes every element in
		// the layout's order (each becomes itself plus 0), then the walk.
		fmt.Fprintf(&b, "Init() = [started == 0] init{while (k < %d) { %s = %s + 0; k = k + 1; } k = 0; started = 1;} -> Walk(0);\n", size, elem, elem)
		fmt.Fprintf(&b, "Walk(p) = [k < %d && %s > 0] e.(%s).(%s).(%s){%s = %s * 10; k = k + 1;} -> Walk(p);\n",
			size, elem, elem, a.name+strings.Join(last, ""), a.name+strings.Join(par, ""), elem, elem)
		src := b.String()
		for _, hot := range []bool{false, true} {
			p, err := Compile(mustCheck(t, src))
			if err != nil {
				t.Fatalf("%s: %v\n%s", a.name, err, src)
			}
			if hot {
				p.heatBlocks()
			}
			sys, err := p.ProcessByName("Init")
			if err != nil {
				t.Fatal(err)
			}
			// The oracle: the values the definition gives.
			vals := make([]int, size)
			for n := range vals {
				vals[n] = n + 1
			}
			var want, got []string
			want = append(want, "init")
			num := func(ix []int) int {
				n := 0
				for d, i := range ix {
					n = n*a.dims[d] + i
				}
				return n
			}
			lastN := num(func() []int {
				o := make([]int, len(a.dims))
				for d, n := range a.dims {
					o[d] = n - 1
				}
				return o
			}())
			parN := lastN // p = 0: (0 + d - 1) % d = d - 1
			for k := 0; k < size; k++ {
				n := num(idx(k))
				if n != k {
					t.Fatalf("oracle: element %d has number %d", k, n)
				}
				want = append(want, fmt.Sprintf("e.%d.%d.%d", vals[n], vals[lastN], vals[parN]))
				vals[n] *= 10
			}
			st := sys.Initial()
			for len(got) <= size+1 {
				trs, err := sys.Successors(st, nil)
				if err != nil {
					got = append(got, "error: "+err.Error())
					break
				}
				if len(trs) == 0 {
					break
				}
				if len(trs) != 1 {
					t.Fatalf("%s: %d transitions", a.name, len(trs))
				}
				got = append(got, sys.Events().Name(trs[0].Event))
				st = trs[0].Target
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s (hot %v):\n got %s\nwant %s\n%s", a.name, hot, got, want, src)
			}
		}
	}
}
