/* Writing the workload: one flow-style line per podgroup and per pod. A pending job's
 * constraints are formatted once into a stack buffer and appended to each of its pods, so
 * the per-pod cost is a handful of memcpy calls. */
#include "gen.h"

#include <stdarg.h>
#include <string.h>

static const char *const prio_names[] = {"high", "normal", "low"};
static const char *const phase_names[] = {"Pending", "Inqueue", "Running"};

static void write_ns(gen_out *w, uint32_t queue)
{
	out_str(w, ", namespace: team");
	out_u64(w, queue);
}

/* Pods of the default class (normal, globalDefault) leave it out: a quarter less to parse. */
static void write_prio(gen_out *w, uint8_t prio)
{
	if (prio == PRIO_NORMAL)
		return;
	out_str(w, ", priorityClassName: ");
	out_str(w, prio_names[prio]);
}

static void write_requests(gen_out *w, int64_t cpu, int64_t mem, int64_t gpu)
{
	out_str(w, "{cpu: ");
	out_milli(w, cpu);
	out_str(w, ", memory: ");
	out_bytes(w, mem);
	if (gpu) {
		out_str(w, ", nvidia.com/gpu: ");
		out_milli(w, gpu * 1000);
	}
	out_str(w, "}");
}

/* A master asks for 1 cpu and 2Gi, and no GPU. */
#define MASTER_CPU 1000
#define MASTER_MEM (2 * GIB)

static void write_min(gen_out *w, const gen_job *j)
{
	bool master = j->flags & JOB_MASTER;
	int64_t workers = master ? j->min - 1 : j->min;
	if (master) {
		out_str(w, ", minTaskMember: {master: 1, worker: ");
		out_u64(w, (uint64_t)workers);
		out_str(w, "}");
	}
	out_str(w, ", minResources: ");
	write_requests(w, workers * j->cpu + (master ? MASTER_CPU : 0),
	               workers * j->mem + (master ? MASTER_MEM : 0), workers * j->gpu);
}

static void write_group(gen_out *w, const gen_job *j, char prefix, uint32_t id)
{
	out_str(w, "  - {name: ");
	out_mem(w, &prefix, 1);
	out_u64(w, id);
	write_ns(w, j->queue);
	out_str(w, ", queue: q");
	out_u64(w, j->queue);
	out_str(w, ", minMember: ");
	out_u64(w, j->min);
	if (j->phase != PHASE_RUNNING)
		write_min(w, j);
	out_str(w, ", phase: ");
	out_str(w, phase_names[j->phase]);
	out_str(w, ", priorityClassName: ");
	out_str(w, prio_names[j->prio]);
	out_str(w, ", creationTimestamp: ");
	out_time(w, j->created);
	if (j->flags & (JOB_TOPO_HARD | JOB_TOPO_SOFT))
		out_fmt(w, ", networkTopology: {mode: %s, highestTierAllowed: %u}",
		        j->flags & JOB_TOPO_HARD ? "hard" : "soft", j->topo_tier);
	out_str(w, "}\n");
}

void gen_write_podgroups(gen_state *g)
{
	out_str(g->w, "podGroups:\n");
	for (uint32_t k = 0; k < g->n_rjobs; k++)
		write_group(g->w, &g->rjobs[k], 'r', k);
	for (uint32_t k = 0; k < g->n_jobs; k++)
		write_group(g->w, &g->jobs[k], 'j', k);
}

static void write_running_pod(gen_state *g, const gen_pod *p, uint32_t index)
{
	gen_out *w = g->w;
	const gen_job *j = &g->rjobs[p->job];
	out_str(w, "  - {name: r");
	out_u64(w, p->job);
	out_str(w, "-worker-");
	out_u64(w, index);
	write_ns(w, j->queue);
	out_str(w, ", podGroup: r");
	out_u64(w, p->job);
	out_str(w, ", phase: Running, nodeName: n");
	out_u64(w, p->node);
	out_str(w, ", requests: ");
	write_requests(w, p->cpu, p->mem, p->gpu);
	write_prio(w, j->prio);
	out_str(w, "}\n");
}

