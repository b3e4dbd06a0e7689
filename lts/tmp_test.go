package lts

import (
	"testing"
)

func TestTmp(t *testing.T) {
	p := compileSrc(t, `
var x = 0;
var a[3];
P() = [x < 3] a1{x = x + 1} -> b.x -> P() [] [x > 1] c -> Skip;
Q(i) = e.i -> Skip;
Sys = P() ||| Q(2);
`)
	sys, err := p.ProcessByName("Sys")
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + ltsText(t, sys))
}
