package ltl

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct{ src, want string }{
		{"[]<> eat.0", "[]<>eat.0"},
		{"G F eat.0", "[]<>eat.0"},
		{"[](req -> <> grant)", "[](req -> <>grant)"},
		{"[] !(c0 && c1)", "[]!(c0 && c1)"},
		{"a U b U c", "((a U b) U c)"}, // left-associative, as PAT documents
		{"a -> b -> c", "((a -> b) -> c)"},
		{"a || b && c", "(a || (b && c))"},
		{"a && b U c", "(a && (b U c))"},
		{"!a U b", "(!a U b)"},
		{"X a R b", "(X a R b)"},
		{"a V b", "(a R b)"},
		{"a <-> b -> c", "(a <-> (b -> c))"},
		{"a /\\ b \\/ c", "((a && b) || c)"},
		{"put.1.2 && put.i.-1", "(put.1.2 && put.i.-1)"},
		{"true U false", "(true U false)"},
		{"<>[] (x)", "<>[]x"},
		{"a // comment\n && b", "(a && b)"},
	}
	for _, tc := range tests {
		p, err := Parse("m.csp", 3, 10, tc.src)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if got := p.String(); got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.src, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", "m.csp:3:10: expected a formula (an event, a proposition, true, false, '(' or a unary operator), found the end of the formula"},
		{"[] (a && b", "m.csp:3:20: expected ')' to close the '(' at m.csp:3:13, found the end of the formula"},
		{"a &&", "m.csp:3:14: expected a formula"},
		{"a b", "m.csp:3:12: expected an operator or the end of the formula, found name b"},
		{"a.", "m.csp:3:12: expected a number or a name after '.'"},
		{"a.U", "m.csp:3:12: expected a number or a name after '.' at m.csp:3:11, found operator U"},
		{"a @ b", "m.csp:3:12: unexpected character '@'"},
		{"a &&\n  ) b", "m.csp:4:3: expected a formula (an event, a proposition, true, false, '(' or a unary operator), found ')'"},
		{strings.Repeat("!", 300) + "a", "nested deeper than 200"},
		{"a.99999999999999999999999", "out of range"},
	}
	for _, tc := range tests {
		_, err := Parse("m.csp", 3, 10, tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"[]<> eat.0", "[](req -> <> grant)", "a U (b R !c)", "X X a.1.-2", "(((a", "a && || b", "G F p <-> q", "\x00", "a.b.c.", "/\\ \\/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse("f", 1, 1, src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		// A parsed formula prints to text that parses to the same print.
		again, err := Parse("f", 1, 1, p.String())
		if err != nil {
			t.Fatalf("%q printed as %q which does not parse: %v", src, p.String(), err)
		}
		if again.String() != p.String() {
			t.Fatalf("%q: %q then %q", src, p.String(), again.String())
		}
		if n := len(p.Atoms); n <= 4 && strings.Count(src, "U")+strings.Count(src, "<>") < 6 && len(src) < 40 {
			_, _ = Translate(p.Root)
		}
	})
}
