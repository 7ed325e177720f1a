#!/bin/sh
# Run the benchmark suite and rewrite bench/RESULTS.md with the median of the repetitions.
#
#   bench/run.sh [BUILD_DIR]          (default: build-bench next to this repository's root)
#
# Environment: TPH_BENCH_REPS (repetitions, default 5), TPH_BENCH_FILTER (a google-benchmark
# regex, default all), TPH_BENCH_PROFILES (generated profiles to run; default all but
# 100k-nodes and 10k-gpu, whose KAI session takes ~5 minutes of CPU a repetition),
# TPH_BENCH_OUT (the markdown file, default bench/RESULTS.md), TPH_BENCH_WERROR
# (OFF to build while someone else's file has a warning; the code generated is the same),
# TPH_BENCH_TARGETS (1, the default: append issue 15's targets measured by bench/targets.sh,
# which takes a few minutes and loads every core for its last part; 0 skips it).
# Everything from the marker line "<!-- by hand -->" to the end of the old file is kept: the
# sections written by hand below it survive a rerun.
# OMP_DYNAMIC, OMP_WAIT_POLICY and GOMP_SPINCOUNT pass through to the benchmarks and are
# recorded. Unless OMP_DYNAMIC is set, the session lets libgomp drop threads when the load
# average says the cores are busy, so "threads:2" can run on one; OMP_DYNAMIC=false measures two
# threads for real. On a machine where other processes compete for the cores,
# OMP_WAIT_POLICY=passive keeps two threads from being slower than one (see bench/README.md).
# Needs cmake, a C compiler, libbenchmark-dev and python3 (for the report only).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build-bench"}
reps=${TPH_BENCH_REPS:-5}
filter=${TPH_BENCH_FILTER:-.}
profiles=${TPH_BENCH_PROFILES:-"1k-small 10k-standard 10k-preempt 10k-topology 10k-mixed"}
out=${TPH_BENCH_OUT:-"$root/bench/RESULTS.md"}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTPH_WERROR="${TPH_BENCH_WERROR:-ON}" \
	>/dev/null
cmake --build "$build" -j"$(nproc)" --target tephra tephra_bench >/dev/null

# Scenarios are generated once per build tree; delete one to regenerate it.
mkdir -p "$build/scenarios"
for p in $profiles; do
	f="$build/scenarios/$p.yaml"
	if [ ! -f "$f" ]; then
		"$build/bin/tephra" gen "$p" --seed 1 -o "$f.part"
		mv "$f.part" "$f"
	fi
done

# The micro suite, then each profile, in a process of its own (peak RSS is per process).
load=$(cut -d' ' -f1-3 /proc/loadavg)
jsons=""
run_part() { # NAME MICRO PROFILES
	json="$build/bench-$1.json"
	TPH_BENCH_SCENARIOS="$build/scenarios" TPH_BENCH_MICRO="$2" TPH_BENCH_PROFILES="$3" \
		"$build/bin/tephra_bench" --benchmark_filter="$filter" \
		--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true \
		--benchmark_out="$json" --benchmark_out_format=json
	jsons="$jsons $json"
}
run_part micro 1 none
for p in $profiles; do
	run_part "$p" 0 "$p"
done

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain 2>/dev/null | head -1)
[ -n "$dirty" ] && commit="$commit (with uncommitted changes)"
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
cc=$(cc --version | head -1)
omp="OMP_DYNAMIC=${OMP_DYNAMIC:-unset} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}"
omp="$omp GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-unset}"

# shellcheck disable=SC2086 # the JSON paths are split on purpose
gen="$out.gen"
python3 - "$gen" "$commit" "$cpu" "$(nproc)" "$load" "$cc" "$reps" "$omp" $jsons <<'EOF'
import json, sys, datetime

out, commit, cpu, nproc, load, cc, reps, omp = sys.argv[1:9]
runs = [b for src in sys.argv[9:] for b in json.load(open(src))["benchmarks"]]
med = {b["run_name"]: b for b in runs
       if not b.get("error_occurred") and
       (b.get("aggregate_name") == "median" or b.get("run_type") == "iteration")}
