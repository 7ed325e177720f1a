#!/bin/sh
# What each of Volcano's plugins costs a session: the 10k-standard profile run with its own conf
# (Volcano's Helm-chart conf), then with that conf plus one plugin at a time (default arguments,
# in the second tier), then with all 24 (bench/confs/all-plugins.conf). Medians of
# TPH_BENCH_REPS session times, runs interleaved so a noisy machine hits every variant alike.
# Prints a markdown table (bench/README.md, "Plugin costs").
#
#   bench/plugin_cost.sh [TEPHRA] [SCENARIO]   (defaults: build/bin/tephra, a generated
#                                                10k-standard with --seed 1 under build/)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tephra=${1:-"$root/build/bin/tephra"}
scn=${2:-"$root/build/plugin-cost-10k-standard.yaml"}
reps=${TPH_BENCH_REPS:-5}
[ -f "$scn" ] || "$tephra" gen 10k-standard --seed 1 -o "$scn"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

base='actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack'
printf '%s\n' "$base" > "$work/base.conf"
extra="sla pdb cdp tdm resource-strategy-fit resourcequota nodegroup usage task-topology numa-aware
deviceshare rescheduling network-topology-aware extender capacity"
for p in $extra; do
	printf '%s\n  - name: %s\n' "$base" "$p" > "$work/$p.conf"
done
cp "$root/bench/confs/all-plugins.conf" "$work/all-24.conf"
variants="base $extra all-24"

session_ms() {
	"$tephra" run "$scn" --conf "$work/$1.conf" --summary --format json |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["timing"]["session_ms"], d["counts"]["binds"])'
}
for i in $(seq "$reps"); do
	for v in $variants; do
		session_ms "$v" >> "$work/$v.times"
	done
done
python3 - "$work" $variants <<'PY'
import statistics, sys
work, variants = sys.argv[1], sys.argv[2:]
med = {}
for v in variants:
    rows = [l.split() for l in open(f"{work}/{v}.times")]
    med[v] = (statistics.median(float(r[0]) for r in rows), rows[0][1])
b = med["base"][0]
print("| conf | session ms (median) | vs Helm conf | binds |")
print("|---|---|---|---|")
for v in variants:
    ms, binds = med[v]
    name = "Helm-chart conf" if v == "base" else ("all 24 plugins" if v == "all-24" else "+ " + v)
    print(f"| {name} | {ms:.1f} | {ms - b:+.1f} ms ({ms / b:.2f}x) | {binds} |")
PY
