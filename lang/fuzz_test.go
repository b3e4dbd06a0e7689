package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/tools/txtar"
)

// FuzzParse runs Parse, Check and Format on arbitrary input: errors are
// fine, panics are bugs. A model that parses must also survive the printer
// round trip. Seeds: every model of the repository and every error case.
func FuzzParse(f *testing.F) {
	for _, path := range repoModels(f) {
		if src, err := os.ReadFile(path); err == nil {
			f.Add(src)
		}
	}
	archives, _ := filepath.Glob(filepath.Join(testdata, "errors", "*.txtar"))
	for _, a := range archives {
		if ar, err := txtar.ParseFile(a); err == nil {
			for _, file := range ar.Files {
				f.Add(file.Data)
			}
		}
	}
	f.Add([]byte("P = a -> P [] b -> Skip; Q;"))
	f.Fuzz(func(t *testing.T, src []byte) {
		start := time.Now()
		defer func() {
			// Front-end time must stay about linear in the input.
			if d := time.Since(start); d > 2*time.Second && len(src) < 1<<16 {
				t.Fatalf("took %v on %d bytes", d, len(src))
			}
		}()
		fsys := fstest.MapFS{"fuzz.csp": {Data: src}} // includes resolve in here, never on disk
		m, err := ParseFS(fsys, "fuzz.csp")
		internal := func(err error) {
			// The API turns panics into "internal error": for the fuzzer they are bugs.
			if err != nil && strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%v\ninput:\n%s", err, src)
			}
		}
		internal(err)
		if err != nil {
			if len(Errors(err)) == 0 {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		_, err = Check(m)
		internal(err)
		out := Format(m)
		m2, err := Parse("fuzz.csp", out)
		if err != nil {
			t.Fatalf("formatted model does not parse: %v\ninput:\n%s\nformatted:\n%s", err, src, out)
		}
		if d1, d2 := Dump(m), Dump(m2); d1 != d2 {
			t.Fatalf("round trip changed the tree:\n%s\n----\n%s\ninput:\n%s\nformatted:\n%s", d1, d2, src, out)
		}
	})
}
