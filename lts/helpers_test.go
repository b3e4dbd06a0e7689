package lts

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
)

// compileSrc parses, checks and compiles a model.
func compileSrc(t testing.TB, src string) *Program {
	t.Helper()
	m, err := lang.Parse("test.csp", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	c, err := lang.Check(m)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	p, err := Compile(c)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

// ltsText renders the reachable graph with states numbered in BFS order:
// one "from event to" line per transition, and "N term" for terminated
// states, sorted.
func ltsText(t testing.TB, sys System) string {
	t.Helper()
	num := map[State]int{}
	order := []State{sys.Initial()}
	num[sys.Initial()] = 0
	var lines []string
	term, _ := sys.(Terminator)
	for i := 0; i < len(order); i++ {
		s := order[i]
		ts, err := sys.Successors(s, nil)
		if err != nil {
			lines = append(lines, fmt.Sprintf("%d error %v", i, err))
			continue
		}
		if term != nil && term.Terminated(s) {
			lines = append(lines, fmt.Sprintf("%d term", i))
		}
		for _, tr := range ts {
			j, ok := num[tr.Target]
			if !ok {
				j = len(order)
				num[tr.Target] = j
				order = append(order, tr.Target)
			}
			lines = append(lines, fmt.Sprintf("%d %s %d", i, sys.Events().Name(tr.Event), j))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func explore(t testing.TB, sys System) *Result {
	t.Helper()
	r, err := Explore(context.Background(), sys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
