package lts

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DefaultExportLimit is the largest graph Export writes unless told
// otherwise: pictures of bigger graphs are unreadable.
const DefaultExportLimit = 10000

// ErrTooLarge is wrapped by the error Export returns when the reachable
// graph has more states than the limit.
var ErrTooLarge = fmt.Errorf("graph too large to export")

// Format is an export format.
type Format int

const (
	DOT Format = iota // Graphviz
	AUT               // Aldebaran (CADP, mCRL2): des (init, #transitions, #states), then (from,"label",to)
)

// graphOf explores sys (BFS, states numbered in discovery order from 0).
func graphOf(ctx context.Context, sys System, limit int) (states []State, edges [][]Transition, index map[State]int, err error) {
	if limit <= 0 {
		limit = DefaultExportLimit
	}
	index = map[State]int{sys.Initial(): 0}
	states = []State{sys.Initial()}
	for i := 0; i < len(states); i++ {
		if i&1023 == 0 && ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		ts, err := sys.Successors(states[i], nil)
		if err != nil {
			return nil, nil, nil, err
		}
		edges = append(edges, ts)
		for _, t := range ts {
			if _, ok := index[t.Target]; !ok {
				if len(states) >= limit {
					return nil, nil, nil, fmt.Errorf("%w: more than %d states (raise the limit, or check the model without exporting it)", ErrTooLarge, limit)
				}
				index[t.Target] = len(states)
				states = append(states, t.Target)
			}
		}
	}
	return states, edges, index, nil
}

// Export writes the reachable graph of sys in format f. It refuses (with
// ErrTooLarge) graphs of more than limit states (DefaultExportLimit if
// limit <= 0). In DOT, terminated states are double circles and, if sys
// describes its states, each state's tooltip shows its variables. In AUT,
// tau is written "i", the internal action of the format.
func Export(ctx context.Context, sys System, f Format, w io.Writer, limit int) error {
	states, edges, index, err := graphOf(ctx, sys, limit)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	tab := sys.Events()
	switch f {
	case AUT:
		n := 0
		for _, ts := range edges {
			n += len(ts)
		}
		fmt.Fprintf(bw, "des (0,%d,%d)\n", n, len(states))
		for i, ts := range edges {
			for _, t := range ts {
				label := "i"
				if t.Event != Tau {
					label = tab.Name(t.Event)
				}
				fmt.Fprintf(bw, "(%d,%s,%d)\n", i, strconv.Quote(label), index[t.Target])
			}
		}
	case DOT:
		term, _ := sys.(Terminator)
		desc, _ := sys.(Describer)
		fmt.Fprintln(bw, "digraph lts {")
		fmt.Fprintln(bw, "  node [shape=circle, fontsize=10];")
		fmt.Fprintln(bw, "  start [shape=point];")
		fmt.Fprintln(bw, "  start -> s0;")
		for i, s := range states {
			attrs := []string{fmt.Sprintf("label=%q", strconv.Itoa(i))}
			if term != nil && term.Terminated(s) {
				attrs = append(attrs, "shape=doublecircle")
			} else if len(edges[i]) == 0 {
				attrs = append(attrs, "style=filled", "fillcolor=\"#f4a6a6\"")
			}
			if desc != nil {
				var parts []string
				for _, b := range desc.Describe(s) {
					parts = append(parts, b.Name+"="+b.Value)
				}
				attrs = append(attrs, fmt.Sprintf("tooltip=%q", strings.Join(parts, "\n")))
			}
			fmt.Fprintf(bw, "  s%d [%s];\n", i, strings.Join(attrs, ", "))
		}
		for i, ts := range edges {
			for _, t := range ts {
				label := tab.Name(t.Event)
				style := ""
				if t.Event == Tau {
					style = ", style=dashed"
				}
				fmt.Fprintf(bw, "  s%d -> s%d [label=%q%s];\n", i, index[t.Target], label, style)
			}
		}
		fmt.Fprintln(bw, "}")
	default:
		return fmt.Errorf("lts: unknown export format %d", f)
	}
	return bw.Flush()
}
