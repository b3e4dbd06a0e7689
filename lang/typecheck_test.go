package lang

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// infoModel declares one of everything the checker records.
const infoModel = `#define N 3;
#define NEG -7 % 3;
#define DIV -7 / 2;
#define SHIFT (N + 1) * 2 - NEG;
#define B N > 2 && true;
#define goal x == N;
#define f(i) i + 1;
enum {red, green, blue};
var x = blue;
var flag = !false;
var a[N];
var b = [1, 2, 3];
var c = [green(2), 4..6];
var m[2][2] = [[1, 2], [3, 4]];
var r : {1..5};
var s : {-2..2} = -1;
hvar h;
channel ch 0;
channel cs[2][N] 4;
P(k) = [] i:{0..N-1} @ e.i.k -> ch?y -> ch?N -> e.y -> P(k);
#assert P(1) reaches goal;
`

// TestCheckInfo checks what the checker records: symbol kinds, folded
// constants (PAT: / truncates, -7 % 3 is 2, not C#'s -1), flattened initial values,
// channel sizes, and how names resolve.
func TestCheckInfo(t *testing.T) {
	src := infoModel
	ch := mustCheck(t, "info.csp", src)
	info := ch.Info
	sym := func(name string) *Symbol {
		for id, s := range info.Defs {
			if id.Name == name && s.Kind != SymParam && s.Kind != SymIndex && s.Kind != SymInput {
				return s
			}
		}
		t.Fatalf("no symbol %s", name)
		return nil
	}
	consts := map[string]int64{"N": 3, "NEG": 2, "DIV": -3, "SHIFT": 6, "B": 1, "red": 0, "green": 1, "blue": 2}
	for name, want := range consts {
		s := sym(name)
		if s.Kind != SymConst && s.Kind != SymEnum || s.Value != want {
			t.Errorf("%s: kind %d value %d, want constant %d", name, s.Kind, s.Value, want)
		}
	}
	if s := sym("B"); s.Type != TypeBool {
		t.Errorf("B: type %v, want bool", s.Type)
	}
	if s := sym("goal"); s.Kind != SymProp || s.Type != TypeBool || info.Macros["goal"] == nil {
		t.Errorf("goal: %+v, want a boolean proposition in Macros", s)
	}
	if s := sym("f"); s.Kind != SymMacro || info.Macros["f"] == nil {
		t.Errorf("f: %+v, want a macro", s)
	}
	if s := sym("P"); s.Kind != SymProc || info.Procs["P"] == nil {
		t.Errorf("P: %+v, want a process", s)
	}
	vars := []struct {
		name   string
		dims   []int
		init   []int64
		bool   bool
		ranged bool
		lo, hi int64
	}{
		{"x", nil, []int64{2}, false, false, 0, 0},
		{"flag", nil, []int64{1}, true, false, 0, 0},
		{"a", []int{3}, []int64{0, 0, 0}, false, false, 0, 0},
		{"b", []int{3}, []int64{1, 2, 3}, false, false, 0, 0},
		{"c", []int{5}, []int64{1, 1, 4, 5, 6}, false, false, 0, 0},
		{"m", []int{2, 2}, []int64{1, 2, 3, 4}, false, false, 0, 0},
		{"r", nil, []int64{1}, false, true, 1, 5},
		{"s", nil, []int64{-1}, false, true, -2, 2},
		{"h", nil, []int64{0}, false, false, 0, 0},
	}
	if len(info.Vars) != len(vars) {
		t.Fatalf("%d variables, want %d", len(info.Vars), len(vars))
	}
	for i, w := range vars {
		v := info.Vars[i]
		got := fmt.Sprint(v.Decl.Name.Name, v.Dims, v.Init, v.Bool, v.Ranged, v.Lo, v.Hi)
		want := fmt.Sprint(w.name, w.dims, w.init, w.bool, w.ranged, w.lo, w.hi)
		if w.dims == nil {
			want = fmt.Sprint(w.name, []int(nil), w.init, w.bool, w.ranged, w.lo, w.hi)
		}
		if got != want {
			t.Errorf("var %d: got %s, want %s", i, got, want)
		}
		if s := sym(w.name); s.Kind != SymVar || s.Slot != i {
			t.Errorf("%s: symbol %+v, want variable slot %d", w.name, s, i)
		}
	}
	if !info.Vars[8].Decl.Hidden {
		t.Errorf("h is not hidden")
	}
	if len(info.Channels) != 2 || info.Channels[0].Size != 0 || info.Channels[0].Dims != nil ||
		info.Channels[1].Size != 4 || !reflect.DeepEqual(info.Channels[1].Dims, []int{2, 3}) {
		t.Errorf("channels: %+v %+v", info.Channels[0], info.Channels[1])
	}
	// Resolution inside P: k is a parameter, i an index, y a channel input
	// variable; N in `ch?N` is a constant to match, not a binding.
	p := info.Procs["P"]
	ix := p.Body.(*IndexedProc)
	pre := ix.Body.(*PrefixProc)
	if s := info.Uses[pre.Event.Data[0].(*Ident)]; s == nil || s.Kind != SymIndex {
		t.Errorf("i: %+v, want an index variable", s)
	}
	if s := info.Uses[pre.Event.Data[1].(*Ident)]; s == nil || s.Kind != SymParam || s.Slot != 0 {
		t.Errorf("k: %+v, want parameter 0", s)
	}
	in := pre.Next.(*ChanInProc)
	if s := info.Defs[in.Vars[0].(*Ident)]; s == nil || s.Kind != SymInput {
		t.Errorf("y: %+v, want a channel input variable", s)
	}
	in2 := in.Next.(*ChanInProc)
	if s := info.Uses[in2.Vars[0].(*Ident)]; s == nil || s.Kind != SymConst {
		t.Errorf("N in ch?N: %+v, want the constant", s)
	}
	if v, ok := info.Consts[in2.Vars[0]]; !ok || v != 3 {
		t.Errorf("N in ch?N: const %d %v", v, ok)
	}
	last := in2.Next.(*PrefixProc)
	if s := info.Uses[last.Event.Data[0].(*Ident)]; s == nil || s.Kind != SymInput {
		t.Errorf("y in e.y: %+v, want the channel input variable", s)
	}
	if v, ok := info.Consts[ix.Index[0].Set.Range.Hi]; !ok || v != 2 {
		t.Errorf("index set bound: %d %v, want 2", v, ok)
	}
	if len(info.Asserts) != 1 || info.Asserts[0].Kind != KindReaches {
		t.Errorf("asserts: %v", info.Asserts)
	}
}

