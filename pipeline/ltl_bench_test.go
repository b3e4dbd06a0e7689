package pipeline

import (
	"context"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// counters is three independent counters modulo 100: 10^6 states.
const counters = `var x = 0; var y = 0; var z = 0;
Cx() = ix{x = (x + 1) % 100;} -> Cx();
Cy() = iy{y = (y + 1) % 100;} -> Cy();
Cz() = iz{z = (z + 1) % 100;} -> Cz();
Sys() = Cx() ||| Cy() ||| Cz();
#define zero x == 0 && y == 0 && z == 0;
#assert Sys() |= [] (zero -> X !zero);
`

// BenchmarkLTLCounters checks a valid formula on a CSP# model of 10^6
// states: the whole product (2·10^6 pairs: the automaton of the negation
// has two states on every process state) is explored. It reports product
// pairs per second on one core, the model's successor computation and
// proposition evaluation included.
func BenchmarkLTLCounters(b *testing.B) {
	var pairs int64
	for range b.N {
		rep, err := Source(context.Background(), "counters.csp", []byte(counters), Options{})
		if err != nil {
			b.Fatal(err)
		}
		a := rep.Assertions[0]
		if a.Verdict != lts.Valid {
			b.Fatalf("%v %s %s", a.Verdict, a.Reason, a.Error)
		}
		pairs = a.Stats.Pairs
	}
	b.ReportMetric(float64(pairs), "pairs")
	b.ReportMetric(float64(pairs)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}
