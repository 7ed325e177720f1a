/* Writing the 10k-gpu scenario's queues, nodes, podgroups and pods in kai-format.md, one
 * flow-style line each; a job's request text is formatted once and copied to each pod. */
#include "gen_kai.h"

#include <stdio.h>
#include <string.h>

static const char *const prio_names[] = {"train", "interactive-preemptible", "build", "inference"};
static const char *const zones[] = {"zone-a", "zone-b", "zone-c", "zone-d"};

enum {
	SECTION_READY = 13
};

/* 12 cores and 96Gi (103,079 MB: KAI's memory quota unit is 10^6 bytes) per GPU of quota. */
#define CPU_PER_GPU 12000
#define MB_PER_GPU  103079

static void write_triple(gen_out *w, const char *dim, int64_t quota, uint32_t weight, int64_t limit)
{
	out_fmt(w, "%s: {quota: %lld, overQuotaWeight: %u, limit: %lld}", dim, (long long)quota,
	        weight, (long long)limit);
}

static void write_resources(gen_out *w, int64_t gpu, uint32_t weight, int64_t limit)
{
	out_str(w, ", resources: {");
	write_triple(w, "gpu", gpu, weight, limit);
	out_str(w, ", ");
	write_triple(w, "cpu", gpu * CPU_PER_GPU, weight, limit < 0 ? -1 : limit * CPU_PER_GPU);
	out_str(w, ", ");
	write_triple(w, "memory", gpu * MB_PER_GPU, weight, limit < 0 ? -1 : limit * MB_PER_GPU);
	out_str(w, "}}\n");
}

/* Departments (top level, no limit), then leaf queues: every fourth limited to twice its
 * quota, every eighth of priority 200 (over-quota goes to higher priority first). */
void kai_write_queues(kai_state *k)
{
	gen_out *w = k->w;
	int64_t made = GEN_NOW - 30 * 86400;
	out_str(w, "queues:\n");
	for (uint32_t d = 0; d < k->n_depts; d++) {
		int64_t sum = 0;
		for (uint32_t q = d * KAI_QUEUES_PER_DEPT;
		     q < k->o->queues && q < (d + 1) * KAI_QUEUES_PER_DEPT; q++)
			sum += k->quota[q];
		out_fmt(w, "  - {name: dept%u, creationTimestamp: ", d);
		out_time(w, made + d);
		write_resources(w, sum, 1, -1);
	}
	for (uint32_t q = 0; q < k->o->queues; q++) {
		out_fmt(w, "  - {name: q%u, parentQueue: dept%u, ", q, q / KAI_QUEUES_PER_DEPT);
		if (q % 8 == 7)
			out_str(w, "priority: 200, ");
		out_str(w, "creationTimestamp: ");
		out_time(w, made + 1000 + q);
		int64_t quota = k->quota[q];
		write_resources(w, quota, k->oq_weight[q], q % 4 == 1 ? 2 * quota : -1);
	}
}

static void write_node(kai_state *k, uint32_t n, bool ready)
{
	gen_out *w = k->w;
	const kai_node_type *t = kai_node(k, n);
	uint32_t rack = n / k->o->rack_size;
	out_str(w, "  - {name: n");
	out_u64(w, n);
	out_str(w, ", allocatable: {cpu: ");
	out_milli(w, t->cpu);
	out_str(w, ", memory: ");
	out_bytes(w, t->mem);
	out_fmt(w, ", nvidia.com/gpu: \"%u\", pods: \"110\"}", KAI_GPUS_PER_NODE);
	out_fmt(w, ", labels: {nvidia.com/gpu.count: \"%u\", nvidia.com/gpu.memory: \"%u\"",
	        KAI_GPUS_PER_NODE, t->gpu_mem);
	out_fmt(w, ", nvidia.com/gpu.product: %s, kai.scheduler/node-pool: %s", t->product,
	        t->name);
	out_fmt(w, ", topology.kubernetes.io/zone: %s, k8s.io/rack: rack%u}", zones[rack % 4],
	        rack);
	out_str(w, ready ? "}\n" : ", ready: false}\n");
}

