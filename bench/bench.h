// The benchmark harness: google benchmark over tephra's public C API only. Micro benchmarks
// (micro.cc) build synthetic clusters through the cache API; macro benchmarks (macro.cc) run
// whole sessions over scenario files written by `tephra gen` (bench/run.sh makes them).
#ifndef TPH_BENCH_H
#define TPH_BENCH_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tephra/tephra.h"

namespace tb
{

// Owns the objects of one synthetic or loaded setup; frees them in the right order.
struct Setup {
	tph_scenario *scn = nullptr; // when loaded from a file (owns cluster and conf)
	tph_cluster *cluster = nullptr;
	tph_conf *conf = nullptr; // owned here (a reduced conf, or a micro's conf)
	tph_snapshot *snap = nullptr;
	std::string dropped; // plugins/actions left out of a reduced conf
	Setup() = default;
	Setup(const Setup &) = delete;
	Setup &operator=(const Setup &) = delete;
	~Setup();
};

// A synthetic cluster through tph_cluster_put_*: `nodes` nodes of 32 cpu / 128Gi / 110 pods
// (zone and hostname labels), one running pod per node of 1-8 cpu so idle differs, and
// `pending` pending tasks (2 cpu, 4Gi) in Inqueue gangs of 8 over one queue, plus `running`
// extra running tasks spread over the nodes. Returns nullptr on error (message on stderr).
tph_cluster *make_cluster(uint32_t nodes, uint32_t pending, uint32_t running);

// Whether a plugin or action is built into this tephra (trial session over an empty cluster).
bool plugin_built(const char *name);
bool action_built(const char *name);

// Load a conf from text; aborts the benchmark program on error (a harness bug).
tph_conf *conf_from(const std::string &text);

// Volcano's default conf plus binpack (the generator's 10k-standard conf) with the plugins
// and actions that are not built yet left out; `dropped` lists them.
std::string default_conf(std::string *dropped);

// The scenario's conf, or, when it names plugins or actions that are not built yet, the same
// conf without them (plugin arguments are lost then; `dropped` lists what was left out).
// Returns nullptr when the scenario's conf can be used as is.
tph_conf *reduced_conf(const tph_conf *conf, std::string *dropped);

// Where `tephra gen` output lives: $TPH_BENCH_SCENARIOS, else the build's scenarios/.
std::string scenario_dir();

// Peak resident set of this process, bytes (getrusage).
double peak_rss_bytes();

// Run one whole session (snapshot, open, actions, close) and return it, closed, for the caller
// to read and free; nullptr on error (message on stderr).
tph_session *run_session(const tph_snapshot *snap, const tph_conf *conf,
                         const tph_session_opts &opts);

// The binds, evictions and pipelined decisions of a closed session, one string, for
// comparing two runs.
std::string decisions_digest(const tph_session *s);

void register_micro();
void register_macro();
// The KAI flavour's session on the 10k-gpu profile (macro_kai.cc).
void register_macro_kai();

} // namespace tb

#endif
