// Package modeltest compiles models of the library for tests and
// benchmarks of the checking packages.
package modeltest

import (
	"testing"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/models"
)

// Compile generates the library model name with params, and parses, checks
// and compiles it; it fails tb on any error.
func Compile(tb testing.TB, name string, params map[string]int) (*csp.Program, *lang.Checked, []byte) {
	tb.Helper()
	file, src, err := models.Generate(name, params)
	if err != nil {
		tb.Fatal(err)
	}
	prog, c := CompileSource(tb, file, src)
	return prog, c, src
}

// CompileSource parses, checks and compiles the model src read from file;
// it fails tb on any error.
func CompileSource(tb testing.TB, file string, src []byte) (*csp.Program, *lang.Checked) {
	tb.Helper()
	m, err := lang.Parse(file, src)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := lang.Check(m)
	if err != nil {
		tb.Fatal(err)
	}
	prog, err := csp.Compile(c)
	if err != nil {
		tb.Fatal(err)
	}
	return prog, c
}
