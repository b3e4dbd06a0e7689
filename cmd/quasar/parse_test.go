package main

import (
	"fmt"
	"testing"
)

func TestParseProcess(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // name and args, or "error"
	}{
		{"Queue", "Queue []"},
		{"Queue()", "Queue []"},
		{" Thread( 0 , -2 ) ", "Thread [0 -2]"},
		{"T(x)", "error"},
		{"T(1,)", "error"},
		{"1T", "error"},
		{"T(1", "error"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			name, args, err := parseProcess(tc.in)
			got := fmt.Sprintf("%s %v", name, args)
			if err != nil {
				got = "error"
			}
			if got != tc.want {
				t.Errorf("parseProcess(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestAssertSides(t *testing.T) {
	for _, tc := range []struct{ in, left, right string }{
		{"Impl() refines Spec()", "Impl()", "Spec()"},
		{"Impl() refines<quasi 2 on {deq}> Spec()", "Impl()", "Spec()"},
		{"P() deadlockfree", "P() deadlockfree", ""},
	} {
		if l, r := assertSides(tc.in); l != tc.left || r != tc.right {
			t.Errorf("assertSides(%q) = %q, %q; want %q, %q", tc.in, l, r, tc.left, tc.right)
		}
	}
}