/* A job's constraint text, built once per job in a stack buffer. */
typedef struct extra_buf {
	char p[1024];
	size_t n;
} extra_buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
add(extra_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(b->p + b->n, sizeof b->p - b->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		b->n = b->n + (size_t)k < sizeof b->p ? b->n + (size_t)k : sizeof b->p - 1;
}

/* Tolerations, node selectors and node affinity. */
static void node_extra(const gen_job *j, extra_buf *b)
{
	if (j->flags & JOB_GPU)
		add(b,
		    ", tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]");
	if (j->flags & JOB_TYPE_SEL)
		add(b, ", nodeSelector: {node.kubernetes.io/instance-type: %s}",
		    gen_node_types[j->sel].name);
	if (j->flags & JOB_ZONE_SEL)
		add(b, ", nodeSelector: {topology.kubernetes.io/zone: %s}", gen_zones[j->sel]);
	if (j->flags & JOB_TYPE_AFF)
		add(b,
		    ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
		    "{nodeSelectorTerms: [{matchExpressions: [{key: "
		    "node.kubernetes.io/instance-type, "
		    "operator: In, values: [cpu-medium, cpu-large]}]}]}}}");
	if (j->flags & JOB_ZONE_PREF)
		add(b,
		    ", affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
		    "[{weight: 10, preference: {matchExpressions: [{key: "
		    "topology.kubernetes.io/zone, "
		    "operator: In, values: [%s]}]}}]}}",
		    gen_zones[j->sel]);
}

/* Labels, pod anti-affinity and topology spread between the job's own pods. */
static void pod_extra(const gen_job *j, uint32_t id, extra_buf *b)
{
	if (j->flags & (JOB_ANTI | JOB_SPREAD))
		add(b, ", labels: {job: j%u}", id);
	if (j->flags & JOB_ANTI)
		add(b,
		    ", affinity: {podAntiAffinity: "
		    "{requiredDuringSchedulingIgnoredDuringExecution: "
		    "[{labelSelector: {matchLabels: {job: j%u}}, topologyKey: "
		    "kubernetes.io/hostname}]}}",
		    id);
	if (j->flags & JOB_SPREAD)
		add(b,
		    ", topologySpreadConstraints: [{maxSkew: 2, topologyKey: "
		    "topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: "
		    "{matchLabels: {job: j%u}}}]",
		    id);
}

static void write_job_pods(gen_state *g, const gen_job *j, uint32_t id)
{
	gen_out *w = g->w;
	extra_buf extra = {.n = 0};
	node_extra(j, &extra);
	pod_extra(j, id, &extra);
	bool master = j->flags & JOB_MASTER;
	for (uint32_t t = 0; t < j->size; t++) {
		bool m = master && t == 0;
		out_str(w, "  - {name: j");
		out_u64(w, id);
		out_str(w, m ? "-master-" : "-worker-");
		out_u64(w, m || !master ? t : t - 1);
		write_ns(w, j->queue);
		out_str(w, ", podGroup: j");
		out_u64(w, id);
		out_str(w, ", requests: ");
		write_requests(w, m ? MASTER_CPU : j->cpu, m ? MASTER_MEM : j->mem, m ? 0 : j->gpu);
		if (master)
			out_str(w, m ? ", taskSpec: master" : ", taskSpec: worker");
		write_prio(w, j->prio);
		out_mem(w, extra.p, extra.n);
		out_str(w, "}\n");
	}
}

void gen_write_pods(gen_state *g)
{
	out_str(g->w, "pods:\n");
	for (uint32_t k = 0, index = 0; k < g->n_run; k++) {
		index = k && g->run[k - 1].job == g->run[k].job ? index + 1 : 0;
		write_running_pod(g, &g->run[k], index);
	}
	for (uint32_t k = 0; k < g->n_jobs; k++)
		write_job_pods(g, &g->jobs[k], k);
}
