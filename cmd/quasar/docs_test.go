package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocExamples runs every shell session shown in README.md and docs/*.md
// and compares what the commands print with what the page shows, so that no
// example can drift from what the CLI does. A session is a fenced block whose
// lines start with "$ "; the lines after a command, up to the next one, are
// its expected output (standard output and standard error). The sessions of
// one page share a work directory, in order. Supported commands:
//
//	$ quasar ARGS [> FILE]   the real command, in-process
//	$ cat FILE               shows FILE; a FILE that does not exist yet is
//	                         created with the lines shown (how a page gives
//	                         its inputs)
//
// Times and memory figures vary from run to run and are compared as
// placeholders. With -update the pages are rewritten with the outputs of
// this run.
func TestDocExamples(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"../../README.md"}, pages...)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		page = filepath.Join(root, page[len("../../"):]) // the steps change the working directory
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		steps := docSteps(string(src))
		if len(steps) == 0 {
			continue
		}
		name, _ := filepath.Rel(root, page)
		t.Run(name, func(t *testing.T) {
			lines := strings.Split(string(src), "\n")
			dir := t.TempDir()
			got := make([]string, len(steps))
			for i, st := range steps {
				want := strings.Join(lines[st.out:st.end], "\n")
				got[i] = runDocStep(t, dir, st, want)
				if normaliseDoc(got[i]) != normaliseDoc(want) && !*update {
					t.Errorf("%s:%d: $ %s\n--- the page shows:\n%s\n--- the command prints:\n%s\n(go test ./cmd/quasar -run DocExamples -update rewrites the page)",
						name, st.out, st.cmd, want, got[i])
				}
			}
			if !*update {
				return
			}
			changed := false
			for i := len(steps) - 1; i >= 0; i-- { // backwards: earlier offsets stay valid
				st := steps[i]
				if normaliseDoc(got[i]) != normaliseDoc(strings.Join(lines[st.out:st.end], "\n")) {
					lines = splice(lines, st, got[i])
					changed = true
				}
			}
			if changed {
				if err := os.WriteFile(page, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// docStep is one "$ command" of a page: its text, and the lines [out, end)
// of the page that show its output.
type docStep struct {
	cmd      string
	out, end int
}

// docSteps finds the commands of the fenced blocks of a page.
func docSteps(src string) []docStep {
	var steps []docStep
	inBlock := false
	for i, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			if n := len(steps); n > 0 && steps[n-1].end == -1 {
				steps[n-1].end = i - 1 // the closing fence
			}
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			if n := len(steps); n > 0 && steps[n-1].end == -1 {
				steps[n-1].end = i
			}
			steps = append(steps, docStep{cmd: cmd, out: i + 1, end: -1})
		}
	}
	return steps
}

// splice replaces the output lines of st by got.
func splice(lines []string, st docStep, got string) []string {
	repl := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if got == "" {
		repl = nil
	}
	out := append([]string{}, lines[:st.out]...)
	out = append(out, repl...)
	return append(out, lines[st.end:]...)
}

// runDocStep runs one command in dir and returns what it printed; want is
// what the page shows (the content of a file that "cat" introduces).
func runDocStep(t *testing.T, dir string, st docStep, want string) string {
	t.Helper()
	args := shellWords(st.cmd)
	redirect := ""
	if n := len(args); n >= 2 && args[n-2] == ">" {
		redirect, args = args[n-1], args[:n-2]
	}
	switch {
	case len(args) == 2 && args[0] == "cat" && redirect == "":
		path := filepath.Join(dir, args[1])
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			data = []byte(strings.TrimRight(want, "\n") + "\n")
			err = os.WriteFile(path, data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	case len(args) >= 1 && args[0] == "quasar":
		var out bytes.Buffer
		t.Chdir(dir)
		if redirect != "" {
			var file bytes.Buffer
			execute(context.Background(), args[1:], strings.NewReader(""), &file, &out)
			if err := os.WriteFile(filepath.Join(dir, redirect), file.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			execute(context.Background(), args[1:], strings.NewReader(""), &out, &out)
		}
		return out.String()
	}
	t.Fatalf("$ %s: a page may show only quasar commands and cat", st.cmd)
	return ""
}

// shellWords splits a command line at blanks, keeping single- and
// double-quoted words whole (the quoting the pages use).
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	quote, inWord := rune(0), false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

var (
	docDuration = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m|h)\b`)
	docBytes    = regexp.MustCompile(`\b\d+(\.\d+)? (B|KiB|MiB|GiB)\b`)
)

// normaliseDoc replaces the figures that vary between runs (times, memory)
// by placeholders and drops trailing blank lines.
func normaliseDoc(s string) string {
	s = docDuration.ReplaceAllString(s, "<time>")
	s = docBytes.ReplaceAllString(s, "<bytes>")
	return strings.TrimRight(s, "\n") + "\n"
}
