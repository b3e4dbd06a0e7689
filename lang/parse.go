package lang

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Parse parses a model. filename is used in positions and to resolve
// `#include "f.csp"` relative to the including file's directory, on the
// operating system's file system. An included file is read once: a second
// include of the same file is ignored; an include cycle is an error.
func Parse(filename string, src []byte) (*File, error) {
	p := &includer{
		read: os.ReadFile,
		dir:  filepath.Dir,
		join: filepath.Join,
	}
	return p.parse(filename, src)
}

// ParseFile reads and parses the model at path.
func ParseFile(path string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// ParseFS parses the model name in fsys (for embedded models); includes are
// resolved relative to the including file within fsys.
func ParseFS(fsys fs.FS, name string) (*File, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	p := &includer{
		read: func(n string) ([]byte, error) { return fs.ReadFile(fsys, n) },
		dir:  path.Dir,
		join: path.Join,
		fs:   true,
	}
	return p.parse(name, src)
}

// includer parses a file and, recursively, the files it includes.
type includer struct {
	read  func(name string) ([]byte, error)
	dir   func(string) string
	join  func(elem ...string) string
	fs    bool // paths are fs.FS names: none is absolute
	seen  map[string]bool
	stack []string
	errs  ErrorList
}

func (p *includer) parse(filename string, src []byte) (m *File, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, &Error{Pos: Pos{File: filename}, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	p.seen = map[string]bool{filepath.Clean(filename): true}
	p.stack = []string{filepath.Clean(filename)}
	m = p.file(filename, src)
	if m == nil || len(p.errs) > 0 {
		p.errs.Sort()
		return nil, p.errs
	}
	return m, nil
}

// file parses one file and splices in its includes.
func (p *includer) file(filename string, src []byte) *File {
	m, errs := parseOne(filename, src)
	if len(errs) > 0 {
		p.errs = append(p.errs, errs...)
		return nil
	}
	out := &File{Span: m.Span, Path: m.Path, Decls: make([]Decl, 0, len(m.Decls)), Comments: m.Comments}
	for _, d := range m.Decls {
		out.Decls = append(out.Decls, d)
		inc, ok := d.(*IncludeDecl)
		if !ok {
			continue
		}
		target := inc.Path
		if !filepath.IsAbs(target) || p.fs {
			target = p.join(p.dir(filename), target)
		}
		target = filepath.Clean(target)
		if i := indexOf(p.stack, target); i >= 0 {
			chain := append(append([]string{}, p.stack[i:]...), target)
			p.errs.Addf(inc.Pos(), "include cycle: %s", strings.Join(chain, " -> "))
			continue
		}
		if p.seen[target] {
			continue
		}
		p.seen[target] = true
		isrc, err := p.read(target)
		if err != nil {
			p.errs.Addf(inc.Pos(), "cannot include %q: %s", inc.Path, ioMessage(err))
			continue
		}
		p.stack = append(p.stack, target)
		if sub := p.file(target, isrc); sub != nil {
			out.Decls = append(out.Decls, sub.Decls...)
		}
		p.stack = p.stack[:len(p.stack)-1]
	}
	return out
}

func indexOf(s []string, x string) int {
	for i, y := range s {
		if y == x {
			return i
		}
	}
	return -1
}

func ioMessage(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "file does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// parseOne scans, parses and lowers one file (includes not resolved).
func parseOne(filename string, src []byte) (*File, ErrorList) {
	sc := newScanner(filename, src)
	pl, err := lexer.Upgrade(sc)
	if err != nil {
		return nil, Errors(err)
	}
	toks := pl.Range(0, lexer.RawCursor(sc.count))
	if e := unsupported(toks); e != nil {
		return nil, ErrorList{e}
	}
	tree, err := grammar.ParseFromLexer(pl)
	if err != nil {
		return nil, ErrorList{convertError(filename, toks, err)}
	}
	l := &lowerer{file: filename, src: src, toks: toks, comments: sc.comments}
	return l.model(tree), nil
}

// unsupported reports the first C# construct of PAT that Quasar does not
// support, so that the user gets its name rather than a syntax error.
func unsupported(toks []lexer.Token) *Error {
	val := func(i int) string {
		if i < len(toks) {
			return toks[i].Value
		}
		return ""
	}
	for i, t := range toks {
		var msg string
		switch {
		case t.Type == tokDirective && t.Value == "#import":
			msg = "C# libraries (#import) are not supported"
		case t.Type == tokKeyword && t.Value == "new":
			msg = "C# objects (new) are not supported"
		case t.Type == tokKeyword && (t.Value == "var" || t.Value == "hvar") && val(i+1) == "<":
			msg = "C# user-defined types (var<T>) are not supported"
		case (t.Type == tokIdent || t.Value == "]") && val(i+1) == "." && i+2 < len(toks) &&
			toks[i+2].Type == tokIdent && val(i+3) == "(":
			t = toks[i+2]
			msg = "C# method calls (x.method()) are not supported"
		}
		if msg != "" {
			return &Error{Pos: posOf(t.Pos), Msg: msg}
		}
	}
	return nil
}

var unexpectedRx = regexp.MustCompile(`^unexpected token "(?s:.*)"(?: \(expected (.*)\))?$`)

// convertError turns a participle error into an *Error in the user's words:
// "expected X, found Y".
func convertError(filename string, toks []lexer.Token, err error) *Error {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return &Error{Pos: Pos{File: filename}, Msg: err.Error()}
	}
	p := perr.Position()
	pos := posOf(p)
	if pos.File == "" {
		pos.File = filename
	}
	msg := perr.Message()
	if m := unexpectedRx.FindStringSubmatch(msg); m != nil {
		found := "end of file"
		for _, t := range toks {
			if t.Pos.Offset == p.Offset {
				found = describeToken(t)
				break
			}
		}
		what := "declaration"
		if m[1] != "" {
			what = expectedWords(m[1])
		}
		return &Error{Pos: pos, Msg: "expected " + what + ", found " + found}
	}
	return &Error{Pos: pos, Msg: msg}
}

// grammarWords maps grammar rule names to the user's words.
var grammarWords = map[string]string{
	"Declaration": "declaration", "DefineDecl": "#define", "EnumDecl": "enum", "VarDecl": "var",
	"ChannelDecl": "channel", "AlphabetDecl": "#alphabet", "IncludeDecl": "#include",
	"Assertion": "assertion", "Definition": "process definition", "Name": "name",
	"RangeSet": "range {lo..hi}", "ProcRef": "process name", "QuasiSpec": `"quasi"`,
	"QuasiClass": "event class", "EventRef": "event", "MapEntry": "event mapping", "LtlText": "LTL formula",
	"process": "process", "expression": "expression", "unary": "expression", "dataExpr": "event data",
	"block": "block {..}", "eventSet": "event set {..}", "arrayLit": "array [..]",
	"<ident>": "name", "<int>": "number", "<string>": "string", "<eof>": "end of file",
}

// expectedWords rewrites participle's expectation (an EBNF fragment such
// as `"=" Process ";"` or `(arrayLit | expression)`) into the user's words:
// the possible first items of the fragment, joined by "or".
func expectedWords(s string) string {
	var words []string
	seen := map[string]bool{}
	for _, f := range firstItems(strings.TrimSpace(s)) {
		if w, ok := grammarWords[f]; ok {
			f = w
		}
		if !seen[f] {
			seen[f] = true
			words = append(words, f)
		}
	}
	if len(words) == 0 {
		return "declaration"
	}
	return strings.Join(words, " or ")
}

// firstItems returns the items that can start the EBNF fragment s.
func firstItems(s string) []string {
	if s == "" {
		return nil
	}
	switch s[0] {
	case '"':
		if j := strings.IndexByte(s[1:], '"'); j >= 0 {
			return []string{s[:j+2]}
		}
		return []string{s}
	case '(':
		depth, end := 0, -1
		for i := 0; i < len(s) && end < 0; i++ {
			switch s[i] {
			case '"':
				if j := strings.IndexByte(s[i+1:], '"'); j >= 0 {
					i += j + 1
				}
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					end = i
				}
			}
		}
		if end < 0 {
			return nil
		}
		var out []string
		for _, alt := range splitAlternatives(s[1:end]) {
			out = append(out, firstItems(strings.TrimSpace(alt))...)
		}
		// An optional or repeated group may be skipped: what follows can start too.
		if rest := s[end+1:]; strings.HasPrefix(rest, "?") || strings.HasPrefix(rest, "*") {
			out = append(out, firstItems(strings.TrimSpace(rest[1:]))...)
		}
		return out
	}
	j := strings.IndexAny(s, " ()|?*+")
	if j < 0 {
		return []string{s}
	}
	return []string{s[:j]}
}

// splitAlternatives splits s at its top-level `|`.
func splitAlternatives(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			if j := strings.IndexByte(s[i+1:], '"'); j >= 0 {
				i += j + 1
			}
		case '(':
			depth++
		case ')':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// describeToken names a token for "found ...".
func describeToken(t lexer.Token) string {
	switch t.Type {
	case lexer.EOF:
		return "end of file"
	case tokIdent:
		return "name " + t.Value
	case tokInt:
		return "number " + t.Value
	case tokString:
		return "string " + t.Value
	}
	return quote(t.Value)
}
