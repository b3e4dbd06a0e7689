package csp

import (
	"testing"
)

// TestKonstAgrees: on every model of the library and of testdata, the
// constants looked up by node pointer (Program.konst, which expr uses)
// are Info.Consts, for every expression the checker typed (present or
// not), and no expression type takes the interface map's slower path.
func TestKonstAgrees(t *testing.T) {
	exprs, consts := 0, 0
	for _, am := range assertedModels(t, "../models/lib/*.csp", "../testdata/ltl/*.csp", "../testdata/pipeline/*.csp", "../testdata/sym/*.csp", "../testdata/lts/bench/*.csp", "../bench/philosophers/*.csp") {
		p, err := Compile(am.checked)
		if err != nil {
			t.Fatalf("%s: %v", am.path, err)
		}
		info := am.checked.Info
		for e := range info.Types {
			if exprPtr(e) == nil {
				t.Errorf("%s: %T has no node pointer", am.path, e)
			}
			want, wok := info.Consts[e]
			got, ok := p.konst(e)
			if ok != wok || got != want {
				t.Errorf("%s: %T at %v: konst %d %v, Info.Consts %d %v", am.path, e, e.Pos(), got, ok, want, wok)
			}
			exprs++
			if wok {
				consts++
			}
		}
		for e := range info.Consts {
			if _, ok := info.Types[e]; !ok {
				if got, ok := p.konst(e); !ok || got != info.Consts[e] {
					t.Errorf("%s: untyped constant %T at %v: konst %d %v", am.path, e, e.Pos(), got, ok)
				}
			}
		}
	}
	if consts == 0 || exprs == consts {
		t.Fatalf("%d expressions, %d constants: the test saw nothing to compare", exprs, consts)
	}
	t.Logf("%d expressions, %d constants", exprs, consts)
}
