package csp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

func TestExport(t *testing.T) {
	p := compileSrc(t, `P = (a -> b -> Skip [] c -> Stop) \ {b};`)
	sys, err := p.ProcessByName("P")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := lts.Export(context.Background(), sys, lts.AUT, &buf, 0); err != nil {
		t.Fatal(err)
	}
	// Written by hand: 0 -a-> 1 -tau-> 3 (terminated), 0 -c-> 2 (Stop).
	want := "des (0,3,4)\n(0,\"a\",1)\n(0,\"c\",2)\n(1,\"i\",3)\n"
	if buf.String() != want {
		t.Errorf("aut:\n%s\nwant:\n%s", buf.String(), want)
	}
	buf.Reset()
	if err := lts.Export(context.Background(), sys, lts.DOT, &buf, 0); err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{"s0 -> s1 [label=\"a\"]", "s1 -> s3 [label=\"tau\", style=dashed]", "s3 [label=\"3\", shape=doublecircle"} {
		if !strings.Contains(buf.String(), frag) {
			t.Errorf("dot lacks %q:\n%s", frag, buf.String())
		}
	}
	err = lts.Export(context.Background(), sys, lts.DOT, &buf, 2)
	if !errors.Is(err, lts.ErrTooLarge) {
		t.Errorf("limit 2: err = %v", err)
	}
}
