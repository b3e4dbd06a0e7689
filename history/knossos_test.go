package history_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/read"
	"github.com/quasar-verify/quasar/lts"
)

// TestKnossosModels: small histories for Knossos's mutex and multi-register,
// each verdict reasoned by hand.
func TestKnossosModels(t *testing.T) {
	cases := []struct {
		name  string
		model history.Model
		edn   string
		want  lts.Verdict
	}{
		// Two acquires in sequence with no release between: the second
		// takes a held lock.
		{"mutex double acquire", history.Mutex(), `
{:process 0 :type :invoke :f :acquire}
{:process 0 :type :ok :f :acquire}
{:process 1 :type :invoke :f :acquire}
{:process 1 :type :ok :f :acquire}`, lts.Invalid},
		// The same, but p0's release overlaps p1's acquire: release first.
		{"mutex overlapping release", history.Mutex(), `
{:process 0 :type :invoke :f :acquire}
{:process 0 :type :ok :f :acquire}
{:process 1 :type :invoke :f :acquire}
{:process 0 :type :invoke :f :release}
{:process 1 :type :ok :f :acquire}
{:process 0 :type :ok :f :release}`, lts.Valid},
		// A failed release is ignored; releasing a free lock is not.
		{"mutex release free", history.Mutex(), `
{:process 0 :type :invoke :f :release}
{:process 0 :type :fail :f :release}
{:process 1 :type :invoke :f :release}
{:process 1 :type :ok :f :release}`, lts.Invalid},
		// x is written 1 and then read 0 after the write completed.
		{"multi stale read", history.MultiRegister(history.Int(0)), `
{:process 0 :type :invoke :f :txn :value [[:write :x 1]]}
{:process 0 :type :ok :f :txn :value [[:write :x 1]]}
{:process 1 :type :invoke :f :txn :value [[:read :x nil] [:read :y nil]]}
{:process 1 :type :ok :f :txn :value [[:read :x 0] [:read :y 0]]}`, lts.Invalid},
		// A transaction is atomic: reading x=1 and y=0 is fine while the
		// txn writing both overlaps, never a mix after it completed...
		{"multi atomic", history.MultiRegister(history.Int(0)), `
{:process 0 :type :invoke :f :txn :value [[:write :x 1] [:write :y 1]]}
{:process 1 :type :invoke :f :txn :value [[:read :x nil] [:read :y nil]]}
{:process 1 :type :ok :f :txn :value [[:read :x 1] [:read :y 1]]}
{:process 0 :type :ok :f :txn :value [[:write :x 1] [:write :y 1]]}`, lts.Valid},
		// ...and a mix (x new, y old) is no state of any order.
		{"multi torn", history.MultiRegister(history.Int(0)), `
{:process 0 :type :invoke :f :txn :value [[:write :x 1] [:write :y 1]]}
{:process 1 :type :invoke :f :txn :value [[:read :x nil] [:read :y nil]]}
{:process 1 :type :ok :f :txn :value [[:read :x 1] [:read :y 0]]}
{:process 0 :type :ok :f :txn :value [[:write :x 1] [:write :y 1]]}`, lts.Invalid},
		// A nil read is always legal.
		{"multi nil read", history.MultiRegister(history.Int(0)), `
{:process 0 :type :invoke :f :txn :value [[:write :x 1]]}
{:process 0 :type :ok :f :txn :value [[:write :x 1]]}
{:process 1 :type :invoke :f :txn :value [[:read :x nil]]}
{:process 1 :type :ok :f :txn :value [[:read :x nil]]}`, lts.Valid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := read.Parse("h.edn", strings.NewReader(c.edn))
			if err != nil {
				t.Fatal(err)
			}
			res, err := history.Check(context.Background(), h, c.model, history.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != c.want {
				t.Errorf("%v, want %v", res.Verdict, c.want)
			}
		})
	}
}
