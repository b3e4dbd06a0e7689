#!/bin/sh
# Refinement with one and two workers, side by side: runs `quasar check`
# on refinement assertions of the model library (generated with `quasar
# models get`) with --workers 1 and --workers 2, the runs interleaved
# ROUNDS times (default 8), and prints for each the median and range of
# the wall and CPU seconds of the whole process, the speed-up of the
# medians, and checks that both worker counts print the same result line
# (verdict, states, transitions, pairs: the search is the one-worker
# search for any number of workers). The machine may be shared and its
# virtual CPUs move between cores: compare medians of interleaved runs.
# Usage: bench/refine/run.sh [ROUNDS]
set -eu
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/quasar" ./cmd/quasar
rounds=${1:-8}

# The checks: NAME, the model and its parameters, the assertion's text.
cat > "$work/checks" <<'EOF'
seg4-quasi2|segqueue seg=4|Impl() refines<quasi 2 on {deq} barrier {deq.0}> Queue()
seg4-vals3-cluster|segqueue qf=1 seg=4 vals=3|Impl() refines ClusterSpec()
qf2-seg3-cluster|segqueue qf=2 seg=3|Impl() refines ClusterSpec()
seg3-self-F|segqueue qf=1 seg=3|Impl() refines <F> Impl()
EOF

# median prints the median, min and max of the numbers on stdin.
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f (%.3f-%.3f)", m, v[1], v[NR]
	}'
}

while IFS='|' read -r name model assertion; do
	# shellcheck disable=SC2086
	"$work/quasar" models get $model > "$work/m.csp"
	case $assertion in
	*"<F>"*)
		# Not an assertion of the library's: appended.
		printf '\n#assert %s;\n' "$assertion" >> "$work/m.csp"
		;;
	esac
	: > "$work/t1"
	: > "$work/t2"
	for r in $(seq "$rounds"); do
		for w in 1 2; do
			/usr/bin/time -f "%e %U %S" -o "$work/time.txt" \
				"$work/quasar" check --workers $w --assert "$assertion" "$work/m.csp" > "$work/out$w" || true
			cat "$work/time.txt" >> "$work/t$w"
		done
		a=$(head -1 "$work/out1" | sed 's/, [0-9.]*[µm]*s, [0-9.]* [KMG]iB)$//')
		b=$(head -1 "$work/out2" | sed 's/, [0-9.]*[µm]*s, [0-9.]* [KMG]iB)$//')
		if [ "$a" != "$b" ]; then
			echo "$name: the worker counts differ:" >&2
			echo "  1: $a" >&2
			echo "  2: $b" >&2
			exit 1
		fi
	done
	echo "$name: $a"
	for w in 1 2; do
		printf '  %d worker(s): wall %s s  cpu %s s\n' "$w" \
			"$(awk '{ print $1 }' "$work/t$w" | median)" "$(awk '{ print $2 + $3 }' "$work/t$w" | median)"
	done
	m1=$(awk '{ print $1 }' "$work/t1" | median | cut -d' ' -f1)
	m2=$(awk '{ print $1 }' "$work/t2" | median | cut -d' ' -f1)
	awk -v a="$m1" -v b="$m2" 'BEGIN { printf "  speed-up of the medians: %.2f\n", a / b }'
done < "$work/checks"
