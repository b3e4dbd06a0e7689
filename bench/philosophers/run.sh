#!/bin/sh
# The philosophers benchmark of the explicit-state engine: explores the
# asymmetric dining philosophers (bench/philosophers/philosophers.csp, 3^N
# states) with Quasar (deadlockfree, no symmetry reduction; 1 and 2
# workers), and its step-for-step twins with SPIN (philosophers.pml; pan
# built with -O2 -DSAFETY -DNOREDUCE: no partial-order reduction) and Rumur
# (philosophers.m, one thread), and prints per tool the state count, the
# wall and CPU seconds, the rates per wall and per CPU second, the peak RSS
# and RSS per state. The machine may be shared: the CPU rates are the fair
# comparison. Quasar also runs with --hash-compact (quasar-hc) and with
# --bitstate $BITSTATE (quasar-bs, default 64MiB: 2^29 bits, SPIN's -w29),
# its probabilistic visited sets; QUASAR_ONLY=1 skips SPIN and Rumur.
# Usage: bench/philosophers/run.sh [N ...] (default 12 14 16).
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
bitstate=${BITSTATE:-64MiB}
quasar_only=${QUASAR_ONLY:-}
for tool in $([ -n "$quasar_only" ] || echo spin rumur); do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "installing $tool" >&2
		(apt-get install -y $tool || (apt-get update && apt-get install -y $tool)) >/dev/null
	fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/quasar" ./cmd/quasar
sizes=${*:-12 14 16}

# report TOOL N STATES: prints a line from $work/time.txt (wall user sys KiB).
report() {
	awk -v tool="$1" -v n="$2" -v s="$3" '{
		cpu = $2 + $3
		printf "%-10s N=%-3d states %11d  wall %7.2fs %6.2f M/s  cpu %7.2fs %6.2f M/s  RSS %7.0f MiB %6.1f B/state\n",
			tool, n, s, $1, s / ($1 > 0 ? $1 : 0.01) / 1e6, cpu, s / (cpu > 0 ? cpu : 0.01) / 1e6, $4 / 1024, $4 * 1024 / s
	}' "$work/time.txt"
}

for n in $sizes; do
	expect=$(awk -v n="$n" 'BEGIN { s = 1; for (i = 0; i < n; i++) s *= 3; printf "%d", s }')
	echo "N=$n: 3^N = $expect states"
	sed "s/^#define N 12;/#define N $n;/" bench/philosophers/philosophers.csp > "$work/p.csp"
	for w in 1 2; do
		/usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" \
			"$work/quasar" check --symmetry=false --workers $w --json "$work/p.csp" > "$work/q.json" || true
		s=$(grep -o '"states": *[0-9]*' "$work/q.json" | head -1 | grep -o '[0-9]*$')
		report "quasar-w$w" "$n" "$s"
	done
	for mode in hc bs; do
		flag=--hash-compact
		[ $mode = bs ] && flag="--bitstate $bitstate"
		/usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" \
			"$work/quasar" check --symmetry=false --workers 1 $flag --json "$work/p.csp" > "$work/q.json" || true
		s=$(grep -o '"states": *[0-9]*' "$work/q.json" | head -1 | grep -o '[0-9]*$')
		report "quasar-$mode" "$n" "$s"
	done
	[ -z "$quasar_only" ] || continue

	(cd "$work" && spin -DN="$n" -a "$root/bench/philosophers/philosophers.pml" >/dev/null &&
		gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=16000 -o pan pan.c)
	# -m: the DFS depth, the state count at most (a DFS of this model goes
	# nearly that deep; pan allocates the stack up front); -w26: 2^26 hash
	# slots.
	(cd "$work" && /usr/bin/time -f "%e %U %S %M" -o time.txt ./pan -m$((expect + 1000)) -w26 > pan.txt) || true
	s=$(awk '/states, stored/ {print $1}' "$work/pan.txt")
	report spin "$n" "$s"

	sed "s/^const N: 12;/const N: $n;/" bench/philosophers/philosophers.m > "$work/p.m"
	# Rumur fixes the thread count when it generates the checker; its
	# lock-free set needs 16-byte compare-and-swap (-mcx16).
	rumur --threads 1 "$work/p.m" --output "$work/r.c"
	gcc -std=c11 -O2 -mcx16 -o "$work/r" "$work/r.c" -lpthread -latomic
	/usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$work/r" > "$work/r.txt" 2>&1 || true
	s=$(awk '/states, .* rules fired/ {print $1}' "$work/r.txt")
	report rumur "$n" "$s"
done