// TestConstantArithmetic pins PAT's integer division (C#'s, truncating) and
// remainder (C#'s plus the divisor when negative: EvaluatorDenotational).
func TestConstantArithmetic(t *testing.T) {
	tests := map[string]int64{
		"7 / 2": 3, "-7 / 2": -3, "7 / -2": -3, "-7 / -2": 3,
		"7 % 3": 1, "-7 % 3": 2, "7 % -3": 1, "-7 % -3": -4, "-6 % 3": 0, "(0 - 1) % 5": 4,
		"1 + 2 * 3 - 4": 3, "2 - 3 - 4": -5, "6 & 3": 2, "6 | 3": 7, "6 ^ 3": 5,
		"3 > 2 && 2 >= 2": 1, "1 == 2 || 1 != 2": 1, "true xor true": 0, "!(1 < 2)": 0,
	}
	for expr, want := range tests {
		ch := mustCheck(t, "c.csp", "#define Z "+expr+";")
		z := ch.File.Decls[0].(*DefineDecl)
		if got, ok := ch.Info.Consts[z.Value]; !ok || got != want {
			t.Errorf("%s = %d (constant %v), want %d", expr, got, ok, want)
		}
	}
}

// TestHugeSizes: sizes that would overflow or exhaust memory are errors.
func TestHugeSizes(t *testing.T) {
	for _, src := range []string{
		"var a[4][1073741824];",
		"var a[2][2][2147483647];",
		"var a[65536 * 65536];", // wraps to 0, as in PAT
		"var a = [-2147483647..2147483647];",
		"var a = [1(2147483647)];",
		"var a = [1(1048576), 2(1048576)];",
		"channel c[1048577] 1;",
		"P = ||| {2147483647} @ Skip;",
	} {
		m := mustParse(t, "huge.csp", src)
		if _, err := Check(m); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}

// TestGlobalInitFromEarlierGlobals: as in PAT, which evaluates a global's
// initialiser with the variables declared so far, earlier scalar globals
// stand for their initial values in later declarations (sizes, ranges,
// initial values and array literals).
func TestGlobalInitFromEarlierGlobals(t *testing.T) {
	ch := mustCheck(t, "g.csp", "var a = 2;\nvar b = a * 3 + 1;\nvar arr[a + 1];\nvar c = [a, b];\nvar r : {0..b} = a;\n")
	want := map[string][]int64{"a": {2}, "b": {7}, "arr": {0, 0, 0}, "c": {2, 7}, "r": {2}}
	for _, vi := range ch.Info.Vars {
		if w, ok := want[vi.Decl.Name.Name]; !ok || !slices.Equal(vi.Init, w) {
			t.Errorf("%s: initial value %v, want %v", vi.Decl.Name.Name, vi.Init, w)
		}
	}
	if r := ch.Info.Vars[4]; !r.Ranged || r.Hi != 7 {
		t.Errorf("r: range %d..%d, want 0..7", r.Lo, r.Hi)
	}
}
