package main

import (
	"errors"
	"testing"

	"github.com/quasar-verify/quasar/lang"
)

func TestFormatError(t *testing.T) {
	src := map[string][]byte{
		"m.csp": []byte("var x = 3;\n\tP() = a -> P();\nQ() = é -> b;\n"),
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"plain", errors.New("open m.csp: no such file"), "quasar: open m.csp: no such file\n"},
		{"caret", errors.New("m.csp:1:5: expected '=', found 'x'"),
			"m.csp:1:5: expected '=', found 'x'\n\tvar x = 3;\n\t    ^\n"},
		{"tab", errors.New("m.csp:2:8: unknown event a"),
			"m.csp:2:8: unknown event a\n\t        P() = a -> P();\n\t              ^\n"},
		{"runes", errors.New("m.csp:3:9: unknown name b"),
			"m.csp:3:9: unknown name b\n\tQ() = é -> b;\n\t        ^\n"},
		{"end of line", errors.New("m.csp:1:11: expected ';'"),
			"m.csp:1:11: expected ';'\n\tvar x = 3;\n\t          ^\n"},
		{"no column", errors.New("m.csp:2: bad line"), "m.csp:2: bad line\n"},
		{"lang list", lang.ErrorList{
			{Pos: lang.Pos{File: "m.csp", Line: 1, Col: 1}, Msg: "one"},
			{Pos: lang.Pos{File: "m.csp", Line: 3, Col: 1}, Msg: "two"},
		}, "m.csp:1:1: one\n\tvar x = 3;\n\t^\nm.csp:3:1: two\n\tQ() = é -> b;\n\t^\n"},
		{"no such line", errors.New("m.csp:9:1: past the end"), "m.csp:9:1: past the end\n"},
		{"unknown file", errors.New("nowhere.csp:1:1: x"), "nowhere.csp:1:1: x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := formatError(tc.err, src); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestLeaves(t *testing.T) {
	err := &sourceError{err: errors.Join(errors.New("a"), errors.Join(errors.New("b"), errors.New("c")))}
	var got []string
	for _, e := range leaves(err) {
		got = append(got, e.Error())
	}
	if len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Errorf("leaves = %q, want [a b c]", got)
	}
}
