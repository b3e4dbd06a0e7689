package lang

import (
	"fmt"
	"testing"
)

func TestTmpGrammar(t *testing.T) {
	src := "\ufeff" + `// comment
#define N 3;
#define M -2;
#define goal x == 3;
#define f(i) i + 1;
enum {red, green};
var x = 0;
var a[N];
var b = [1, 2, 3];
var c = [0(N), 1..3];
var m[2][3];
var r : {0..5} = 0;
hvar h = 0;
channel ch 0;
channel cs[2] 1;
#alphabet P {a, b.1, i:{0..N}@e.i};
P() = a -> b.1.(x+1) -> P() [] ch!1.2 -> Skip; Q;
Q = [] i:{0..N-1} @ e.i -> Stop;
R = e{x = x + 1; x++; var t = 2; if (x > 1) { x = 0 } else x = 1; while (x < 3) x++; a[1] = 2;} -> R
  [] {x--} -> R [] [x > 0] tau -> R [] ch?y -> R [] ch?[y > 0]y -> R [] ch?0 -> Skip;
S = (a, b) -> S ||| (P ; Q) || R \ {a, b.1} ;
T = atomic{ a -> Skip } interrupt b -> Skip <> c -> Skip [*] d -> Skip;
U = if (x == 1) { a -> Skip } else if (x == 2) { b -> Skip } else { Stop };
V = ifa (x == 1) { a -> Skip } ; ifb (x > 0) { Skip };
W = case { x == 1 : a -> Skip  x == 2 : b -> Skip  default : Stop };
X = ||| {3} @ P() ||| (|| i:{0..2}; j:{1, 2} @ e.i.j -> Skip);
Y = [cs[1] == 0 && (&& i:{0..2} @ a[i] > 0)] cs[0]!call(f, 1) -> Y;
#assert P() deadlockfree;
#assert P() reaches goal with min(x);
#assert P() refines Q();
#assert P() refines<F> Q();
#assert P() refines<FD> Q();
#assert P() refines<quasi 2> Q();
#assert P() refines<quasi 2 on {deq} barrier {deq.0}> Q();
#assert P() refines<quasi {deq: 2, {pop, x}: 1} barrier {deq.0} window> Q();
#assert P() |= []<> a && (b -> c);
`
	m, err := Parse("x.csp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(Dump(m))
	for _, bad := range []string{"P = a -> ;", "P = a; var x", "#import \"x\";", "var<Q> x;", "P = a -> Skip", "P = q.m(1) -> Skip;", "P = e.1;", "P = (a, b);", "#define N 3", "P = [x > ] Skip;", "P() = a -> P() Q;"} {
		_, err := Parse("b.csp", []byte(bad))
		fmt.Printf("%-30s %v\n", bad, err)
	}
}

func TestTmpCheck(t *testing.T) {
	src := `#define N 3;
#define M N * 2 - 1;
#define goal x == 3;
#define f(i) i + 1;
enum {red, green};
var x = 0;
var a[N];
var b = [1, 2, 3];
var c = [0(N), 1..3];
var m[2][3] = [[1,2,3],[4,5,6]];
var r : {0..5} = 0;
var flag = false;
channel ch 0;
channel cs[2] 1;
P() = a -> b.1.(x+1) -> P() [] ch!1.2 -> Skip; Q;
Q = [] i:{0..N-1} @ e.i -> Stop;
R(k) = e{x = x + 1; x++; var t = 2; if (x > 1) { x = m[1][2] } else x = k; a[1] = 2; flag = !flag} -> R(k)
  [] [x > 0] ch?y -> R(y) [] cs[1]?[z > 0]z -> Skip;
#assert P() deadlockfree;
#assert P() reaches goal;
#assert R(1) refines<quasi 2 on {deq} barrier {deq.0}> Q();
`
	m, err := Parse("x.csp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Check(m)
	if err != nil {
		t.Fatal(FormatError(err, func(string) []byte { return []byte(src) }))
	}
	for _, v := range ch.Info.Vars {
		fmt.Println(v.Decl.Name.Name, v.Dims, v.Init, v.Bool)
	}
	bad := `#define N 3;
var x = 0;
var arr[N];
P() = a -> Q() [] Pp(1);
Q(i) = [xx > 0] b -> Skip [] [x] c -> Skip [] d{ N = 1; x = true; arr = 2 } -> Skip;
#assert P(1) refines<quasi -1> Q(x);
#assert P() reaches x;
`
	m, err = Parse("bad.csp", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Check(m)
	fmt.Println(FormatError(err, func(string) []byte { return []byte(bad) }))
}

func TestTmpRound(t *testing.T) {
	src := `// header comment
#define N 3; // three
#define f(i) i + 1;
var c = [0(N), 1..3];
var r : {0..5} = 0;
/* block
comment */
P() = a -> b.1.(x+1) -> P() [] c!1.(2+x) -> Skip; Q;
Q = [] i:{0..N-1} @ e.i -> Stop;
R = e{x = x + 1; x++; var t = 2; if (x > 1) { x = 0 } else x = 1; while (x < 3) x++; a[1] = 2;} -> R
  [] {x--} -> R [] [x > 0] tau -> R [] ch?y -> R [] ch?[y > 0]y -> R [] ch?0 -> Skip;
S = (a, b) -> S ||| (P ; Q) || R \ {a, b.1} ;
T = atomic{ a -> Skip } interrupt b -> Skip <> c -> Skip [*] d -> Skip;
U = if (x == 1) { a -> Skip } else if (x == 2) { b -> Skip } else { Stop };
V = ifa (x == 1) { a -> Skip } ; ifb (x > 0) { Skip };
W = case { x == 1 : a -> Skip  x == 2 : b -> Skip  default : Stop };
X = ||| {3} @ P() ||| (|| i:{0..2}; j:{1, 2} @ e.i.j -> Skip);
Y = [cs[1] == 0 && (&& i:{0..2} @ a[i] > 0)] cs[0]!call(f, 1) -> Y;
Z = (P [] Q) [] R; a -> ([] i:{0..1} @ b -> Skip); (P; Q);
ZZ = [- - 3 - -3 * (1 - 2) > x % 2 || !(a && b) == c] Skip;
#assert P() refines<quasi {deq: 2, {pop, x}: 1} barrier {deq.0} window> Q();
#assert P() |= []<> a && (b -> c);
`
	m, err := Parse("x.csp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out := Format(m)
	fmt.Println(string(out))
	m2, err := Parse("x.csp", out)
	if err != nil {
		t.Fatal(err)
	}
	if Dump(m) != Dump(m2) {
		t.Errorf("round trip:\n%s\n----\n%s", Dump(m), Dump(m2))
	}
}

func TestTmpEBNF(t *testing.T) { fmt.Println(Grammar()) }

func TestTmpErrs(t *testing.T) {
	for _, bad := range []string{"var x = ;", "#assert P() refines;", "enum {};", "channel c;", "#define;", "P(1) = Skip;", "#assert P() reaches;", "P = a -> Skip;;", "#assert P() refines<quasi> Q();", "#assert P() refines<quasi 1 on> Q();", "P = Skip", "P = Skip; Q", "var x = 0 var y;", "P = a -> {x = 1 y = 2} -> Skip;", "x", "P = e{x = 1} ;", "P = c?x;", "#include \"nofile.csp\";", "P = if x { Skip };", "P = case { default: Skip };", "/* x", "P = @;", "#foo", "P = e.1(2) -> Skip;", "P = [] i:{0..2} @ ;", "P = a -> b -> ;"} {
		_, err := Parse("b.csp", []byte(bad))
		fmt.Printf("%-40s %v\n", bad, err)
	}
}
