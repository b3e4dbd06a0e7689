package lang

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Error is a positioned error of the front end (lexer, parser, checker).
// Its message is lower case without a final period; Error() renders it as
// `file:line:col: message`.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		if e.Pos.File != "" {
			return e.Pos.File + ": " + e.Msg
		}
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Position returns where the error is (for callers that render carets).
func (e *Error) Position() Pos { return e.Pos }

// ErrorList is a list of positioned errors, like go/scanner.ErrorList.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Pos, msg string) { *l = append(*l, &Error{Pos: pos, Msg: msg}) }

// Addf appends a formatted error at pos.
func (l *ErrorList) Addf(pos Pos, format string, args ...any) {
	l.Add(pos, fmt.Sprintf(format, args...))
}

func (l ErrorList) Len() int { return len(l) }

// Sort sorts the list by file, line, column, then message, and removes
// exact duplicates.
func (l *ErrorList) Sort() {
	s := *l
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i].Pos, s[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return s[i].Msg < s[j].Msg
	})
	out := s[:0]
	for i, e := range s {
		if i > 0 && e.Pos == s[i-1].Pos && e.Msg == s[i-1].Msg {
			continue
		}
		out = append(out, e)
	}
	*l = out
}

// Error renders the first error and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns nil for an empty list, and the list otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Errors returns the positioned errors inside err: the list itself, a
// single *Error, or nil if err carries none.
func Errors(err error) ErrorList {
	var l ErrorList
	if errors.As(err, &l) {
		return l
	}
	var e *Error
	if errors.As(err, &e) {
		return ErrorList{e}
	}
	return nil
}

// FormatError renders err for a terminal: each positioned error as
// `file:line:col: msg`, then the source line and a caret under the column
// (tabs expanded to 8 columns, columns counted in runes). src returns the
// contents of a file, or nil if unknown. Errors without positions are
// rendered as err.Error().
func FormatError(err error, src func(file string) []byte) string {
	if err == nil {
		return ""
	}
	list := Errors(err)
	if len(list) == 0 {
		return err.Error()
	}
	var sb strings.Builder
	for i, e := range list {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(e.Error())
		if !e.Pos.IsValid() || src == nil {
			continue
		}
		line, ok := sourceLine(src(e.Pos.File), e.Pos.Line)
		if !ok {
			continue
		}
		text, caret := expandTabs(line, e.Pos.Col)
		sb.WriteString("\n\t")
		sb.WriteString(text)
		sb.WriteString("\n\t")
		sb.WriteString(strings.Repeat(" ", caret))
		sb.WriteByte('^')
	}
	return sb.String()
}

// sourceLine returns line n (1-based) of src without its line end.
func sourceLine(src []byte, n int) (string, bool) {
	if src == nil {
		return "", false
	}
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	s := strings.TrimSuffix(string(src), "\r")
	s = strings.TrimPrefix(s, "\ufeff")
	return s, true
}

// expandTabs expands the tabs of line and returns the display column (0-based)
// of rune column col (1-based).
func expandTabs(line string, col int) (string, int) {
	var sb strings.Builder
	caret, w, r := -1, 0, 1
	for _, c := range line {
		if r == col {
			caret = w
		}
		r++
		if c == '\t' {
			n := 8 - w%8
			sb.WriteString(strings.Repeat(" ", n))
			w += n
			continue
		}
		if !utf8.ValidRune(c) {
			c = utf8.RuneError
		}
		sb.WriteRune(c)
		w++
	}
	if caret < 0 {
		caret = w
	}
	return sb.String(), caret
}
