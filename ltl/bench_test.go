package ltl

import (
	"context"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// BenchmarkProduct explores the whole product (the property holds) of a
// generated explicit LTS of 2^20 states, two events each, with the
// automaton of the negation of []<> (a || b): about 2.1M product pairs.
// It reports pairs per second on one core.
func BenchmarkProduct(b *testing.B) {
	const n = 1 << 20
	x := lts.NewExplicit(nil)
	ea, eb := x.Table.InternName("a"), x.Table.InternName("b")
	x.Edges = make([][]lts.Transition, n)
	for i := range n {
		x.Edges[i] = []lts.Transition{{Event: ea, Target: lts.State((i + 1) % n)}, {Event: eb, Target: lts.State((2*i + 1) % n)}}
	}
	p, err := Parse("", 0, 0, "[]<> (a || b)")
	if err != nil {
		b.Fatal(err)
	}
	atoms := []Atom{{Name: "a"}, {Name: "b"}}
	var pairs int64
	b.ResetTimer()
	for range b.N {
		res, err := Check(context.Background(), x, p, atoms, Options{})
		if err != nil || res.Verdict != lts.Valid {
			b.Fatalf("%v %v", res, err)
		}
		pairs = res.Stats.States
	}
	b.ReportMetric(float64(pairs), "pairs")
	b.ReportMetric(float64(pairs)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}
