// Shared pieces of the harness: synthetic clusters, conf reduction to what is built, session
// runs and process memory.
#include "bench.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tb
{

Setup::~Setup()
{
	if (snap)
		tph_snapshot_release(snap);
	tph_conf_free(conf);
	if (scn)
		tph_scenario_free(scn);
	else if (cluster)
		tph_cluster_destroy(cluster);
}

static constexpr int64_t GiB = int64_t(1) << 30;

static bool put_nodes(tph_cluster *c, uint32_t nodes, tph_diag *d)
{
	const tph_res_item alloc[] = {{"cpu", 32000}, {"memory", 128 * GiB}, {"pods", 110000}};
	for (uint32_t i = 0; i < nodes; i++) {
		std::string name = "n" + std::to_string(i);
		std::string zone = "zone-" + std::to_string(i % 4);
		const tph_kv labels[] = {{"kubernetes.io/hostname", name.c_str()},
		                         {"topology.kubernetes.io/zone", zone.c_str()}};
		tph_node_desc n = TPH_NODE_DESC_INIT;
		n.name = name.c_str();
		n.allocatable = {alloc, 3};
		n.labels = {labels, 2};
		if (tph_cluster_put_node(c, &n, d))
			return false;
	}
	return true;
}

static bool put_group(tph_cluster *c, const std::string &name, tph_pg_phase phase, int32_t min,
                      tph_diag *d)
{
	tph_podgroup_desc g = TPH_PODGROUP_DESC_INIT;
	g.name = name.c_str();
	g.namespace_ = "bench";
	g.queue = "q0";
	g.min_member = min;
	g.phase = phase;
	return tph_cluster_put_podgroup(c, &g, d) == TPH_OK;
}

static bool put_pod(tph_cluster *c, const std::string &name, const std::string &group,
                    const char *node, int64_t cpu, tph_diag *d)
{
	const tph_res_item req[] = {{"cpu", cpu}, {"memory", cpu / 1000 * 2 * GiB}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = name.c_str();
	p.namespace_ = "bench";
	p.pod_group = group.c_str();
	p.phase = node ? TPH_POD_RUNNING : TPH_POD_PENDING;
	p.node_name = node;
	p.requests = {req, 2};
	return tph_cluster_put_pod(c, &p, d) == TPH_OK;
}

static bool put_running(tph_cluster *c, uint32_t nodes, uint32_t extra, tph_diag *d)
{
	if (!put_group(c, "running", TPH_PG_RUNNING, 1, d))
		return false;
	for (uint32_t i = 0; i < nodes + extra; i++) {
		std::string node = "n" + std::to_string(i % nodes);
		int64_t cpu = i < nodes ? int64_t(i % 8 + 1) * 1000 : 1000;
		if (!put_pod(c, "run-" + std::to_string(i), "running", node.c_str(), cpu, d))
			return false;
	}
	return true;
}

tph_cluster *make_cluster(uint32_t nodes, uint32_t pending, uint32_t running)
{
	tph_cluster *c = nullptr;
	tph_diag d{};
	tph_queue_desc q = TPH_QUEUE_DESC_INIT;
	q.name = "q0";
	bool ok = tph_cluster_create(&c) == TPH_OK && tph_cluster_put_queue(c, &q, &d) == TPH_OK &&
	          put_nodes(c, nodes, &d) && put_running(c, nodes, running, &d);
	for (uint32_t t = 0; ok && t < pending; t++) {
		std::string g = "job" + std::to_string(t / 8);
		if (t % 8 == 0)
			ok = put_group(c, g, TPH_PG_INQUEUE, 8, &d);
		ok = ok && put_pod(c, g + "-worker-" + std::to_string(t % 8), g, nullptr, 2000, &d);
	}
	if (!ok) {
		std::fprintf(stderr, "bench: synthetic cluster: %s\n", d.msg);
		tph_cluster_destroy(c);
		return nullptr;
	}
	return c;
}

tph_conf *conf_from(const std::string &text)
{
	tph_conf *conf = nullptr;
	tph_diag d{};
	if (tph_conf_load_string(text.data(), text.size(), "bench", true, &conf, &d)) {
		std::fprintf(stderr, "bench: conf: %s\n%s", d.msg, text.c_str());
		std::exit(2);
	}
	return conf;
}

// Open (and for actions, run) a session with only `name` over an empty cluster: a plugin or
// action that is not built fails with TPH_ENOTSUP.
static bool built(const std::string &conf_text, bool run)
{
	tph_cluster *c = nullptr;
	tph_snapshot *sn = nullptr;
	tph_session *s = nullptr;
	tph_diag d{};
	tph_conf *conf = conf_from(conf_text);
	tph_session_opts o{};
	int rc = tph_cluster_create(&c);
	rc = rc ? rc : tph_cluster_snapshot(c, 0, &sn, &d);
	rc = rc ? rc : tph_session_open(sn, conf, &o, &s, &d);
	rc = rc || !run ? rc : tph_session_run(s, &d);
	tph_session_free(s);
	if (sn)
		tph_snapshot_release(sn);
	tph_cluster_destroy(c);
	tph_conf_free(conf);
	return rc != TPH_ENOTSUP;
}

bool plugin_built(const char *name)
{
	return built(std::string("actions: \"\"\ntiers:\n- plugins:\n  - name: ") + name + "\n",
	             false);
}

bool action_built(const char *name)
{
	return built(std::string("actions: \"") + name + "\"\ntiers: []\n", true);
}

std::string scenario_dir()
{
	const char *env = std::getenv("TPH_BENCH_SCENARIOS");
	return env && *env ? env : TPH_BENCH_SCENARIO_DIR;
}

double peak_rss_bytes()
{
	struct rusage ru {
	};
	getrusage(RUSAGE_SELF, &ru);
	return double(ru.ru_maxrss) * 1024.0;
}

tph_session *run_session(const tph_snapshot *snap, const tph_conf *conf,
                         const tph_session_opts &opts)
{
	tph_session *s = nullptr;
	tph_diag d{};
	int rc = tph_session_open(snap, conf, &opts, &s, &d);
	rc = rc ? rc : tph_session_run(s, &d);
	rc = rc ? rc : tph_session_close(s, &d);
	if (rc) {
		std::fprintf(stderr, "bench: session: %s\n", d.msg[0] ? d.msg : tph_strerror(rc));
		tph_session_free(s);
		return nullptr;
	}
	return s;
}

static void digest_rows(std::string &out, const char *tag, const tph_decision *d, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		out += tag;
		out += d[i].pod;
		out += '>';
		out += d[i].node ? d[i].node : "";
		out += '\n';
	}
}

std::string decisions_digest(const tph_session *s)
{
	const tph_decision_log *l = tph_session_decisions(s);
	std::string out;
	if (!l)
		return out;
	digest_rows(out, "bind ", l->binds, l->n_binds);
	digest_rows(out, "evict ", l->evictions, l->n_evictions);
	digest_rows(out, "pipeline ", l->pipelined, l->n_pipelined);
	for (uint32_t i = 0; i < l->n_phases; i++)
		out +=
		    std::string("phase ") + l->phases[i].podgroup + " " + l->phases[i].phase + "\n";
	return out;
}

} // namespace tb
