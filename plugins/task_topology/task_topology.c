/* task-topology: Volcano's task-topology plugin (pkg/scheduler/plugins/task-topology). A
 * podgroup with Pending tasks may declare which of its task roles like or avoid sharing a node
 * (annotations volcano.sh/task-topology-affinity, -anti-affinity, -task-order); its tasks are
 * grouped at open into buckets meant for one node each. Tasks in buckets go first (larger
 * buckets first, then the user's task order), and a node scores by how much of the task's
 * bucket is or can still be placed there, normalised by the largest bucket and weighted by
 * `task-topology.weight`. Allocations update the buckets (AllocateFunc); nothing undoes them. */
#include "task_topology.h"

#include <stddef.h>
#include <string.h>

#include "tephra/alloc.h"

#define MAX_NODE_SCORE 100.0

static const tph_arg_spec tt_args[] = {
    {"task-topology.weight", TPH_ARG_INT, "1", 0, 0, offsetof(tt_st, weight),
     "an integer; multiplies the bucket score"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* JobManager.taskAffinityOrder(L, R): 1 when L's name comes first (user order, then affinity
 * priority), -1 when R's does, 0 for one name or a tie. */
static int affinity_order(const tt_topo *t, uint32_t l, uint32_t r)
{
	if (l == r)
		return 0;
	if (t->order[l] != t->order[r])
		return t->order[l] > t->order[r] ? 1 : -1;
	if (t->prio[l] != t->prio[r])
		return t->prio[l] > t->prio[r] ? 1 : -1;
	return 0;
}

/* TaskOrderFn: only between tasks whose jobs both have a manager. A task in a bucket goes
 * before one without (whatever their jobs); inside a job the larger bucket first, in one
 * bucket the user's order, else the older bucket. */
static int task_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	const tt_st *g = st;
	if (!g->bucket)
		return 0;
	tph_idx ja = tph_view_of(s)->tasks->job[a], jb = tph_view_of(s)->tasks->job[b];
	if (ja == TPH_NOIDX || jb == TPH_NOIDX || !g->managed[ja] || !g->managed[jb])
		return 0;
	uint32_t ba = g->bucket[a], bb = g->bucket[b];
	if ((ba == TPH_NOIDX) != (bb == TPH_NOIDX))
		return ba != TPH_NOIDX ? -1 : 1;
	if (ja != jb || ba == TPH_NOIDX)
		return 0;
	if (g->b_size[ba] != g->b_size[bb])
		return g->b_size[ba] > g->b_size[bb] ? -1 : 1;
	if (ba == bb)
		return -affinity_order(&g->topo[ja], g->tname[a], g->tname[b]);
	return ba < bb ? -1 : 1;
}

/* NodeOrderFn over calcBucketScore: 0 where the task could never fit (idle + releasing below
 * its request in some dimension); else the bucket's tasks bound on the node, less the tasks
 * there the task is anti-affine to, plus the bucket's unbound tasks, less those that must stay
 * out for the rest of the bucket to fit. Score * weight, * MaxNodeScore / bucketMaxSize. */
static void node_order(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                       uint32_t n, double *out)
{
	const tt_st *g = st;
	uint32_t b = g->bucket ? g->bucket[task] : TPH_NOIDX;
	memset(out, 0, n * sizeof *out);
	if (b == TPH_NOIDX)
		return;
	const tph_node_store *ns = tph_view_of(s)->nodes;
	tph_idx j = tph_view_of(s)->tasks->job[task];
	const int64_t *treq = tph_view_of(s)->tasks->req + (size_t)task * g->nd;
	const int64_t *breq = g->b_req + (size_t)b * g->nd;
	for (uint32_t i = 0; i < n; i++) {
		int64_t max[TPH_RES_MAX];
		bool short_of = false, all_fit = true;
		for (uint32_t c = 0; c < g->n_cmp; c++) {
			uint32_t d = g->cmp[c];
			size_t at = (size_t)d * ns->stride + nodes[i];
			max[d] = ns->idle[at] + ns->releasing[at];
			short_of |= max[d] < treq[d];
			all_fit &= breq[d] <= max[d];
		}
		if (short_of)
			continue;
		int64_t anti = tt_anti_on(g, nodes[i], j, g->tname[task]);
		int64_t score = tt_bucket_on(g, nodes[i], b) + (anti < 0 ? anti : 0) + g->b_size[b];
		if (!all_fit)
			score -= tt_removals(g, b, task, treq, max);
		/* Go's int product wraps; so does this one, without undefined behaviour. */
		double f = (double)(int64_t)((uint64_t)score * (uint64_t)g->weight);
		out[i] = g->max_size[j] ? f * MAX_NODE_SCORE / g->max_size[j] : f;
	}
}

/* A task out of every bucket scores 0 everywhere; one in a bucket reads other placements. */
static int locality(void *st, const tph_session *s, tph_idx task)
{
	const tt_st *g = st;
	(void)s;
	return g->bucket && g->bucket[task] != TPH_NOIDX ? TPH_SCORE_GLOBAL : TPH_SCORE_LOCAL;
}

static int on_allocate(void *st, tph_session *s, tph_idx task)
{
	return tt_task_bound(s, st, task);
}

/* initBucket: a manager for every job with Pending tasks whose annotations parse. */
static int managers_open(tph_session *s, tt_st *g, bool *any)
{
	const tph_view *v = tph_view_of(s);
	uint32_t nj = v->jobs->n + 1;
	g->topo = TPH_SESSION_NEW(s, tt_topo, nj);
	g->managed = TPH_SESSION_NEW(s, uint8_t, nj);
	g->max_size = TPH_SESSION_NEW(s, uint32_t, nj);
	if (!g->topo || !g->managed || !g->max_size)
		return TPH_ENOMEM;
	*any = false;
	for (tph_idx j = 0; j < v->jobs->n; j++) {
		if (!v->js->count[(size_t)j * TPH_TS_COUNT + TPH_TS_PENDING])
			continue;
		int rc = tt_parse_job(s, j, &g->topo[j]);
		if (rc == TPH_DECLINED)
			continue;
		if (rc)
			return rc;
		g->managed[j] = 1;
		*any = true;
	}
	return TPH_OK;
}

static int tt_open(tph_session *s, void *st, const tph_args *args)
{
	tt_st *g = st;
	(void)args;
	vr_dims_init(&g->vr, s);
	g->nd = tph_view_of(s)->ndim;
	for (uint32_t d = 0; d < g->nd && d < TPH_RES_MAX; d++)
		if (vr_has(g->vr.cmp, d))
			g->cmp[g->n_cmp++] = d;
	bool any = false;
	int rc = managers_open(s, g, &any);
	if (!rc && any)
		rc = tt_buckets_open(s, g);
	if (!rc)
		rc = tph_on_task_order(s, task_order);
	if (!rc)
		rc = tph_on_node_order(s, node_order);
	if (!rc)
		rc = tph_on_score_locality(s, locality, NULL);
	if (!rc)
		rc = tph_on_task_events(s, on_allocate, NULL);
	return rc;
}

static void tt_close(tph_session *s, void *st)
{
	tt_st *g = st;
	(void)s;
	tph_free(g->ent);
	g->ent = NULL;
}

const tph_plugin tph_plugin_task_topology = {
    .abi = TPH_PLUGIN_ABI,
    .name = "task-topology",
    .args = tt_args,
    .state_size = sizeof(tt_st),
    .on_session_open = tt_open,
    .on_session_close = tt_close,
};
