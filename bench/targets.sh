#!/bin/sh
# Issue 15's targets, measured as the issue measures them: the CLI's session_ms (cluster
# snapshot, session open, actions, close) of `tephra run P --format json --summary` on the
# generated profiles, OMP_DYNAMIC=false, medians of REPS runs at 1 and at 2 threads. The two
# thread counts alternate run by run, so a drift of the machine falls on both alike. Prints a
# markdown section on stdout.
#
#   bench/targets.sh [TEPHRA]          (default: build-bench/bin/tephra next to this repository)
#
# Environment: TPH_TARGETS_REPS (default 5), TPH_TARGETS_SEED (default 7, the issue's),
# TPH_TARGETS_DIR (where the profiles are generated once; default build-bench/scenarios-seedN),
# TPH_TARGETS_PROFILES (default all five), TPH_TARGETS_LOADED (1, the default: also the
# loaded-machine check — as many `yes > /dev/null` as cores, started TPH_TARGETS_SETTLE seconds
# (default 20) before, then 10k-standard at 1 and 2 threads alternating, with OMP_DYNAMIC=false
# and with it unset; 0 skips it).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-"$root/build-bench/bin/tephra"}
reps=${TPH_TARGETS_REPS:-5}
seed=${TPH_TARGETS_SEED:-7}
dir=${TPH_TARGETS_DIR:-"$root/build-bench/scenarios-seed$seed"}
profiles=${TPH_TARGETS_PROFILES:-"10k-preempt 10k-topology 100k-nodes 10k-standard 10k-mixed"}
loaded=${TPH_TARGETS_LOADED:-1}
settle=${TPH_TARGETS_SETTLE:-20}

[ -x "$bin" ] || { echo "targets.sh: $bin: not an executable (build it, or name it)" >&2; exit 2; }
case $reps in '' | *[!0-9]* | 0) echo "targets.sh: TPH_TARGETS_REPS must be a positive integer" >&2; exit 2 ;; esac

tmp=$(mktemp -d)
busy=""
cleanup() {
	[ -z "$busy" ] || kill $busy 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Targets in ms at 1 and 2 threads (issue 15).
limit() {
	case $1 in
	10k-preempt | 10k-mixed) echo "300 300" ;;
	10k-topology) echo "200 200" ;;
	100k-nodes) echo "1500 1500" ;;
	10k-standard) echo "150 100" ;;
	*) echo "targets.sh: no target for profile $1" >&2; exit 2 ;;
	esac
}

# session_ms of one run of scenario $1 at $2 threads; a failed run stops the script.
session_ms() {
	if ! "$bin" run "$1" --threads "$2" --format json --summary >"$tmp/out" 2>"$tmp/err"; then
		echo "targets.sh: $bin run $1 --threads $2 failed:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	v=$(sed -n 's/.*"session_ms": \([0-9.]*\).*/\1/p' "$tmp/out")
	[ -n "$v" ] || { echo "targets.sh: no session_ms in the summary of $1" >&2; exit 1; }
	echo "$v"
}

# Median, minimum and maximum of the numbers in file $1, as "median (min–max)".
stats() {
	sort -n "$1" | awk '{ v[NR] = $1 }
	END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	      printf "%.1f %.1f %.1f\n", m, v[1], v[NR] }'
}

# Alternating runs of scenario $1: REPS at 1 thread into $tmp/t1, REPS at 2 into $tmp/t2.
alternate() {
	: >"$tmp/t1"
	: >"$tmp/t2"
	i=0
	while [ $i -lt "$reps" ]; do
		session_ms "$1" 1 >>"$tmp/t1"
		session_ms "$1" 2 >>"$tmp/t2"
		i=$((i + 1))
	done
}

mkdir -p "$dir"
for p in $profiles; do
	limit "$p" >/dev/null
	f="$dir/$p.yaml"
	if [ ! -f "$f" ]; then
		"$bin" gen "$p" --seed "$seed" -o "$f.part"
		mv "$f.part" "$f"
	fi
done

echo "## Issue 15 targets (\`bench/targets.sh\`: the CLI's session_ms, seed $seed, OMP_DYNAMIC=false, medians of $reps)"
echo
echo "Runs at 1 and 2 threads alternate. Load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| profile | 1 thread ms, median (min–max) | target | 2 threads ms, median (min–max) | target | holds |"
echo "|---|---|---|---|---|---|"
for p in $profiles; do
	set -- $(limit "$p")
	l1=$1 l2=$2
	OMP_DYNAMIC=false
	export OMP_DYNAMIC
	alternate "$dir/$p.yaml"
	set -- $(stats "$tmp/t1") $(stats "$tmp/t2")
	ok=$(awk -v a="$1" -v b="$4" -v x="$l1" -v y="$l2" 'BEGIN { print (a <= x && b <= y) ? "yes" : "**no**" }')
	echo "| $p | $1 ($2–$3) | ≤ $l1 | $4 ($5–$6) | ≤ $l2 | $ok |"
done
unset OMP_DYNAMIC
echo

[ "$loaded" = 1 ] || exit 0
f="$dir/10k-standard.yaml"
if [ ! -f "$f" ]; then
	"$bin" gen 10k-standard --seed "$seed" -o "$f.part"
	mv "$f.part" "$f"
fi
n=$(nproc)
i=0
while [ $i -lt "$n" ]; do
	yes >/dev/null &
	busy="$busy $!"
	i=$((i + 1))
done
sleep "$settle"
echo "### Two threads on a loaded machine (10k-standard; $n \`yes > /dev/null\` running, target ≤ 1.2× one thread)"
echo
echo "| OMP_DYNAMIC | 1 thread ms, median (min–max) | 2 threads ms, median (min–max) | ratio | holds |"
echo "|---|---|---|---|---|"
for dyn in false unset; do
	if [ "$dyn" = false ]; then
		OMP_DYNAMIC=false
		export OMP_DYNAMIC
	else
		unset OMP_DYNAMIC
	fi
	alternate "$f"
	set -- $(stats "$tmp/t1") $(stats "$tmp/t2")
	r=$(awk -v a="$1" -v b="$4" 'BEGIN { printf "%.2f", b / a }')
	ok=$(awk -v r="$r" 'BEGIN { print r <= 1.2 ? "yes" : "**no**" }')
	echo "| $dyn | $1 ($2–$3) | $4 ($5–$6) | $r | $ok |"
done
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
