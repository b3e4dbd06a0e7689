package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/quasar-verify/quasar/lang"
)

// positioned matches an error message that starts with "file:line:col: "
// (or "file:line: ").
var positioned = regexp.MustCompile(`^([^\s:][^:\n]*):(\d+)(?::(\d+))?: `)

// sourceError carries the sources an error may point into, so that the
// error printer can show the offending line under the message even when
// the source is not a file on disk (the built-in models, standard input).
type sourceError struct {
	err     error
	sources map[string][]byte
}

func (e *sourceError) Error() string { return e.err.Error() }
func (e *sourceError) Unwrap() error { return e.err }

// printError prints err on w: each error of a list on its own, each
// positioned one as "file:line:col: msg" followed by the source line and a
// caret under the column; others prefixed by "quasar: ".
func printError(w io.Writer, err error) {
	var sources map[string][]byte
	var se *sourceError
	if errors.As(err, &se) {
		sources = se.sources
	}
	for _, e := range leaves(err) {
		fmt.Fprint(w, formatError(e, sources))
	}
}

// leaves flattens error lists (errors.Join, lang's error list) so that each
// error gets its own line and caret.
func leaves(err error) []error {
	if se, ok := err.(*sourceError); ok {
		return leaves(se.err)
	}
	if l, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range l.Unwrap() {
			out = append(out, leaves(e)...)
		}
		if len(out) > 0 {
			return out
		}
	}
	return []error{err}
}

// formatError renders one error, with a newline at the end. The caret
// rendering is lang's, for the model's errors and for the positioned
// messages of other packages (history files, relaxation specs) alike.
func formatError(err error, sources map[string][]byte) string {
	src := func(file string) []byte {
		if b, ok := sources[file]; ok {
			return b
		}
		b, _ := os.ReadFile(file)
		return b
	}
	if len(lang.Errors(err)) > 0 {
		return lang.FormatError(err, src) + "\n"
	}
	msg := strings.TrimRight(err.Error(), "\n")
	m := positioned.FindStringSubmatch(msg)
	switch {
	case m == nil:
		return "quasar: " + msg + "\n"
	case m[3] == "" || strings.Contains(msg, "\n"):
		return msg + "\n" // no column to point at, or already rendered
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	e := &lang.Error{Pos: lang.Pos{File: m[1], Line: line, Col: col}, Msg: msg[len(m[0]):]}
	return lang.FormatError(e, src) + "\n"
}