errors = {b["run_name"]: b.get("error_message", "") for b in runs if b.get("error_occurred")}

def ms(b, key="real_time"):
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    return b[key] * scale

def get(name):
    return med.get(name)

def fmt(v, unit=""):
    if v is None:
        return "n/a"
    for lim, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= lim:
            return "%.2f%s%s" % (v / lim, suf, unit)
    return "%.3g%s" % (v, unit)

def session(profile, threads, naive):
    return get("session/%s/threads:%d/naive:%d/iterations:1/real_time" % (profile, threads, naive))

lines = []
w = lines.append
w("# Benchmark results")
w("")
w("Written by `bench/run.sh`; every figure is the **median of %s repetitions**." % reps)
w("")
w("| | |")
w("|---|---|")
w("| date | %s |" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
w("| commit | %s |" % commit)
w("| machine | %s cores, %s |" % (nproc, cpu))
w("| load average at start | %s (other processes competing for the cores inflate wall times, most of all with 2 threads) |" % load)
w("| compiler | %s, Release (-O2) |" % cc)
w("| OpenMP environment | %s |" % omp)
w("")

# ---- targets ----
w("## Targets")
w("")
w("| target | measured | holds |")
w("|---|---|---|")
def target(name, value, ok):
    w("| %s | %s | %s |" % (name, value, "n/a" if ok is None else ("yes" if ok else "**no**")))
s1, s2 = session("10k-standard", 1, 0), session("10k-standard", 2, 0)
for n, s in ((2, s2), (1, s1)):
    if not s:
        target("10k-standard full session <= 1 s (%d thread%s)" % (n, "s" * (n > 1)), "not run", None)
        continue
    t = ms(s)
    target("10k-standard full session <= 1 s (%d thread%s)" % (n, "s" * (n > 1)),
           "%.0f ms (CPU %.0f ms)" % (t, ms(s, "cpu_time")), t <= 1000)
    target("... >= 100,000 tasks bound per second (%d thread%s)" % (n, "s" * (n > 1)),
           "%s tasks/s" % fmt(s.get("tasks_per_s")), s.get("tasks_per_s", 0) >= 1e5)
sn = session("10k-standard", 2, 1)
if s2 and sn:
    r = ms(sn) / ms(s2)
    same = sn.get("identical", 0) >= 1
    target("naive / fast >= 20x on 10k-standard, identical decisions",
           "%.1fx, %s" % (r, "identical" if same else "DIFFERENT"), r >= 20 and same)
so = get("snapshot_open/nodes:10000/tasks:200000/part:0/real_time")
if so:
    target("snapshot + session open, 10k nodes / 200k tasks <= 10 ms", "%.2f ms" % ms(so), ms(so) <= 10)
if s1 and s2 and s2.get("filter_score_ms"):
    r = s1["filter_score_ms"] / s2["filter_score_ms"]
    target("filtering + scoring speed-up 1 -> 2 threads >= 1.7x (10k-standard session)",
           "%.2fx (%.0f -> %.0f ms)" % (r, s1["filter_score_ms"], s2["filter_score_ms"]), r >= 1.7)
for n in (10000, 100000):
    a = get("filter/predicates/nodes:%d/threads:1/real_time" % n)
    b = get("filter/predicates/nodes:%d/threads:2/real_time" % n)
    if a and b:
        target("filter (fit + predicates) speed-up 1 -> 2 threads, %dk nodes" % (n // 1000),
               "%.2fx" % (ms(a) / ms(b)), None)
if s2:
    r = s2.get("session_budget_ratio")
    target("session memory <= 256 B/node + 128 B/task (10k-standard, after close)",
           "%.2f of the budget (%.2f after open, %.2f after the actions)" %
           (r, s2.get("open_budget_ratio", 0), s2.get("run_budget_ratio", 0)), r <= 1)
w("")

# ---- macro ----
w("## Full sessions (snapshot, open, actions, close)")
w("")
w("CPU ms is the CPU time of the benchmark's main thread; with one thread it is the wall time")
w("an idle machine would show, when other processes compete for the cores.")
w("")
w("Memory: the session arena after close, per node and per task, and as a share of the budget")
w("(256 B per node + 128 B per task) after open / after the actions / after close.")
w("")
w("| profile | threads | naive | wall ms | CPU ms | tasks bound | tasks/s | ns per task-node eval | filter+score ms | session B/node | B/task | budget open/run/close | peak RSS | identical | conf |")
w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for name, b in med.items():
    if not name.startswith("session/"):
        continue
    parts = name.split("/")
    w("| %s | %s | %s | %.1f | %.1f | %d | %s | %.1f | %.1f | %s | %s | %.2f/%.2f/%.2f | %s | %s | %s |" % (
        parts[1], parts[2].split(":")[1], parts[3].split(":")[1], ms(b), ms(b, "cpu_time"),
        b.get("binds", 0),
        fmt(b.get("tasks_per_s")), b.get("s_per_eval", 0) * 1e9, b.get("filter_score_ms", 0),
        fmt(b.get("session_B_per_node")), fmt(b.get("session_B_per_task")),
        b.get("open_budget_ratio", 0), b.get("run_budget_ratio", 0),
        b.get("session_budget_ratio", 0), fmt(b.get("peak_rss_B"), "B"),
        "yes" if b.get("identical") else "no", b.get("label") or "as generated"))
w("")
w("## Scenario load (YAML parse, decode, build)")
w("")
w("| profile | total ms | parse ms | decode ms | build ms |")
w("|---|---|---|---|---|")
for name, b in med.items():
    if name.startswith("load/"):
        w("| %s | %.1f | %.1f | %.1f | %.1f |" % (name.split("/")[1], ms(b), b.get("parse_ms", 0),
                                                b.get("decode_ms", 0), b.get("build_ms", 0)))
w("")
w("## Micro benchmarks")
w("")
w("| benchmark | wall | CPU | per node / op | notes |")
w("|---|---|---|---|---|")
for name, b in med.items():
    if name.startswith(("session/", "load/")):
        continue
    per = b.get("s_per_node", b.get("s_per_op"))
    note = b.get("label", "")
    if "session_budget_ratio" in b:
        note = "%s; snapshot %sB, session %sB (%.2f of budget)" % (
            note, fmt(b["snapshot_B"]), fmt(b["session_B"]), b["session_budget_ratio"])
    w("| %s | %.4f ms | %.4f ms | %s | %s |" % (name.replace("/real_time", ""), ms(b),
                                               ms(b, "cpu_time"),
                                               "%.1f ns" % (per * 1e9) if per else "", note))
for name, msg in sorted(errors.items()):
    w("| %s | skipped | | | %s |" % (name, msg))
w("")
open(out, "w").write("\n".join(lines))
EOF

# What each plugin costs a session (bench/plugin_cost.sh), appended to the report.
if [ -f "$build/scenarios/10k-standard.yaml" ]; then
	{
		printf '\n## Plugin costs (10k-standard, session ms, medians of %s)\n\n' "$reps"
		TPH_BENCH_REPS=$reps "$root/bench/plugin_cost.sh" "$build/bin/tephra" \
			"$build/scenarios/10k-standard.yaml"
	} >>"$gen"
fi

if [ "${TPH_BENCH_TARGETS:-1}" = 1 ]; then
	printf '\n' >>"$gen"
	"$root/bench/targets.sh" "$build/bin/tephra" >>"$gen"
fi

# The hand-written sections of the old file follow the generated ones.
marker='<!-- by hand -->'
if [ -f "$out" ] && grep -qxF "$marker" "$out"; then
	sed -n "/^$marker\$/,\$p" "$out" >>"$gen"
else
	printf '\n%s\n' "$marker" >>"$gen"
fi
mv "$gen" "$out"
echo "wrote $out"
