package lang

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"golang.org/x/tools/txtar"
)

// errorRx matches an expectation: /* ERROR `rx` */ (the error is at the
// token just before the comment) or /* ERROR AFTER `rx` */ (at the first
// token after it, or at the end of the file).
var errorRx = regexp.MustCompile("/\\* ERROR (AFTER )?`([^`]*)` \\*/")

type expectation struct {
	line, col int
	rx        *regexp.Regexp
	text      string
}

// expectations finds the ERROR comments of src. Positions are computed
// from the raw text, so that sources the scanner rejects can be annotated.
func expectations(t *testing.T, src string) []*expectation {
	var out []*expectation
	for _, m := range errorRx.FindAllStringSubmatchIndex(src, -1) {
		rx, err := regexp.Compile(src[m[4]:m[5]])
		if err != nil {
			t.Fatalf("bad ERROR pattern %q: %v", src[m[4]:m[5]], err)
		}
		var off int
		if m[2] >= 0 { // AFTER: the next non-space character
			off = m[1]
			for off < len(src) && strings.ContainsRune(" \t\r\n", rune(src[off])) {
				off++
			}
		} else {
			off = tokenBefore(src, m[0])
		}
		line, col := lineCol(src, off)
		out = append(out, &expectation{line: line, col: col, rx: rx, text: src[m[4]:m[5]]})
	}
	return out
}

// tokenBefore returns the offset where the token ending before end (white
// space skipped) starts.
func tokenBefore(src string, end int) int {
	for end > 0 && strings.ContainsRune(" \t\r\n", rune(src[end-1])) {
		end--
	}
	isWord := func(c byte) bool { return isLetter(c) || isDigit(c) }
	if end > 0 && isWord(src[end-1]) {
		start := end
		for start > 0 && isWord(src[start-1]) {
			start--
		}
		if start > 0 && src[start-1] == '#' {
			start--
		}
		return start
	}
	for _, p := range puncts { // longest first within each leading byte
		if strings.HasSuffix(src[:end], p) && len(p) > 1 {
			return end - len(p)
		}
	}
	_, w := utf8.DecodeLastRuneInString(src[:end])
	return end - w
}

func lineCol(src string, off int) (int, int) {
	line, col := 1, 1
	for _, r := range src[:off] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// runErrorFiles runs each file of a txtar archive through Parse (within an
// fs.FS holding all the files) and Check, and matches the errors with the
// ERROR comments: each error must be expected, at its line and column, and
// each expectation met.
func runErrorFiles(t *testing.T, archive string) {
	ar, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range ar.Files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	for _, f := range ar.Files {
		t.Run(f.Name, func(t *testing.T) {
			want := expectations(t, string(f.Data))
			if len(want) == 0 {
				t.Fatal("no ERROR comment")
			}
			m, err := ParseFS(fsys, f.Name)
			if err == nil {
				_, err = Check(m)
			}
			got := Errors(err)
			if err != nil && len(got) == 0 {
				t.Fatalf("error without position: %v", err)
			}
			for _, e := range got {
				if e.Pos.File != f.Name {
					t.Errorf("%v: error in file %q, want %q", e, e.Pos.File, f.Name)
				}
				found := false
				for i, w := range want {
					if w.line == e.Pos.Line && w.col == e.Pos.Col && w.rx.MatchString(e.Msg) {
						want = append(want[:i], want[i+1:]...)
						found = true
						break
					}
				}
				if !found {
					t.Errorf("unexpected error %v", e)
				}
			}
			for _, w := range want {
				t.Errorf("%s:%d:%d: missing error %q", f.Name, w.line, w.col, w.text)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	runErrorFiles(t, filepath.Join(testdata, "errors", "parse.txtar"))
}
func TestCheckErrors(t *testing.T) {
	runErrorFiles(t, filepath.Join(testdata, "errors", "check.txtar"))
}

// TestErrorCap checks that Check reports at most 20 errors, sorted.
func TestErrorCap(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 30; i++ {
		sb.WriteString("P" + string(rune('A'+i%26)) + strings.Repeat("x", i/26) + "() = undefinedProcess();\n")
	}
	m := mustParse(t, "cap.csp", sb.String())
	_, err := Check(m)
	l := Errors(err)
	if len(l) != maxErrors+1 || l[maxErrors].Msg != "too many errors" {
		t.Fatalf("got %d errors, want %d and a final \"too many errors\"", len(l), maxErrors+1)
	}
	if !sort.SliceIsSorted(l[:maxErrors], func(i, j int) bool { return l[i].Pos.Line < l[j].Pos.Line }) {
		t.Errorf("errors not sorted: %v", l)
	}
}

func TestFormatError(t *testing.T) {
	src := "P() =\ta -> Q();\n\tR() = [é] Sküp;\n"
	err := ErrorList{
		{Pos: Pos{File: "f.csp", Line: 2, Col: 12, Offset: 27}, Msg: "undefined: Sküp"},
		{Pos: Pos{File: "g.csp"}, Msg: "no position"},
	}
	got := FormatError(err, func(name string) []byte {
		if name == "f.csp" {
			return []byte(src)
		}
		return nil
	})
	want := "f.csp:2:12: undefined: Sküp\n" +
		"\t        R() = [é] Sküp;\n" +
		"\t                  ^\n" +
		"g.csp: no position"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if e := (&Error{Pos: Pos{File: "a.csp", Line: 3, Col: 4}, Msg: "m"}); e.Error() != "a.csp:3:4: m" || e.Position().Line != 3 {
		t.Errorf("Error() = %q", e.Error())
	}
}
