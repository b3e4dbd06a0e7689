package csp

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestSemantics runs the cases of testdata/lts/*.txtar: each archive has a
// model (model.csp) and, for each process name P to check, a section "P"
// with the expected LTS written by hand from docs/semantics.md (states are
// compared up to renaming), or "P.error" with the expected run-time error.
func TestSemantics(t *testing.T) {
	files, err := filepath.Glob("../testdata/lts/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no test cases")
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var src string
		for _, f := range ar.Files {
			if f.Name == "model.csp" {
				src = string(f.Data)
			}
		}
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			p := compileSrc(t, src)
			for _, f := range ar.Files {
				if f.Name == "model.csp" {
					continue
				}
				proc, isErr := strings.CutSuffix(f.Name, ".error")
				t.Run(f.Name, func(t *testing.T) {
					sys, err := p.ProcessByName(proc)
					if err != nil {
						t.Fatal(err)
					}
					got, err := actualGraph(t, sys, 1000)
					if isErr {
						want := strings.TrimSpace(string(f.Data))
						if err == nil || err.Error() != want {
							t.Fatalf("error = %v, want %s", err, want)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					want, err := parseGraph(string(f.Data))
					if err != nil {
						t.Fatal(err)
					}
					if !isomorphic(want, got) {
						t.Errorf("LTS differs\n--- got\n%s\n--- want\n%s", got, want)
					}
				})
			}
		})
	}
}
