package linearize_test

import (
	"fmt"
	"testing"

	"github.com/quasar-verify/quasar/linearize"
)

// TestNamingRead: the suffix convention and rules, table-driven; the
// expected calls are written from the rules' meaning.
func TestNamingRead(t *testing.T) {
	v := func(i int) linearize.Datum { return linearize.Datum{Var: i} }
	c := func(x int) linearize.Datum { return linearize.Datum{Var: -1, Value: x} }
	// call.OP.ARG.T with OP 0 (enq) or 1 (deq), ret.T.R; empty.T is deq's 0.
	rules := linearize.Naming{Rules: []linearize.Rule{
		{Event: "call", Match: []linearize.Datum{c(0), v(1), v(2)}, Op: "enq", Thread: 2, Data: []linearize.Datum{v(1)}},
		{Event: "call", Match: []linearize.Datum{c(1), c(0), v(2)}, Op: "deq", Thread: 2},
		{Event: "ret", Match: []linearize.Datum{v(0), v(1)}, Res: true, Op: "deq", Thread: 0, Data: []linearize.Datum{v(1)}},
		{Event: "empty", Match: []linearize.Datum{v(0)}, Res: true, Op: "deq", Thread: 0, Data: []linearize.Datum{c(0)}},
	}}
	tests := []struct {
		naming linearize.Naming
		base   string
		data   []int
		want   string // fmt of the Call, or "error"
	}{
		{linearize.DefaultNaming, "enq_inv", []int{1, 5}, "{1 enq 1 [5]}"},
		{linearize.DefaultNaming, "deq_res", []int{0, 5}, "{2 deq 0 [5]}"},
		{linearize.DefaultNaming, "deq_res", nil, "error"},
		{linearize.DefaultNaming, "deq_res", []int{64}, "error"},
		{linearize.DefaultNaming, "_inv", []int{0}, "{0  0 []}"},
		{linearize.DefaultNaming, "go", []int{0}, "{0  0 []}"},
		{linearize.Naming{Inv: "_call", Res: "_ret"}, "push_call", []int{3, 1}, "{1 push 3 [1]}"},
		{linearize.Naming{Inv: "_call", Res: "_ret"}, "push_inv", []int{3, 1}, "{0  0 []}"},
		{rules, "call", []int{0, 7, 1}, "{1 enq 1 [7]}"},
		{rules, "call", []int{1, 0, 1}, "{1 deq 1 []}"},
		{rules, "call", []int{1, 7, 1}, "{0  0 []}"}, // no rule matches deq with an argument
		{rules, "call", []int{0, 7}, "{0  0 []}"},    // another number of data
		{rules, "ret", []int{1, 2}, "{2 deq 1 [2]}"},
		{rules, "empty", []int{1}, "{2 deq 1 [0]}"},
		{rules, "enq_inv", []int{1, 2}, "{0  0 []}"}, // with rules, suffixes mean nothing
		{rules, "call", []int{0, 7, 99}, "error"},
	}
	for _, tt := range tests {
		got, err := tt.naming.Read(tt.base, tt.data)
		s := fmt.Sprint(got)
		if err != nil {
			s = "error"
		}
		if got.Data == nil && err == nil {
			s = fmt.Sprintf("{%d %s %d []}", got.Role, got.Op, got.Thread)
		}
		if s != tt.want {
			t.Errorf("%v: Read(%s, %v) = %s, want %s", tt.naming, tt.base, tt.data, s, tt.want)
		}
	}
	if !linearize.DefaultNaming.ThreadFirst() || rules.ThreadFirst() {
		t.Error("ThreadFirst: the suffix naming has the thread first, the rules above do not")
	}
}
