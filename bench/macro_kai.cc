// The KAI flavour's macro benchmark: the whole session (KAI snapshot, open, the conf's actions,
// free) on the generated 10k-gpu profile, as `tephra run` times it. The profile carries no conf,
// so KAI's default decides, less the actions not built yet (the label names them). Counters:
// binds, binds per second, and whether this repetition decided as the first one did.
#include <benchmark/benchmark.h>

#include <sys/stat.h>

#include <cstdlib>
#include <cstring>

#include "bench.h"

namespace tb
{

static const char kProfile[] = "10k-gpu";

// Every decision of a run, in order, as one string.
static std::string kai_digest(const tph_kai_session *s)
{
	std::string out;
	const tph_kai_decision *d;
	uint32_t (*lists[])(const tph_kai_session *, const tph_kai_decision **) = {
	    tph_kai_session_binds, tph_kai_session_pipelined, tph_kai_session_evictions};
	for (auto list : lists) {
		uint32_t n = list(s, &d);
		for (uint32_t i = 0; i < n; i++)
			out += std::to_string(d[i].task) + ">" + std::to_string(d[i].node) + ",";
		out += ";";
	}
	return out;
}

// Whether an action runs here: a trial session over an empty cluster (TPH_ENOTSUP: not built).
static bool kai_action_built(const std::string &name)
{
	tph_kai_cluster_desc c = TPH_KAI_CLUSTER_DESC_INIT;
	tph_kai_snapshot *sn = nullptr;
	tph_kai_session *s = nullptr;
	tph_conf *conf = nullptr;
	tph_diag d{};
	std::string text = "actions: \"" + name + "\"\n";
	bool built = !tph_conf_load_kai_string(text.data(), text.size(), "trial", &conf, &d) &&
	             !tph_kai_snapshot_build(&c, 0, &sn, &d) &&
	             !tph_kai_session_open(sn, conf, &s, &d) &&
	             tph_kai_session_run(s, &d) == TPH_OK;
	tph_kai_session_free(s);
	tph_kai_snapshot_free(sn);
	tph_conf_free(conf);
	return built;
}

// KAI's default conf (tiers as they are) with the actions that are not built yet left out.
static tph_conf *kai_conf(std::string *dropped)
{
	static const char *const actions[] = {"allocate", "consolidation", "reclaim", "preempt",
	                                      "stalegangeviction"};
	std::string kept;
	for (const char *a : actions) {
		std::string &to = kai_action_built(a) ? kept : *dropped;
		to += (to.empty() ? "" : ", ") + std::string(a);
	}
	std::string text = "actions: \"" + kept + "\"\n";
	tph_conf *conf = nullptr;
	tph_diag d{};
	if (tph_conf_load_kai_string(text.data(), text.size(), "kai conf", &conf, &d))
		return nullptr;
	return conf;
}

struct KaiRun {
	tph_kai_snapshot *snap = nullptr;
	tph_kai_session *ssn = nullptr;
	~KaiRun()
	{
		tph_kai_session_free(ssn);
		tph_kai_snapshot_free(snap);
	}
};

static int kai_run(const tph_scenario *sc, const tph_conf *conf, KaiRun &r, tph_diag *d)
{
	int rc =
	    tph_kai_snapshot_build(tph_scenario_kai_cluster(sc), tph_scenario_now(sc), &r.snap, d);
	rc = rc ? rc : tph_kai_session_open(r.snap, conf, &r.ssn, d);
	return rc ? rc : tph_kai_session_run(r.ssn, d);
}

static void BM_KaiSession(benchmark::State &st, std::string path)
{
	Setup su;
	std::string dropped;
	tph_diag d{};
	if (tph_scenario_load_file(path.c_str(), &su.scn, &d)) {
		st.SkipWithError(d.msg);
		return;
	}
	su.conf = kai_conf(&dropped);
	if (!su.conf) {
		st.SkipWithError("cannot load KAI's default conf");
		return;
	}
	double binds = 0;
	// The first repetition's decisions, which every later one (each a call of this function,
	// one iteration each) must repeat.
	static std::string first;
	bool same = true;
	for (auto _ : st) {
		KaiRun r;
		if (kai_run(su.scn, su.conf, r, &d)) {
			st.SkipWithError(d.msg);
			break;
		}
		const tph_kai_decision *b;
		binds = tph_kai_session_binds(r.ssn, &b);
		st.PauseTiming();
		std::string digest = kai_digest(r.ssn);
		same = same && (first.empty() || digest == first);
		first = first.empty() ? digest : first;
		st.ResumeTiming();
	}
	st.SetLabel(dropped.empty() ? "KAI default conf" : "KAI default conf without " + dropped);
	st.counters["binds"] = binds;
	st.counters["tasks_per_s"] = benchmark::Counter(binds, benchmark::Counter::kIsRate);
	st.counters["peak_rss_B"] = peak_rss_bytes();
	st.counters["identical"] = same ? 1 : 0;
}

void register_macro_kai()
{
	const char *env = std::getenv("TPH_BENCH_PROFILES");
	if (env && *env && !std::strstr(env, kProfile))
		return;
	std::string path = scenario_dir() + "/" + kProfile + ".yaml";
	struct stat sb;
	if (stat(path.c_str(), &sb) != 0)
		return;
	// The KAI session is serial (docs/kai.md): one thread, named so the report's row lines
	// up with the other profiles'.
	benchmark::RegisterBenchmark((std::string("session/") + kProfile).c_str(), BM_KaiSession,
	                             path)
	    ->Args({1, 0})
	    ->ArgNames({"threads", "naive"})
	    ->Iterations(1)
	    ->UseRealTime()
	    ->Unit(benchmark::kMillisecond);
}

} // namespace tb
