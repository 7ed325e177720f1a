// Macro benchmarks: scenario load (YAML parse vs build) and the full session (snapshot, open,
// actions, close) on each generated profile, with 1 or 2 threads and in naive mode. Counters:
// tasks bound per second, time per task-node evaluation, memory per node and per task, peak
// RSS, and whether naive mode decided exactly as fast mode.
#include <benchmark/benchmark.h>

#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <memory>

#include "bench.h"

namespace tb
{

using benchmark::Counter;

static const char *const kProfiles[] = {"1k-small",     "10k-standard", "10k-preempt",
                                        "10k-topology", "100k-nodes",   "10k-mixed"};

static std::string scenario_path(const std::string &profile)
{
	return scenario_dir() + "/" + profile + ".yaml";
}

// Facts of one reference run (2 threads, profiled) in fast or naive mode.
struct Reference {
	double evals = 0; // nodes evaluated by filtering and scoring in one session
	double session_bytes = 0, binds = 0;
	// tph_session_bytes (arena + heap held) after open and after the actions; the peak of
	// arena + heap over the session; the heap part at close
	double bytes_open = 0, bytes_run = 0, bytes_peak = 0, heap_close = 0;
	std::string digest; // its decisions
};

// One loaded profile with its reference runs ([0] fast, [1] naive).
struct Loaded {
	Setup su;
	const tph_conf *conf = nullptr;
	double snapshot_bytes = 0, nodes = 0, tasks = 0;
	Reference ref[2];
	std::string error;
};

static double evaluated(const tph_session *s)
{
	const tph_profile_row *rows;
	uint32_t n;
	double sum = 0;
	if (tph_session_profile(s, &rows, &n) == TPH_OK)
		for (uint32_t i = 0; i < n; i++)
			sum += double(rows[i].nodes);
	return sum;
}

static void reference_run(Loaded &l, bool naive)
{
	tph_session_opts o{};
	o.threads = 2;
	o.profile = true;
	o.naive = naive;
	Reference &r = l.ref[naive];
	tph_session *s = nullptr;
	tph_diag d{};
	int rc = tph_session_open(l.su.snap, l.conf, &o, &s, &d);
	r.bytes_open = rc ? 0 : double(tph_session_bytes(s));
	rc = rc ? rc : tph_session_run(s, &d);
	r.bytes_run = rc ? 0 : double(tph_session_bytes(s));
	rc = rc ? rc : tph_session_close(s, &d);
	if (rc) {
		l.error = d.msg[0] ? d.msg : tph_strerror(rc);
		tph_session_free(s);
		return;
	}
	r.evals = evaluated(s);
	r.session_bytes = double(tph_session_bytes(s));
	r.bytes_peak = double(tph_session_mem(s).peak);
	r.heap_close = double(tph_session_mem(s).heap);
	r.binds = tph_session_decisions(s)->n_binds;
	r.digest = decisions_digest(s);
	tph_session_free(s);
}

static Loaded &load(const std::string &profile)
{
	static std::map<std::string, std::unique_ptr<Loaded>> cache;
	auto &slot = cache[profile];
	if (slot)
		return *slot;
	slot = std::make_unique<Loaded>();
	Loaded &l = *slot;
	tph_diag d{};
	if (tph_scenario_load_file(scenario_path(profile).c_str(), &l.su.scn, &d) ||
	    tph_cluster_snapshot(tph_scenario_cluster(l.su.scn), tph_scenario_now(l.su.scn),
	                         &l.su.snap, &d)) {
		l.error = d.msg;
		return l;
	}
	l.su.conf = reduced_conf(tph_scenario_conf(l.su.scn), &l.su.dropped);
	l.conf = l.su.conf ? l.su.conf : tph_scenario_conf(l.su.scn);
	l.nodes = tph_snapshot_node_count(l.su.snap);
	l.tasks = tph_snapshot_task_count(l.su.snap);
	l.snapshot_bytes = double(tph_snapshot_bytes(l.su.snap));
	reference_run(l, false);
	reference_run(l, true);
	return l;
}

static void BM_Load(benchmark::State &st, std::string profile)
{
	double parse = 0, decode = 0, build = 0;
	for (auto _ : st) {
		tph_scenario *sc = nullptr;
		tph_diag d{};
		if (tph_scenario_load_file(scenario_path(profile).c_str(), &sc, &d)) {
			st.SkipWithError(d.msg);
			break;
		}
		double p, dc, b;
		tph_scenario_load_times(sc, &p, &dc, &b);
		parse += p, decode += dc, build += b;
		tph_scenario_free(sc);
	}
	double n = double(st.iterations() ? st.iterations() : 1);
	st.counters["parse_ms"] = parse / n;
	st.counters["decode_ms"] = decode / n;
	st.counters["build_ms"] = build / n;
}

static void session_counters(benchmark::State &st, const Loaded &l, const Reference &r,
                             double binds, bool same)
{
	st.counters["binds"] = binds;
	st.counters["tasks_per_s"] = Counter(binds, Counter::kIsIterationInvariantRate);
	st.counters["s_per_eval"] =
	    Counter(r.evals, Counter::kIsIterationInvariantRate | Counter::kInvert);
	st.counters["evals"] = r.evals;
	st.counters["session_B_per_node"] = r.session_bytes / l.nodes;
	st.counters["session_B_per_task"] = r.session_bytes / l.tasks;
	double budget = 256 * l.nodes + 128 * l.tasks;
	st.counters["session_budget_ratio"] = r.session_bytes / budget;
	st.counters["open_budget_ratio"] = r.bytes_open / budget;
	st.counters["run_budget_ratio"] = r.bytes_run / budget;
	st.counters["peak_budget_ratio"] = r.bytes_peak / budget;
	st.counters["session_heap_B"] = r.heap_close;
	st.counters["snapshot_B"] = l.snapshot_bytes;
	st.counters["peak_rss_B"] = peak_rss_bytes();
	// Naive and fast mode must decide identically; fast runs are checked against themselves.
	st.counters["identical"] = same && l.ref[0].digest == l.ref[1].digest ? 1 : 0;
}

// Wall time spent in filtering (Predicate) and scoring (NodeOrder), from the profile.
static double filter_score_time(const tph_session *s)
{
	const tph_profile_row *rows;
	uint32_t n;
	double ms = 0;
	if (tph_session_profile(s, &rows, &n) == TPH_OK)
		for (uint32_t i = 0; i < n; i++)
			ms += rows[i].ms;
	return ms;
}

// The full session, snapshot included, as `tephra run` times it.
static void BM_Session(benchmark::State &st, std::string profile)
{
	Loaded &l = load(profile);
	if (!l.error.empty()) {
		st.SkipWithError(l.error.c_str());
		return;
	}
	tph_session_opts o{};
	o.threads = int(st.range(0));
	o.naive = st.range(1) != 0;
	o.profile = true; // two clock reads per filter/score call: far below the noise
	tph_cluster *c = tph_scenario_cluster(l.su.scn);
	double binds = 0, filter_score_ms = 0;
	bool same = true;
	for (auto _ : st) {
		tph_snapshot *sn = nullptr;
		tph_diag d{};
		tph_session *s = nullptr;
		if (!tph_cluster_snapshot(c, tph_scenario_now(l.su.scn), &sn, &d))
			s = run_session(sn, l.conf, o);
		if (!s) {
			st.SkipWithError("session failed (see stderr)");
			if (sn)
				tph_snapshot_release(sn);
			break;
		}
		binds = tph_session_decisions(s)->n_binds;
		st.PauseTiming();
		filter_score_ms = filter_score_time(s);
		same = same && decisions_digest(s) == l.ref[0].digest;
		st.ResumeTiming();
		tph_session_free(s);
		tph_snapshot_release(sn);
	}
	if (!l.su.dropped.empty())
		st.SetLabel("conf without " + l.su.dropped);
	session_counters(st, l, l.ref[o.naive], binds, same);
	st.counters["filter_score_ms"] = filter_score_ms;
}

static bool exists(const std::string &path)
{
	struct stat sb;
	return stat(path.c_str(), &sb) == 0;
}

// $TPH_BENCH_PROFILES (names separated by spaces or commas) restricts the profiles run.
static bool wanted(const std::string &profile)
{
	const char *env = std::getenv("TPH_BENCH_PROFILES");
	if (!env || !*env)
		return true;
	std::string list = std::string(" ") + env + " ";
	for (char &ch : list)
		ch = ch == ',' ? ' ' : ch;
	return list.find(" " + profile + " ") != std::string::npos;
}

void register_macro()
{
	for (const char *p : kProfiles) {
		if (!wanted(p) || !exists(scenario_path(p)))
			continue;
		benchmark::RegisterBenchmark((std::string("load/") + p).c_str(), BM_Load,
		                             std::string(p))
		    ->Iterations(1)
		    ->UseRealTime()
		    ->Unit(benchmark::kMillisecond);
		benchmark::RegisterBenchmark((std::string("session/") + p).c_str(), BM_Session,
		                             std::string(p))
		    ->Args({1, 0})
		    ->Args({2, 0})
		    ->Args({2, 1})
		    ->ArgNames({"threads", "naive"})
		    ->Iterations(1)
		    ->UseRealTime()
		    ->Unit(benchmark::kMillisecond);
	}
}

} // namespace tb
