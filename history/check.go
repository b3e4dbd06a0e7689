package history

import (
	"context"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// Options configure a check. The zero value checks linearizability with no
// limits, partitions in parallel on GOMAXPROCS workers.
type Options struct {
	// Quasi, if non-nil, checks quasi-linearizability (docs/verdicts.md §3)
	// with this relaxation instead of linearizability: exact mode (the
	// default) or window mode; open mode unless Complete. The model must be
	// an AutomatonModel (queue, stack, pqueue, set, FromAutomaton); events
	// are those of its Eventer (enq.3, deq.3, deq.0). Histories are not
	// partitioned in quasi checks.
	Quasi *relax.Config
	// Limits: time, stored search states, heap bytes. Hitting one gives Unknown.
	Limits lts.Limits
	// Workers checks partitions in parallel; 0 = GOMAXPROCS, 1 = sequential.
	Workers int
	// NoPartition checks the history as one piece even if the model is
	// P-compositional.
	NoPartition bool
	// AllPartitions checks every partition to the end; by default partitions
	// after (in partition order) the first invalid one are cancelled.
	AllPartitions bool
	// Progress, if set, is called about every 100 ms while the check runs,
	// from a searching goroutine (one at a time), with the figures so far.
	Progress func(Progress)

	// noReplay skips the recomputation of an invalid partition's failure
	// without pruning (MinQuasiFactor's checks below the last bound,
	// whose failures nobody reads).
	noReplay bool
}

// Result is the outcome of a check.
type Result struct {
	Verdict lts.Verdict
	// Reason explains Invalid ("partition \"0\": no linearization ...") or
	// Unknown ("time limit 2s").
	Reason string
	// Witness: for Valid, a linearization (op IDs in order), checked against
	// the model and real-time order before it is reported. Info ops that
	// are absent were dropped (never took effect). Nil when partitioned:
	// see Partitions.
	Witness []int
	// Partitions: per-partition results (a single one if not partitioned).
	Partitions []PartitionResult
	// Failure: for Invalid, the first invalid partition's failure.
	Failure *Failure
	Stats   lts.Stats
}

// PartitionResult is the result of one partition.
type PartitionResult struct {
	Name    string // key ("" if not partitioned)
	Ops     []int  // op IDs of the partition
	Verdict lts.Verdict
	Reason  string
	Witness []int
	Failure *Failure
	Stats   lts.Stats
}

// Failure describes a history with no linearization: the search's longest
// linearizable prefix attempt, and the operation that could not be placed
// after it (the op whose completion forced the search back).
type Failure struct {
	Partition string
	Longest   []int // op IDs, a linearization of some operations
	Blocked   int   // op ID that had to be linearized next but could not be; -1 if unknown
	State     string
}

// Check checks h against m. It returns an error for a history the model
// cannot interpret (unknown operation, bad arguments) with the op's line.
// The verdict is Valid, Invalid, or Unknown if a limit was hit.
func Check(ctx context.Context, h *History, m Model, opt Options) (*Result, error) {
	return check(ctx, h.Ops, m, opt)
}

// CheckOps checks a sub-history (a prefix, a subset of operations): ops may
// carry any IDs, which are reported back in Witness and Failure. Ops with a
// Return of Pending are pending (their Status is treated as Info).
func CheckOps(ctx context.Context, ops []Op, m Model, opt Options) (*Result, error) {
	return check(ctx, ops, m, opt)
}
