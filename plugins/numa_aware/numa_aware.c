/* numa-aware: Volcano's numaaware plugin (pkg/scheduler/plugins/numaaware/numaaware.go). Nodes
 * that carry a Numatopology report the kubelet's CPU and topology manager policies and the CPUs
 * left for exclusive use. A Guaranteed pod is checked against them: with a topology policy
 * (annotation volcano.sh/numa-topology-policy) only on nodes with the static CPU manager and the
 * same policy; without one, on nodes whose policy is active. The node's policy must admit the
 * CPU manager's hints for its whole requested CPUs (predicate), nodes where those CPUs span fewer
 * NUMA nodes score higher (BatchNodeOrder, pods with a policy), and an allocation takes them from
 * the node for later tasks (allocate event; a deallocation gives them back).
 *
 * Volcano records an assignment per task and node in its predicate and reads it back in the
 * score and the allocate event. Each use here computes it again from the node's free CPUs,
 * which is the same: between Volcano's predicate and those uses only the task's own events
 * change a node's free CPUs. */
#include "numa_aware.h"

#include "lib/qos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODE_SCORE   100 /* api.DefaultMaxNodeScore */
#define MAX_POLICY_PAIRS 1024

static const tph_arg_spec numa_args[] = {
    {"weight", TPH_ARG_INT, "1", 0, 0, offsetof(numa_st, weight),
     "multiplies the BatchNodeOrder score"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* ---- predicate ---- */

static void predicate(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, tph_reason_code *out)
{
	const numa_st *g = st;
	(void)s;
	bool rec;
	for (uint32_t i = 0; i < n; i++)
		out[i] = g->guaranteed[task] ? numa_place(g, task, nodes[i], &rec, NULL) : TPH_PASS;
}

/* ---- BatchNodeOrder ---- */

/* Only a Guaranteed task with a topology policy is scored, and only when the predicate runs
 * (Volcano scores a task that has assignments). */
static bool scored(const numa_st *g, tph_idx t)
{
	return g->predicate_on && g->guaranteed[t] && g->tpol[t];
}

typedef struct count_ctx {
	const numa_st *g;
	tph_idx task;
	const tph_idx *nodes;
	double *out; /* NUMA nodes the assignment spans; -1: none recorded */
} count_ctx;

/* getNumaNodeCntForCPUID of each candidate's assignment. */
static void count_span(void *ctx, uint32_t span, uint32_t begin, uint32_t end)
{
	const count_ctx *c = ctx;
	(void)span;
	for (uint32_t i = begin; i < end; i++) {
		const numa_node *nd = c->g->node[c->nodes[i]];
		numa_cpus cpus;
		bool rec = false;
		numa_place(c->g, c->task, c->nodes[i], &rec, &cpus);
		uint64_t used = 0;
		for (uint32_t k = 0; rec && k < nd->nc; k++)
			if ((cpus.w[k / 64] >> (k % 64)) & 1)
				used |= 1ull << nd->numa_id[nd->npos[k]];
		c->out[i] = rec ? __builtin_popcountll(used) : -1;
	}
}

/* util.NormalizeScore(100, reverse): fewer NUMA nodes score higher; times the weight. */
static void batch_order(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                        uint32_t n, double *out)
{
	const numa_st *g = st;
	memset(out, 0, n * sizeof *out);
	if (!scored(g, task))
		return;
	tph_session_parallel(s, n, count_span, &(count_ctx){g, task, nodes, out});
	int64_t max = 0;
	bool any = false;
	for (uint32_t i = 0; i < n; i++) {
		any |= out[i] >= 0;
		if (out[i] > (double)max)
			max = (int64_t)out[i];
	}
	for (uint32_t i = 0; i < n; i++) {
		int64_t cnt = out[i] < 0 ? 0 : (int64_t)out[i];
		int64_t score = max ? MAX_NODE_SCORE - MAX_NODE_SCORE * cnt / max : MAX_NODE_SCORE;
		out[i] = any ? (double)(score * g->weight) : 0;
	}
}

/* Normalised over the candidates and moved by placements elsewhere: global for the tasks it
 * scores, none (local) for the rest. */
static int locality(void *st, const tph_session *s, tph_idx task)
{
	(void)s;
	return scored(st, task) ? TPH_SCORE_GLOBAL : TPH_SCORE_LOCAL;
}

/* ---- events ---- */

static int on_allocate(void *st, tph_session *s, tph_idx t)
{
	numa_st *g = st;
	tph_idx n = tph_view_of(s)->tasks->node[t];
	numa_cpus cpus;
	bool rec = false;
	if (n == TPH_NOIDX || !g->guaranteed[t])
		return TPH_OK;
	numa_place(g, t, n, &rec, &cpus);
	if (!rec)
		return TPH_OK;
	numa_node *nd = g->node[n];
	uint64_t *held = g->held + (size_t)t * g->words;
	for (uint32_t k = 0; k < nd->words; k++) {
		nd->free[k] &= ~cpus.w[k];
		held[k] = cpus.w[k];
	}
	numa_node_count(nd);
	g->held_node[t] = n;
	return TPH_OK;
}

static int on_deallocate(void *st, tph_session *s, tph_idx t)
{
	numa_st *g = st;
	(void)s;
	if (g->held_node[t] == TPH_NOIDX)
		return TPH_OK;
	numa_node *nd = g->node[g->held_node[t]];
	const uint64_t *held = g->held + (size_t)t * g->words;
	for (uint32_t k = 0; k < nd->words; k++)
		nd->free[k] |= held[k];
	numa_node_count(nd);
	g->held_node[t] = TPH_NOIDX;
	return TPH_OK;
}

/* ---- open ---- */

static int cmp_sid(const void *a, const void *b)
{
	tph_sid x = *(const tph_sid *)a, y = *(const tph_sid *)b;
	return (x > y) - (x < y);
}

/* Sort and dedupe, keeping v[0]; returns the count. */
static uint32_t distinct_from_1(tph_sid *v, uint32_t n)
{
	if (n <= 1)
		return n;
	qsort(v + 1, n - 1, sizeof *v, cmp_sid);
	uint32_t m = 1;
	for (uint32_t i = 1; i < n; i++)
		if (m == 1 || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

static uint16_t index_of(const tph_sid *v, uint32_t n, tph_sid x)
{
	const tph_sid *p = n > 1 ? bsearch(&x, v + 1, n - 1, sizeof *v, cmp_sid) : NULL;
	return p ? (uint16_t)(p - v) : 0;
}

/* The task's topology policy (TaskInfo.NumaInfo.Policy): "" and "none" are none. */
static tph_sid task_policy(const tph_view *v, tph_idx t, tph_sid key, tph_sid none)
{
	const tph_pod_meta *m = v->tasks->meta ? v->tasks->meta[t] : NULL;
	tph_sid p = m && key != TPH_SID_NONE ? tph_labels_get(m->annotations, key) : TPH_SID_NONE;
	return p == TPH_SID_EMPTY || p == none ? TPH_SID_NONE : p;
}

/* Guaranteed tasks, their policies and whole CPUs (guaranteedCPUs). */
static int tasks_open(tph_session *s, numa_st *g)
{
	const tph_view *v = tph_view_of(s);
	uint32_t nt = v->tasks->n;
	g->guaranteed = TPH_SESSION_NEW(s, uint8_t, nt + 1);
	g->tpol = TPH_SESSION_NEW(s, uint16_t, nt + 1);
	g->req_cpus = TPH_SESSION_NEW(s, int32_t, nt + 1);
	tph_sid *pol = TPH_SESSION_NEW(s, tph_sid, nt + 1);
	if (!g->guaranteed || !g->tpol || !g->req_cpus || !pol)
		return TPH_ENOMEM;
	tph_sid key = tph_session_sid(s, "volcano.sh/numa-topology-policy", 31);
	tph_sid none = tph_session_sid(s, "none", 4);
	uint32_t np = 1;
	qos_keys qk = qos_keys_of(s);
	for (tph_idx t = 0; t < nt; t++) {
		if (qos_of(v, qk, t) != QOS_GUARANTEED)
			continue;
		int64_t milli = v->tasks->req[(size_t)t * v->ndim + TPH_RES_CPU];
		g->guaranteed[t] = 1;
		g->req_cpus[t] = milli % 1000 ? 0 : (int32_t)(milli / 1000);
		tph_sid p = task_policy(v, t, key, none);
		if (p != TPH_SID_NONE)
			pol[np++] = p;
	}
	g->n_task_pol = distinct_from_1(pol, np);
	g->task_pol = pol;
	if (g->n_task_pol > UINT16_MAX)
		return TPH_ENOMEM;
	for (tph_idx t = 0; t < nt; t++)
		if (g->guaranteed[t])
			g->tpol[t] = index_of(pol, g->n_task_pol, task_policy(v, t, key, none));
	return TPH_OK;
}

/* Every ready node's Numatopology; the topology policies of static ones, for the reasons. */
static int nodes_open(tph_session *s, numa_st *g, bool *any_active)
{
	const tph_view *v = tph_view_of(s);
	g->node = TPH_SESSION_NEW(s, numa_node *, v->nodes->n + 1);
	g->node_pol = TPH_SESSION_NEW(s, tph_sid, v->n_ready + 1);
	if (!g->node || !g->node_pol)
		return TPH_ENOMEM;
	uint32_t np = 1;
	for (uint32_t r = 0; r < v->n_ready; r++) {
		tph_idx n = v->ready_nodes[r];
		const tph_node_meta *m = v->nodes->meta ? v->nodes->meta[n] : NULL;
		if (!m || !m->numa)
			continue;
		if (!(g->node[n] = numa_node_build(s, m->numa)))
			return TPH_ENOMEM;
		*any_active |= g->node[n]->active;
		if (g->node[n]->is_static)
			g->node_pol[np++] = g->node[n]->tm;
		if (g->node[n]->words > g->words)
			g->words = g->node[n]->words;
	}
	g->n_node_pol = distinct_from_1(g->node_pol, np);
	for (uint32_t r = 0; r < v->n_ready; r++) {
		numa_node *nd = g->node[v->ready_nodes[r]];
		if (nd && nd->is_static)
			nd->tm_index = index_of(g->node_pol, g->n_node_pol, nd->tm);
	}
	return TPH_OK;
}

/* The predicate's reasons: Volcano's error texts (its errors, like Unresolvable ones, keep
 * preemption off the node). "container %s cannot be assigned by numa" names the container: a
 * scenario pod is one container without a name, as the pods of Volcano's unit tests are. When
 * pods bring more task and node policies than MAX_POLICY_PAIRS pairs, one text stands for the
 * policy mismatch. */
static int reasons_open(tph_session *s, numa_st *g)
{
	g->r_no_info = tph_reason(s, "numa info is empty", true);
	g->r_not_static = tph_reason(s, "cpu manager policy isn't static", true);
	g->r_no_cpu = tph_reason(s, "cpu allocatable map is empty", true);
	g->r_admit = tph_reason(s, "container  cannot be assigned by numa", true);
	g->r_policy_any = tph_reason(s, "task topology policy is different with node", true);
	size_t pairs = (size_t)g->n_task_pol * g->n_node_pol;
	if (g->r_no_info == TPH_REASON_INVALID || g->r_not_static == TPH_REASON_INVALID ||
	    g->r_no_cpu == TPH_REASON_INVALID || g->r_admit == TPH_REASON_INVALID ||
	    g->r_policy_any == TPH_REASON_INVALID)
		return TPH_ENOMEM;
	if (pairs > MAX_POLICY_PAIRS)
		return TPH_OK;
	if (!(g->r_policy = TPH_SESSION_NEW(s, tph_reason_code, pairs + 1)))
		return TPH_ENOMEM;
	for (uint32_t tp = 1; tp < g->n_task_pol; tp++)
		for (uint32_t np = 0; np < g->n_node_pol; np++) {
			char text[512];
			snprintf(text, sizeof text,
			         "task topology policy[%.200s] is different with node[%.200s]",
			         tph_session_str(s, g->task_pol[tp]),
			         np ? tph_session_str(s, g->node_pol[np]) : "");
			tph_reason_code r = tph_reason(s, text, true);
			if (r == TPH_REASON_INVALID)
				return TPH_ENOMEM;
			g->r_policy[(size_t)tp * g->n_node_pol + np] = r;
		}
	return TPH_OK;
}

static int register_all(tph_session *s, numa_st *g, bool any_pol)
{
	uint32_t nt = tph_view_of(s)->tasks->n;
	int rc = tph_on_predicate(s, predicate);
	if (rc || !g->predicate_on)
		return rc;
	g->held_node = TPH_SESSION_NEW(s, tph_idx, nt + 1);
	g->held = TPH_SESSION_NEW(s, uint64_t, (size_t)nt * g->words + 1);
	if (!g->held_node || !g->held)
		return TPH_ENOMEM;
	memset(g->held_node, 0xff, (nt + 1) * sizeof *g->held_node);
	rc = tph_on_task_events(s, on_allocate, on_deallocate);
	if (!rc && any_pol)
		rc = tph_on_batch_node_order(s, batch_order);
	if (!rc && any_pol)
		rc = tph_on_score_locality(s, locality, NULL);
	return rc;
}

/* The predicate passes everything unless a Guaranteed task has a policy or a node's policy is
 * active; then it, the events and (for tasks with a policy) the score are registered. */
static int numa_open(tph_session *s, void *st, const tph_args *args)
{
	numa_st *g = st;
	(void)args;
	bool any_active = false, any_g = false;
	int rc = tasks_open(s, g);
	if (!rc)
		rc = nodes_open(s, g, &any_active);
	if (rc)
		return rc;
	for (tph_idx t = 0; t < tph_view_of(s)->tasks->n && !any_g; t++)
		any_g = g->guaranteed[t];
	bool any_pol = g->n_task_pol > 1;
	if (!any_g || (!any_pol && !any_active))
		return TPH_OK;
	g->predicate_on = tph_plugin_flag(s, TPH_FLAG_PREDICATE) == 1;
	rc = reasons_open(s, g);
	return rc ? rc : register_all(s, g, any_pol);
}

const tph_plugin tph_plugin_numa_aware = {
    .abi = TPH_PLUGIN_ABI,
    .name = "numa-aware",
    .args = numa_args,
    .state_size = sizeof(numa_st),
    .on_session_open = numa_open,
};
