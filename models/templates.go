package models

import (
	"fmt"
	"strings"
	"sync"
	"text/template"
)

// templates parses every lib/*.tmpl once. common.tmpl holds the shared
// specifications ({{template "fifo" .}} ...); each family is named by its
// file name.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("lib").Funcs(funcs).ParseFS(lib, "lib/*.tmpl"))
})

var funcs = template.FuncMap{
	// seq n is 0, 1, ..., n-1; rng a b is a, a+1, ..., b.
	"seq": func(n int) []int { return rng(0, n-1) },
	"rng": rng,
	"add": func(a, b int) int { return a + b },
	"sub": func(a, b int) int { return a - b },
	"mul": func(a, b int) int { return a * b },
	// shift a n: remove a[0] from the n-element array a, unrolled (the
	// language has loops, but straight-line blocks keep models simple to
	// read and to compile).
	"shift": func(a string, n int) string { return removeAt(a, 0, n) },
	// removeAt a i n: remove a[i] from the n-element array a.
	"removeAt": removeAt,
	// set returns a copy of the data map with key = value.
	"set": func(m map[string]any, k string, v any) map[string]any {
		c := make(map[string]any, len(m)+1)
		for kk, vv := range m {
			c[kk] = vv
		}
		c[k] = v
		return c
	},
	// unlink k nseg t: the statements that unlink the head segment of a
	// segmented structure kept in positions 0..nseg-1 (the head at 0): every
	// segment moves down one position, the last position becomes a fresh
	// segment, and every live register (>= 0) that names a position follows
	// its segment (a register naming the unlinked head becomes -1: stale).
	"unlink": unlink,
	// regs t: "[-1, -1, ...]", t dead registers.
	"regs": func(t int) string { return "[" + strings.TrimSuffix(strings.Repeat("-1, ", t), ", ") + "]" },
	// noneEq a n x: "a[0] != x && ... && a[n-1] != x".
	"noneEq": func(a string, n, x int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("%s[%d] != %d", a, i, x)
		}
		return strings.Join(parts, " && ")
	},
	// allZero a lo hi: "a[lo] == 0 && ... && a[hi] == 0", or "true".
	"allZero": func(a string, lo, hi int) string {
		if hi < lo {
			return "true"
		}
		var parts []string
		for i := lo; i <= hi; i++ {
			parts = append(parts, fmt.Sprintf("%s[%d] == 0", a, i))
		}
		return strings.Join(parts, " && ")
	},
}

func rng(a, b int) []int {
	var s []int
	for i := a; i <= b; i++ {
		s = append(s, i)
	}
	return s
}

func removeAt(a string, i, n int) string {
	var b strings.Builder
	for j := i; j < n-1; j++ {
		fmt.Fprintf(&b, "%s[%d] = %s[%d]; ", a, j, a, j+1)
	}
	fmt.Fprintf(&b, "%s[%d] = 0;", a, n-1)
	return b.String()
}

func unlink(k, nseg, t int) string {
	var b strings.Builder
	for p := 0; p < nseg; p++ {
		for i := 0; i < k; i++ {
			if p < nseg-1 {
				fmt.Fprintf(&b, "slot[%d] = slot[%d]; ", p*k+i, (p+1)*k+i)
			} else {
				fmt.Fprintf(&b, "slot[%d] = 0; ", p*k+i)
			}
		}
	}
	for _, a := range []string{"enqc", "deqc"} {
		for p := 0; p < nseg-1; p++ {
			fmt.Fprintf(&b, "%s[%d] = %s[%d]; ", a, p, a, p+1)
		}
		fmt.Fprintf(&b, "%s[%d] = 0; ", a, nseg-1)
	}
	for u := 0; u < t; u++ {
		fmt.Fprintf(&b, "if (es[%d] >= 0) { es[%d] = es[%d] - 1; } if (ds[%d] >= 0) { ds[%d] = ds[%d] - 1; } ", u, u, u, u, u, u)
	}
	return strings.TrimSpace(b.String())
}
