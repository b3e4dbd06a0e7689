package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// TestModelErrors: models that PAT cannot run either (its unfolding would
// not end, or a value is missing) end in a positioned error of the
// model, never a crash or a hang.
func TestModelErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"self", "P() = P();\n#assert P() deadlockfree;",
			"m.csp:1:7: unguarded recursion"},
		{"mutual", "P() = Q();\nQ() = P();\n#assert P() deadlockfree;",
			"m.csp:1:7: unguarded recursion"},
		{"growing", "P(i) = P(i+1);\n#assert P(0) deadlockfree;",
			"m.csp:1:8: unguarded recursion"},
		{"choice", "P() = Q() [] a -> P();\nQ() = P() [] b -> Q();\n#assert P() deadlockfree;",
			"m.csp:1:7: unguarded recursion"},
		// Both guards hold while x == 0: P unfolds Q, which unfolds P.
		{"guards hold", "var x = 0;\nP() = [x == 0] Q() [] a -> P();\nQ() = [x == 0] P() [] b -> Q();\n#assert P() deadlockfree;",
			"m.csp:2:7: unguarded recursion: the process reaches itself without an event, and every guard on the way holds here"},
		// The guards exclude each other until set makes both hold.
		{"guards hold later", "var x = 0;\nP() = [x >= 0] Q() [] set{x = 1} -> P();\nQ() = [x == 1] P() [] b -> Q();\n#assert P() deadlockfree;",
			"m.csp:2:7: unguarded recursion"},
		{"ifa", "var x = 0;\nP() = ifa (x == 0) { Q() } else { a -> P() };\nQ() = ifa (x == 0) { P() } else { b -> Q() };\n#assert P() deadlockfree;",
			"m.csp:2:7: unguarded recursion"},
		{"growing guard", "var x = 0;\nP(i) = [x == 0] P(i + 1) [] a -> P(i);\n#assert P(0) deadlockfree;",
			"unguarded recursion"},
		// The alphabet of Reading for || would need Reading(1), Reading(2),
		// ... without end: PAT asks for #alphabet too
		// (testdata/pipeline/robust_alphabet.csp declares it).
		{"alphabet of a growing recursion", "#define N 3;\nReading(i) = [i < N] read.i -> Reading(i+1) [] [i > 0] back.i -> Reading(i-1);\nReader() = start -> Reading(0);\nWriter() = read.0 -> Writer();\nSys() = Reader() || Writer();\n#assert Sys() deadlockfree;",
			"m.csp:2:32: cannot compute the alphabet of process Reading for ||"},
		{"macro without value", "#define f(v) { var k = v; while (k > 0) { k = k - 1; } };\nP() = [call(f, 2) == 0] a -> P();\n#assert P() deadlockfree;",
			"m.csp:2:8: macro f ends without a value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Source(context.Background(), "m.csp", []byte(c.src), Options{})
			if err != nil {
				if !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %q, want %q", err, c.want)
				}
				return
			}
			a := rep.Assertions[0]
			if a.Verdict != lts.Unknown || !strings.Contains(a.Error, c.want) {
				t.Fatalf("%v, error %q; want unknown with %q", a.Verdict, a.Error, c.want)
			}
			if strings.HasPrefix(a.Error, "internal error") {
				t.Fatalf("an error of the model reported as internal: %s", a.Error)
			}
		})
	}
}

// TestStateTooLarge: a state longer than the store can keep (4 MiB), at
// the start or after a step, is an error of the model with any number of
// workers, not a crash.
func TestStateTooLarge(t *testing.T) {
	cases := []struct{ name, src string }{
		{"initial", "var a[1048576]; var b[1048576]; var c[1048576]; var d[1048576]; var e[1048576];\nP = small -> P;\n#assert P deadlockfree;"},
		{"successor", "var a[1048576];\nP = [a[0] == 0] big{ var i = 0; while (i < 1048576) { a[i] = 2000000000; i = i + 1; } } -> P [] small -> P;\n#assert P deadlockfree;"},
	}
	for _, c := range cases {
		for _, w := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/workers=%d", c.name, w), func(t *testing.T) {
				rep, err := Source(context.Background(), "m.csp", []byte(c.src), Options{Workers: w})
				if err != nil {
					t.Fatal(err)
				}
				a := rep.Assertions[0]
				if a.Verdict != lts.Unknown || !strings.Contains(a.Error, "over the 4194290 bytes a state may take") || strings.Contains(a.Error, "internal error") {
					t.Fatalf("%v, error %q; want unknown with the state's size", a.Verdict, a.Error)
				}
			})
		}
	}
}

// TestMacroAssignsInGuard: a block macro that assigns globals is refused
// outside event blocks (a guard must not change the state).
func TestMacroAssignsInGuard(t *testing.T) {
	src := "var x = 0;\n#define f(d) { x = x + d; x };\nP() = [call(f, 1) > 0] a -> P();\n#assert P() deadlockfree;"
	_, err := Source(context.Background(), "m.csp", []byte(src), Options{})
	if err == nil || !strings.Contains(err.Error(), "m.csp:3:8: macro f assigns global variables") {
		t.Fatalf("got %v", err)
	}
}