/* 1% of the nodes are not ready (drawn per node; they add nothing to the queues' totals). */
void kai_write_nodes(kai_state *k)
{
	gen_rng r = rng_stream(k->o->seed, SECTION_READY);
	out_str(k->w, "nodes:\n");
	for (uint32_t n = 0; n < k->o->nodes; n++)
		write_node(k, n, !rng_pct(&r, 1));
}

static void write_group(gen_out *w, const kai_job *j, char prefix, uint32_t id)
{
	out_str(w, "  - {name: ");
	out_mem(w, &prefix, 1);
	out_u64(w, id);
	out_str(w, ", namespace: team");
	out_u64(w, j->queue);
	out_str(w, ", queue: q");
	out_u64(w, j->queue);
	out_str(w, ", priorityClassName: ");
	out_str(w, prio_names[j->prio]);
	out_str(w, ", minMember: ");
	out_u64(w, j->min);
	out_str(w, ", creationTimestamp: ");
	out_time(w, j->created);
	if (j->running) {
		out_str(w, ", annotations: {kai.scheduler/last-start-timestamp: ");
		out_time(w, j->started);
		out_str(w, "}");
	}
	out_str(w, "}\n");
}

void kai_write_podgroups(kai_state *k)
{
	out_str(k->w, "podGroups:\n");
	for (uint32_t i = 0; i < k->n_rjobs; i++)
		write_group(k->w, &k->rjobs[i], 'r', i);
	for (uint32_t i = 0; i < k->n_jobs; i++)
		write_group(k->w, &k->jobs[i], 'p', i);
}

/* A job's requests and sharing annotation, the same text for each of its pods. */
static size_t shape_text(const kai_job *j, char *buf, size_t cap)
{
	size_t n = 0;
	if (j->kind <= KJ_ELASTIC)
		n = (size_t)snprintf(buf, cap, ", nvidia.com/gpu: \"%u\"}", j->gpu);
	else if (j->kind == KJ_FRACTION)
		n = (size_t)snprintf(buf, cap, "}, annotations: {gpu-fraction: \"0.%02u\"}",
		                     j->gpu);
	else if (j->kind == KJ_GPUMEM)
		n = (size_t)snprintf(buf, cap, "}, annotations: {gpu-memory: \"%u\"}", j->gpu);
	else
		n = (size_t)snprintf(buf, cap, "}");
	return n < cap ? n : cap - 1;
}

static void write_pod_head(gen_out *w, const kai_job *j, char prefix, uint32_t id, uint32_t i)
{
	out_str(w, "  - {name: ");
	out_mem(w, &prefix, 1);
	out_u64(w, id);
	out_str(w, "-");
	out_u64(w, i);
	out_str(w, ", namespace: team");
	out_u64(w, j->queue);
	out_str(w, ", podGroup: ");
	out_mem(w, &prefix, 1);
	out_u64(w, id);
}

static void write_pods_of(kai_state *k, const kai_job *j, char prefix, uint32_t id)
{
	gen_out *w = k->w;
	char shape[96];
	size_t n = shape_text(j, shape, sizeof shape);
	bool shared = j->kind == KJ_FRACTION || j->kind == KJ_GPUMEM;
	for (uint32_t i = 0; i < j->size; i++) {
		write_pod_head(w, j, prefix, id, i);
		const kai_pod *p = i < j->running ? &k->pods[j->first_pod + i] : NULL;
		if (p) {
			out_str(w, ", status: Running, nodeName: n");
			out_u64(w, p->node);
		}
		out_str(w, ", requests: {cpu: ");
		out_milli(w, j->cpu);
		out_str(w, ", memory: ");
		out_bytes(w, j->mem);
		out_mem(w, shape, n);
		if (p && shared) {
			out_str(w, ", gpuGroups: [n");
			out_u64(w, p->node);
			out_str(w, "-");
			out_u64(w, p->dev);
			out_str(w, "]");
		}
		out_str(w, "}\n");
	}
}

void kai_write_pods(kai_state *k)
{
	out_str(k->w, "pods:\n");
	for (uint32_t i = 0; i < k->n_rjobs; i++)
		write_pods_of(k, &k->rjobs[i], 'r', i);
	for (uint32_t i = 0; i < k->n_jobs; i++)
		write_pods_of(k, &k->jobs[i], 'p', i);
}
