// Micro benchmarks over synthetic clusters: resource fit and full filtering over N nodes, each
// scoring plugin's pass over N nodes, one task through filtering and scoring with the default
// conf, statement allocate/discard, and snapshot + session open.
// Every timed call goes through the public API (tephra/probe.h for single passes).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>

#include "bench.h"

namespace tb
{

using benchmark::Counter;

static const char *const kFitOnly = "actions: \"\"\ntiers: []\n";

// Clusters are expensive to build: one per shape, kept for the program's lifetime.
static Setup *setup_for(uint32_t nodes, uint32_t pending, uint32_t running, const std::string &conf)
{
	static std::map<std::string, std::unique_ptr<Setup>> cache;
	std::string key = std::to_string(nodes) + "/" + std::to_string(pending) + "/" +
	                  std::to_string(running) + "/" + conf;
	auto &slot = cache[key];
	if (!slot) {
		slot = std::make_unique<Setup>();
		slot->cluster = make_cluster(nodes, pending, running);
		slot->conf = conf_from(conf);
		tph_diag d{};
		if (!slot->cluster || tph_cluster_snapshot(slot->cluster, 0, &slot->snap, &d))
			slot->snap = nullptr;
	}
	return slot->snap ? slot.get() : nullptr;
}

static tph_session *open_session(benchmark::State &st, Setup *su, int threads)
{
	tph_session *s = nullptr;
	tph_diag d{};
	tph_session_opts o{};
	o.threads = threads;
	if (!su)
		st.SkipWithError("could not build the cluster");
	else if (tph_session_open(su->snap, su->conf, &o, &s, &d))
		st.SkipWithError(d.msg);
	return s;
}

static tph_idx first_pending(const tph_session *s)
{
	for (tph_idx t = 0; t < tph_session_task_count(s); t++)
		if (!std::strcmp(tph_session_task_status(s, t), "Pending"))
			return t;
	return 0;
}

// Filtering: resource fit alone (no plugin) or fit + the plugins of `conf`.
static void BM_Filter(benchmark::State &st, std::string conf)
{
	uint32_t nodes = uint32_t(st.range(0));
	tph_session *s = open_session(st, setup_for(nodes, 1, 0, conf), int(st.range(1)));
	if (!s)
		return;
	tph_idx task = first_pending(s);
	std::vector<tph_idx> feas(nodes);
	uint32_t k = 0;
	for (auto _ : st) {
		k = tph_session_filter(s, task, nullptr, 0, feas.data());
		benchmark::DoNotOptimize(k);
	}
	st.counters["feasible"] = k;
	st.counters["s_per_node"] =
	    Counter(nodes, Counter::kIsIterationInvariantRate | Counter::kInvert);
	tph_session_free(s);
}

// Scoring: PrioritizeNodes over every candidate with only the plugins of `conf`.
static void BM_Score(benchmark::State &st, std::string conf)
{
	uint32_t nodes = uint32_t(st.range(0));
	tph_session *s = open_session(st, setup_for(nodes, 1, 0, conf), int(st.range(1)));
	if (!s)
		return;
	tph_idx task = first_pending(s);
	const tph_idx *cand;
	uint32_t n = tph_session_candidates(s, &cand);
	std::vector<double> out(n);
	for (auto _ : st) {
		tph_session_score(s, task, cand, n, out.data());
		benchmark::DoNotOptimize(out.data());
	}
	st.counters["s_per_node"] =
	    Counter(n, Counter::kIsIterationInvariantRate | Counter::kInvert);
	tph_session_free(s);
}

// The whole per-task pipeline: filtering (fit + predicates) over every candidate, then
// PrioritizeNodes over the feasible ones, with Volcano's default conf plus binpack (the
// 10k-standard conf; conf.cc). The figure the threads target is quoted for.
static void BM_FilterScore(benchmark::State &st)
{
	uint32_t nodes = uint32_t(st.range(0));
	std::string dropped, conf = default_conf(&dropped);
	tph_session *s = open_session(st, setup_for(nodes, 1, 0, conf), int(st.range(1)));
	if (!s)
		return;
	st.SetLabel(dropped.empty() ? "default conf" : "default conf without " + dropped);
	tph_idx task = first_pending(s);
	std::vector<tph_idx> feas(nodes);
	std::vector<double> score(nodes);
	uint32_t k = 0;
	for (auto _ : st) {
		k = tph_session_filter(s, task, nullptr, 0, feas.data());
		tph_session_score(s, task, feas.data(), k, score.data());
		benchmark::DoNotOptimize(score.data());
	}
	st.counters["feasible"] = k;
	st.counters["s_per_node"] =
	    Counter(nodes, Counter::kIsIterationInvariantRate | Counter::kInvert);
	tph_session_free(s);
}

// Allocate k pending tasks on k nodes, then discard: the statement's apply/undo cost with the
// event handlers of `conf` firing.
static void BM_StmtAllocateDiscard(benchmark::State &st, std::string conf)
{
	uint32_t k = uint32_t(st.range(0));
	tph_session *s = open_session(st, setup_for(1000, 1024, 0, conf), 1);
	tph_probe_stmt *p = nullptr;
	if (!s || tph_probe_stmt_begin(s, &p)) {
		tph_session_free(s);
		return;
	}
	std::vector<tph_idx> tasks;
	for (tph_idx t = 0; t < tph_session_task_count(s) && tasks.size() < k; t++)
		if (!std::strcmp(tph_session_task_status(s, t), "Pending"))
			tasks.push_back(t);
	for (auto _ : st) {
		for (uint32_t i = 0; i < tasks.size(); i++)
			tph_probe_stmt_allocate(p, tasks[i], i % 1000);
		tph_probe_stmt_discard(p);
	}
	st.counters["s_per_op"] =
	    Counter(double(tasks.size()), Counter::kIsIterationInvariantRate | Counter::kInvert);
	tph_probe_stmt_end(p);
	tph_session_free(s);
}

static void memory_counters(benchmark::State &st, const tph_snapshot *sn, const tph_session *s)
{
	double n = tph_snapshot_node_count(sn), t = tph_snapshot_task_count(sn);
	double snap = double(tph_snapshot_bytes(sn)), ssn = double(tph_session_bytes(s));
	st.counters["nodes"] = n;
	st.counters["tasks"] = t;
	st.counters["snapshot_B"] = snap;
	st.counters["session_B"] = ssn;
	// The budget: 256 bytes per node + 128 bytes per task.
	st.counters["session_budget_ratio"] = ssn / (256 * n + 128 * t);
	st.counters["peak_rss_B"] = peak_rss_bytes();
}

// What BM_SnapshotOpen times of snapshot, open, close, free and release.
enum {
	SNAP_AND_OPEN = 0, // snapshot + open
	SNAP_ONLY = 1,
	OPEN_ONLY = 2,
	WHOLE_CYCLE = 3 // all five, without actions
};

// One iteration of BM_SnapshotOpen: returns false (and skips) on error. Timing is paused
// around the steps the part leaves out.
static bool snap_open_once(benchmark::State &st, Setup *su, const tph_session_opts &o, int part)
{
	tph_snapshot *sn = nullptr;
	tph_session *s = nullptr;
	tph_diag d{};
	bool running = true;
	auto timed = [&](bool on) {
		if (on != running)
			on ? st.ResumeTiming() : st.PauseTiming();
		running = on;
	};
	if (part == OPEN_ONLY)
		timed(false);
	int rc = tph_cluster_snapshot(su->cluster, 0, &sn, &d);
	if (part == OPEN_ONLY || part == SNAP_ONLY)
		timed(part == OPEN_ONLY);
	rc = rc ? rc : tph_session_open(sn, su->conf, &o, &s, &d);
	rc = rc || part != WHOLE_CYCLE ? rc : tph_session_close(s, &d);
	timed(false);
	if (rc)
		st.SkipWithError(d.msg);
	else
		memory_counters(st, sn, s);
	timed(part == WHOLE_CYCLE);
	tph_session_free(s);
	if (sn)
		tph_snapshot_release(sn);
	timed(true);
	return rc == TPH_OK;
}

// The first cycle's snapshot + open, which the iterations (steady state: the session cache
// holds the last session's memory, the cluster the last snapshot's) do not show: with the
// session cache emptied, and, on a cluster's first run (the first part registered), no snapshot
// parked either. Milliseconds; -1 on error.
static double cold_snap_open_ms(Setup *su, const tph_session_opts &o)
{
	tph_session_cache_trim();
	tph_snapshot *sn = nullptr;
	tph_session *s = nullptr;
	tph_diag d{};
	auto t0 = std::chrono::steady_clock::now();
	int rc = tph_cluster_snapshot(su->cluster, 0, &sn, &d);
	rc = rc ? rc : tph_session_open(sn, su->conf, &o, &s, &d);
	std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - t0;
	tph_session_free(s);
	if (sn)
		tph_snapshot_release(sn);
	return rc ? -1 : ms.count();
}

// Snapshot and session open over a cluster of `nodes` and `tasks` tasks of which a quarter
// run, with Volcano's default conf (what is built of it); the part says which steps count.
static void BM_SnapshotOpen(benchmark::State &st)
{
	uint32_t nodes = uint32_t(st.range(0)), tasks = uint32_t(st.range(1));
	uint32_t running = tasks / 4 > nodes ? tasks / 4 - nodes : 0;
	std::string dropped, conf = default_conf(&dropped);
	Setup *su = setup_for(nodes, tasks - running - nodes, running, conf);
	if (!su) {
		st.SkipWithError("could not build the cluster");
		return;
	}
	st.SetLabel(dropped.empty() ? "default conf" : "default conf without " + dropped);
	tph_session_opts o{};
	o.threads = 2;
	st.counters["cold_ms"] = cold_snap_open_ms(su, o);
	for (auto _ : st)
		if (!snap_open_once(st, su, o, int(st.range(2))))
			break;
}

static const char *const kScorers[] = {
    "nodeorder",  "binpack",     "usage",     "resource-strategy-fit", "tdm", "task-topology",
    "numa-aware", "deviceshare", "nodegroup", "network-topology-aware"};

static void node_args(benchmark::internal::Benchmark *b)
{
	for (long n : {1000L, 10000L, 100000L})
		for (long t : {1L, 2L})
			b->Args({n, t});
	b->ArgNames({"nodes", "threads"})->UseRealTime();
}

void register_micro()
{
	benchmark::RegisterBenchmark("fit", BM_Filter, std::string(kFitOnly))->Apply(node_args);
	if (plugin_built("predicates"))
		benchmark::RegisterBenchmark("filter/predicates", BM_Filter,
		                             std::string("actions: \"\"\ntiers:\n- plugins:\n"
		                                         "  - name: predicates\n"))
		    ->Apply(node_args);
	for (const char *p : kScorers) {
		std::string conf =
		    std::string("actions: \"\"\ntiers:\n- plugins:\n  - name: ") + p + "\n";
		auto *b = benchmark::RegisterBenchmark((std::string("score/") + p).c_str(),
		                                       BM_Score, conf);
		if (plugin_built(p))
			b->Apply(node_args);
		else
			b->Args({1000, 1})->ArgNames({"not_built_yet", "x"});
	}
	benchmark::RegisterBenchmark("filter+score", BM_FilterScore)->Apply(node_args);
	std::string none, conf = default_conf(&none);
	benchmark::RegisterBenchmark("stmt/allocate_discard/fit_only", BM_StmtAllocateDiscard,
	                             std::string(kFitOnly))
	    ->Arg(1)
	    ->Arg(64)
	    ->ArgName("k");
	benchmark::RegisterBenchmark("stmt/allocate_discard/default_conf", BM_StmtAllocateDiscard,
	                             conf)
	    ->Arg(1)
	    ->Arg(64)
	    ->ArgName("k");
	benchmark::RegisterBenchmark("snapshot_open", BM_SnapshotOpen)
	    ->Args({10000, 200000, SNAP_AND_OPEN})
	    ->Args({10000, 200000, SNAP_ONLY})
	    ->Args({10000, 200000, OPEN_ONLY})
	    ->Args({10000, 200000, WHOLE_CYCLE})
	    ->ArgNames({"nodes", "tasks", "part"})
	    ->UseRealTime()
	    ->Unit(benchmark::kMillisecond);
}

} // namespace tb
