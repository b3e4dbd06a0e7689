package csp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// TestLibraryModels compiles every model of the library (models/) and of
// the CLI's test data, and explores every assertion operand under a small
// limit: no compile error, no run-time error, no panic.
func TestLibraryModels(t *testing.T) {
	var files []string
	for _, g := range []string{"../models/lib/*.csp", "../models/testdata/*.csp", "../testdata/pipeline/*.csp"} {
		f, _ := filepath.Glob(g)
		files = append(files, f...)
	}
	if len(files) == 0 {
		t.Skip("no library models")
	}
	limit := 20000
	if testing.Short() {
		limit = 2000
	}
	for _, f := range files {
		m, err := lang.ParseFile(f)
		if err != nil {
			continue // the lang tests own parse errors
		}
		c, err := lang.Check(m)
		if err != nil {
			continue
		}
		p, err := Compile(c)
		if err != nil {
			t.Errorf("%s: compile: %v", f, err)
			continue
		}
		for _, a := range c.Info.Asserts {
			for _, q := range []lang.Proc{a.Left, a.Right} {
				if q == nil {
					continue
				}
				sys, err := p.Process(q)
				if err != nil {
					t.Errorf("%s: %v: %v", f, q.Pos(), err)
					continue
				}
				if _, err := Explore(context.Background(), sys, Options{Limits: lts.Limits{MaxStates: limit, Timeout: 10 * time.Second}}); err != nil {
					t.Errorf("%s: %v: %v", f, q.Pos(), err)
				}
			}
		}
	}
}

// TestEveryDefinition builds and explores (briefly) every definition of
// the language's construct files and of the model library, with zero
// arguments: run-time errors are allowed (the arguments are arbitrary),
// internal errors are not.
func TestEveryDefinition(t *testing.T) {
	var files []string
	for _, g := range []string{"../testdata/lang/constructs/*.csp", "../models/lib/*.csp", "../models/testdata/*.csp"} {
		f, _ := filepath.Glob(g)
		files = append(files, f...)
	}
	if len(files) == 0 {
		t.Skip("no construct files")
	}
	for _, f := range files {
		m, err := lang.ParseFile(f)
		if err != nil {
			continue
		}
		c, err := lang.Check(m)
		if err != nil {
			continue
		}
		p, err := Compile(c)
		if err != nil {
			t.Errorf("%s: compile: %v", f, err)
			continue
		}
		for name, pd := range c.Info.Procs {
			sys, err := p.ProcessByName(name, make([]int64, len(pd.Params))...)
			if err != nil {
				if strings.Contains(err.Error(), "internal error") {
					t.Errorf("%s: %s: %v", f, name, err)
				}
				continue
			}
			r, err := Explore(context.Background(), sys, Options{Limits: lts.Limits{MaxStates: 5000, Timeout: 5 * time.Second}})
			if err != nil || (r.Err != nil && strings.Contains(r.Err.Error(), "internal error")) {
				t.Errorf("%s: %s: %v %v", f, name, err, r.Err)
			}
		}
	}
}
