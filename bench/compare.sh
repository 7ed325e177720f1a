#!/bin/sh
# Two binaries side by side on the same scenarios, for a shared, noisy machine: runs of
# `tephra run SCENARIO --threads T --format json --summary` alternate between BEFORE and AFTER,
# REPS of each, and each line gives the median session ms, the median of each action's ms and
# the median CPU time of the whole process (load included: on a loaded machine the wall times
# stretch, the CPU times much less). The load average is printed at start and end.
#
#   bench/compare.sh BEFORE AFTER THREADS REPS SCENARIO...
#
# The environment passes through (set OMP_DYNAMIC=false to keep the teams asked for).
set -eu
[ $# -ge 5 ] || { echo "usage: $0 BEFORE AFTER THREADS REPS SCENARIO..." >&2; exit 2; }
before=$1 after=$2 threads=$3 reps=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One run: "session_ms cpu_ms action=ms ..." appended to $tmp/$2.
run() {
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$1" run "$3" --threads "$threads" --format json \
		--summary >"$tmp/out" 2>/dev/null
	cpu=$(awk '{ printf "%.0f", ($1 + $2) * 1000 }' "$tmp/time")
	sess=$(sed -n 's/.*"session_ms": \([0-9.]*\).*/\1/p' "$tmp/out")
	acts=$(sed -n 's/.*"actions": {\([^}]*\)}.*/\1/p' "$tmp/out" | tr -d '" ' | tr ',:' ' =')
	echo "$sess $cpu $acts" >>"$tmp/$2"
}

# The median of column $1 (a number, or for "name" the value of name=ms) of file $2.
median() {
	awk -v c="$1" '{
		if (c ~ /^[0-9]+$/) { print $c; next }
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == c) print kv[2] }
	}' "$2" | sort -n | awk '{ v[NR] = $1 }
	END { if (NR % 2) printf "%.1f", v[(NR + 1) / 2]; else if (NR) printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for f in "$@"; do
	rm -f "$tmp/before" "$tmp/after"
	i=0
	while [ $i -lt "$reps" ]; do
		run "$before" before "$f"
		run "$after" after "$f"
		i=$((i + 1))
	done
	for side in before after; do
		line="$(basename "$f") $side: session $(median 1 "$tmp/$side") ms, CPU $(median 2 "$tmp/$side") ms;"
		for a in $(awk '{ for (i = 3; i <= NF; i++) { split($i, kv, "="); print kv[1] } }' \
			"$tmp/$side" | sort -u); do
			line="$line $a $(median "$a" "$tmp/$side")"
		done
		echo "$line"
	done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
