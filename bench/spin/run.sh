#!/bin/sh
# Explores the segmented-queue benchmark model with Quasar's explicit-state
# engine (testdata/lts/bench/segqueue.csp, sequential BFS, GOMAXPROCS=1)
# and with SPIN's compiled verifier (bench/spin/segqueue.pml, the same
# model; pan built with -O2 -DSAFETY -DNOREDUCE: no partial-order
# reduction, so both count the full state space), and prints the state
# counts, the rates per wall second and per CPU second, and the ratio.
# The machine may be shared: CPU-second rates are the fair comparison.
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
if ! command -v spin >/dev/null 2>&1; then
	echo "installing spin" >&2
	(apt-get install -y spin || (apt-get update && apt-get install -y spin)) >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# SPIN
(cd "$work" && spin -a "$root/bench/spin/segqueue.pml" && gcc -O2 -DSAFETY -DNOREDUCE -o pan pan.c)
# -E: the model can block (a full queue with every thread enqueuing); we
# count states, not errors. -m: DFS depth; -w24: 2^24 hash slots.
(cd "$work" && /usr/bin/time -f "%e %U %S" -o time.txt ./pan -E -m10000000 -w24 > pan.txt)
spin_states=$(awk '/states, stored/ {print $1}' "$work/pan.txt")
spin_wall=$(awk '{print $1}' "$work/time.txt")
spin_cpu=$(awk '{print $2 + $3}' "$work/time.txt")

# Quasar
GOMAXPROCS=1 go test ./lts -run '^$' -bench 'BenchmarkExploreSegQueue$' -benchtime 1x > "$work/go.txt"
line=$(grep '^BenchmarkExploreSegQueue' "$work/go.txt")
metric() { echo "$line" | awk -v m="$1" '{for (i = 2; i <= NF; i++) if ($i == m) print $(i-1)}'; }
q_states=$(metric states)
q_rate=$(metric states/s)
q_cpu_rate=$(metric states/cpu-s)
q_bytes=$(metric bytes/state)

awk -v ss="$spin_states" -v sw="$spin_wall" -v sc="$spin_cpu" \
    -v qs="$q_states" -v qr="$q_rate" -v qc="$q_cpu_rate" -v qb="$q_bytes" 'BEGIN {
	printf "SPIN   states %d  wall %.2fs  %.0f states/s  cpu %.2fs  %.0f states/cpu-s\n", ss, sw, ss / sw, sc, ss / sc
	printf "Quasar states %d  %.0f states/s  %.0f states/cpu-s  %.1f bytes/state\n", qs, qr, qc, qb
	printf "ratio Quasar/SPIN: %.2f (wall)  %.2f (cpu)\n", qr / (ss / sw), qc / (ss / sc)
	if (ss != qs) printf "WARNING: state counts differ\n"
}'
