/* KAI's topology plugin (plugins/topology: topology_plugin.go, job_filtering.go,
 * node_scoring.go): SubsetNodes offers a constrained root or sub-group the domains that can hold
 * its tasks, in KAI's order; NodeOrder scores nodes by their preferred domain's place; the steps
 * are docs/kai.md's "The topology plugin". */
#include "topology_int.h"

#include "tephra/alloc.h"

#include <math.h>
#include <string.h>

#define TOPOLOGY_SCORE 100000.0 /* KAI's scores.Topology */

enum {
	NEED_NONE = -1,
	NEED_MISSING = -2,
	LEVEL_UNKNOWN = -2
};

/* A root's or sub-group's constraint, resolved once: its tree, required and preferred depths
 * (-1: not given). */
typedef struct topo_need {
	int32_t topo; /* NEED_NONE: no constraint; NEED_MISSING: names no Topology */
	int32_t req, pref;
	bool bad; /* KAI's configuration errors: a level not in the topology, none given, or a
	           * preferred level above the required one */
} topo_need;

/* KAI's subGroupNodeScores for one sub-group: per domain of `depth`, its score (< 0: none, the
 * error that drops the node). Current while gen is the state's. */
typedef struct topo_slot {
	uint32_t gen, topo, depth;
	double *score; /* [the tree's domains of that depth] */
} topo_slot;

typedef struct topo_state {
	topo_tree *trees;
	uint32_t n_trees, max_per_depth;
	topo_need *job_need; /* [job] its root's */
	topo_need *sg_need;  /* [sub-group] */
	topo_scratch x;
	topo_slot *slots; /* [a job's sub-groups + 1]: by position in the job; the root's last */
	uint32_t n_slots;
	uint32_t gen; /* bumped by PreJobAllocation */
	int32_t job;  /* the job PreJobAllocation announced */
	bool scored;  /* some slot of this job holds scores */
} topo_state;

static int32_t level_depth(const tph_kai_view *v, uint32_t topo, const char *label)
{
	uint32_t first = v->topologies.level_first[topo];
	for (uint32_t k = 0; k < v->topologies.n_levels[topo]; k++)
		if (strcmp(v->topologies.level_label[first + k], label) == 0)
			return (int32_t)k + 1;
	return strcmp(label, "root") == 0 ? 0 : LEVEL_UNKNOWN;
}

static topo_need resolve(const tph_kai_view *v, const tph_kai_topo_constraint *c)
{
	topo_need n = {NEED_NONE, -1, -1, false};
	if (!c->topology || !*c->topology)
		return n;
	n.topo = NEED_MISSING;
	for (uint32_t t = 0; t < v->topologies.n; t++)
		if (strcmp(v->topologies.name[t], c->topology) == 0)
			n.topo = (int32_t)t;
	if (n.topo < 0)
		return n;
	bool req = c->required_level && *c->required_level;
	bool pref = c->preferred_level && *c->preferred_level;
	n.req = req ? level_depth(v, (uint32_t)n.topo, c->required_level) : -1;
	n.pref = pref ? level_depth(v, (uint32_t)n.topo, c->preferred_level) : -1;
	n.bad = (!req && !pref) || n.req == LEVEL_UNKNOWN || n.pref == LEVEL_UNKNOWN ||
	        (req && pref && n.pref < n.req);
	return n;
}

/* The slot of job j's sub-group sg (-1: the root), with its score column. */
static topo_slot *slot_of(topo_state *p, const tph_kai_view *v, uint32_t j, int32_t sg)
{
	uint32_t i = sg < 0 ? v->jobs.sg_count[j] : (uint32_t)sg - v->jobs.sg_first[j];
	topo_slot *slot = &p->slots[i];
	if (!slot->score)
		slot->score = tph_calloc((size_t)p->max_per_depth + 1, sizeof *slot->score);
	return slot->score ? slot : NULL;
}

/* KAI's calculateNodeScores: the preferred depth's domains under the LCA, in sorted order. */
static int set_scores(topo_state *p, const topo_call *c, const topo_need *need, uint32_t j,
                      int32_t sg)
{
	const tph_kai_view *v = tph_kai_session_view(c->s);
	topo_slot *slot = slot_of(p, v, j, sg);
	if (!slot)
		return TPH_ENOMEM;
	uint32_t depth = (uint32_t)need->pref, first = c->t->depth_first[depth];
	*slot = (topo_slot){p->gen, (uint32_t)need->topo, depth, slot->score};
	p->scored = true;
	for (uint32_t i = 0; i < c->t->depth_first[depth + 1] - first; i++)
		slot->score[i] = -1;
	if (depth < c->lca_depth)
		return TPH_OK;
	const uint32_t *bfs_first = c->x->bfs_first + (depth - c->lca_depth);
	uint32_t n = bfs_first[1] - bfs_first[0];
	for (uint32_t i = 0; i < n; i++) {
		double rank = (double)(i + 1) / (double)n * 10;
		slot->score[c->x->bfs[bfs_first[0] + i] - first] = floor(rank) * TOPOLOGY_SCORE;
	}
	return TPH_OK;
}

/* KAI's hasActiveAllocatedTasks over the call's pod sets, marking each required-depth domain
 * that holds one of those pods (hasActiveJobPodInDomain). */
static bool mark_active(topo_call *c, uint32_t j, const uint32_t *tasks, uint32_t depth,
                        uint32_t *n_marked)
{
	const tph_kai_view *v = tph_kai_session_view(c->s);
	const uint8_t *status = tph_kai_session_status(c->s);
	const int32_t *node = tph_kai_session_node(c->s);
	topo_scratch *x = c->x;
	const uint32_t *mine;
	uint32_t n = tph_kai_session_job_tasks(c->s, j, &mine);
	bool any = false;
	for (uint32_t i = 0; i < c->n_tasks; i++)
		if (v->tasks.pod_set[tasks[i]] >= 0)
			x->pod_set[v->tasks.pod_set[tasks[i]]] = 1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t t = mine[i];
		int32_t ps = v->tasks.pod_set[t];
		if (ps < 0 || !x->pod_set[ps] || !tph_kai_active_allocated(status[t]))
			continue;
		any = true;
		if (node[t] < 0 || !c->t->member[node[t]])
			continue;
		uint32_t dom = topo_at(c->t, c->nn, depth, (uint32_t)node[t]);
		if (!x->active[dom])
			x->active[dom] = 1, x->marked[(*n_marked)++] = dom;
	}
	for (uint32_t i = 0; i < c->n_tasks; i++)
		if (v->tasks.pod_set[tasks[i]] >= 0)
			x->pod_set[v->tasks.pod_set[tasks[i]]] = 0;
	return any;
}

static uint32_t ancestor(const topo_tree *t, uint32_t dom, uint32_t depth)
{
	while (t->depth[dom] > depth)
		dom = t->parent[dom];
	return dom;
}

/* Domain dom's nodes of the call's set, as one more set, when it may and can hold the tasks. */
static int offer(const topo_call *c, uint32_t dom, int32_t active_depth, tph_kai_node_sets *out)
{
	const topo_tree *t = c->t;
	if (active_depth >= 0 && !c->x->active[ancestor(t, dom, (uint32_t)active_depth)])
		return TPH_OK;
	if (!topo_fits(c, dom))
		return TPH_OK;
	uint32_t k = 0;
	for (uint32_t i = t->node_lo[dom]; i < t->node_hi[dom]; i++)
		if (c->x->in_set[t->nodes[i]])
			c->x->buf[k++] = t->nodes[i];
	return tph_kai_node_sets_push(out, c->x->buf, k);
}

/* KAI's getJobAllocatableDomains in sortDomainInfos' order: deepest relevant depth first, each
 * depth in the sorted tree's order; above the LCA, its one ancestor there. */
static int offer_all(const topo_call *c, const topo_need *need, uint32_t deepest,
                     int32_t active_depth, tph_kai_node_sets *out)
{
	const topo_scratch *x = c->x;
	uint32_t top = need->req >= 0 ? (uint32_t)need->req : 0;
	int rc = TPH_OK;
	for (uint32_t d = deepest + 1; rc == TPH_OK && d-- > top;) {
		if (d < c->lca_depth) {
			rc = offer(c, ancestor(c->t, c->lca, d), active_depth, out);
			continue;
		}
		const uint32_t *first = x->bfs_first + (d - c->lca_depth);
		for (uint32_t b = first[0]; rc == TPH_OK && b < first[1]; b++)
			rc = offer(c, x->bfs[b], active_depth, out);
	}
	return rc;
}

/* One constrained call over the marked valid nodes (topology_int.h's steps, in KAI's order). */
static int propose(topo_state *p, topo_call *c, const topo_need *need, uint32_t j, int32_t sg,
                   const uint32_t *tasks, tph_kai_node_sets *out)
{
	topo_lca(c, need->pref > 0 ? (uint32_t)need->pref : UINT32_MAX);
	topo_account(c, tasks);
	if (!topo_fits(c, c->lca))
		return TPH_OK;
	uint32_t deepest = (uint32_t)(need->pref >= 0 ? need->pref : need->req);
	topo_sort(c, deepest);
	if (need->pref >= 0) {
		int rc = set_scores(p, c, need, j, sg);
		if (rc < 0)
			return rc;
	}
	uint32_t n_marked = 0;
	int32_t active_depth = -1;
	if (need->req >= 0 && mark_active(c, j, tasks, (uint32_t)need->req, &n_marked))
		active_depth = need->req;
	int rc = offer_all(c, need, deepest, active_depth, out);
	for (uint32_t i = 0; i < n_marked; i++)
		c->x->active[c->x->marked[i]] = 0;
	return rc;
}

static int subset(void *state, const tph_kai_session *s, uint32_t j, int32_t sg,
                  const uint32_t *tasks, uint32_t n_tasks, const uint32_t *nodes, uint32_t n_nodes,
                  tph_kai_node_sets *out)
{
	topo_state *p = state;
	const topo_need *need = sg < 0 ? &p->job_need[j] : &p->sg_need[sg];
	if (need->topo == NEED_MISSING) /* nowhere, even without tasks, as KAI checks it first */
		return TPH_OK;
	if (need->topo == NEED_NONE || !n_tasks)
		return tph_kai_node_sets_push(out, nodes, n_nodes);
	if (need->bad) /* KAI's configuration errors fail the sub-group too */
		return TPH_OK;
	topo_call c = {.s = s, .t = &p->trees[need->topo], .x = &p->x, .n_tasks = n_tasks};
	c.nn = tph_kai_session_view(s)->nodes.n;
	for (uint32_t i = 0; i < n_nodes; i++)
		if (c.t->member[nodes[i]])
			p->x.in_set[nodes[i]] = 1, p->x.valid[c.n_valid++] = nodes[i];
	int rc = propose(p, &c, need, j, sg, tasks, out);
	for (uint32_t i = 0; i < c.n_valid; i++)
		p->x.in_set[p->x.valid[i]] = 0;
	return rc;
}

/* KAI's getRelevantNodeScores: the task's pod set's scores, else the nearest set above's. */
static const topo_slot *scores_for(const topo_state *p, const tph_kai_view *v, uint32_t j,
                                   int32_t sg)
{
	for (; sg >= 0; sg = v->subgroups.parent[sg]) {
		const topo_slot *slot = &p->slots[(uint32_t)sg - v->jobs.sg_first[j]];
		if (slot->gen == p->gen)
			return slot;
	}
	const topo_slot *root = &p->slots[v->jobs.sg_count[j]];
	return root->gen == p->gen ? root : NULL;
}

static int node_order(void *state, const tph_kai_session *s, uint32_t t, uint32_t node,
                      double *score)
{
	const topo_state *p = state;
	const tph_kai_view *v = tph_kai_session_view(s);
	*score = 0;
	if (!p->scored || v->tasks.job[t] != p->job || v->tasks.pod_set[t] < 0)
		return 0;
	const topo_slot *slot = scores_for(p, v, (uint32_t)p->job, v->tasks.pod_set[t]);
	if (!slot)
		return 0;
	const topo_tree *tree = &p->trees[slot->topo];
	if (!tree->member[node])
		return -1;
	uint32_t dom = topo_at(tree, v->nodes.n, slot->depth, node);
	double sc = slot->score[dom - tree->depth_first[slot->depth]];
	if (sc < 0)
		return -1;
	*score = sc;
	return 0;
}

/* Score locality: the score is 0 on every node unless the task's sub-group holds scores. */
static bool zero_for(void *state, const tph_kai_session *s, uint32_t t)
{
	const topo_state *p = state;
	const tph_kai_view *v = tph_kai_session_view(s);
	return !p->scored || v->tasks.job[t] != p->job || v->tasks.pod_set[t] < 0 ||
	       !scores_for(p, v, (uint32_t)p->job, v->tasks.pod_set[t]);
}

static void pre_job(void *state, const tph_kai_session *s, uint32_t j)
{
	topo_state *p = state;
	(void)s;
	p->gen++;
	p->job = (int32_t)j;
	p->scored = false;
}

static int resolve_all(topo_state *p, const tph_kai_view *v)
{
	uint32_t most_sg = 0;
	p->job_need = tph_calloc((size_t)v->jobs.n + 1, sizeof *p->job_need);
	p->sg_need = tph_calloc((size_t)v->subgroups.n + 1, sizeof *p->sg_need);
	if (!p->job_need || !p->sg_need)
		return TPH_ENOMEM;
	for (uint32_t j = 0; j < v->jobs.n; j++) {
		p->job_need[j] = resolve(v, &v->jobs.topology[j]);
		most_sg = v->jobs.sg_count[j] > most_sg ? v->jobs.sg_count[j] : most_sg;
	}
	for (uint32_t g = 0; g < v->subgroups.n; g++)
		p->sg_need[g] = resolve(v, &v->subgroups.topology[g]);
	p->slots = tph_calloc((size_t)most_sg + 1, sizeof *p->slots);
	p->n_slots = p->slots ? most_sg + 1 : 0;
	return p->slots ? TPH_OK : TPH_ENOMEM;
}

static int build(topo_state *p, const tph_kai_view *v)
{
	uint32_t max_dom = 1, levels = 0;
	p->n_trees = v->topologies.n;
	p->trees = tph_calloc((size_t)p->n_trees + 1, sizeof *p->trees);
	if (!p->trees)
		return TPH_ENOMEM;
	int rc = topo_trees_build(v, p->trees);
	for (uint32_t t = 0; rc == TPH_OK && t < p->n_trees; t++) {
		const topo_tree *tr = &p->trees[t];
		max_dom = tr->n_dom > max_dom ? tr->n_dom : max_dom;
		levels = tr->levels > levels ? tr->levels : levels;
		p->max_per_depth =
		    tr->max_per_depth > p->max_per_depth ? tr->max_per_depth : p->max_per_depth;
	}
	if (rc == TPH_OK)
		rc = topo_scratch_alloc(&p->x, v, max_dom, levels);
	return rc == TPH_OK ? resolve_all(p, v) : rc;
}

static int open_topology(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	topo_state *p = tph_calloc(1, sizeof *p);
	if (!p)
		return tph_diag_set(d, TPH_ENOMEM, "topology: out of memory");
	*state = p;
	p->job = -1;
	int rc = build(p, tph_kai_session_view(s));
	if (rc < 0)
		return tph_diag_set(d, rc, "topology: out of memory");
	rc = tph_kai_add_subset_nodes(s, subset, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_local_node_order(s, node_order, zero_for, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_pre_job_allocation(s, pre_job, p);
	return rc < 0 ? tph_diag_set(d, rc, "topology: cannot register") : TPH_OK;
}

static void close_topology(tph_kai_session *s, void *state)
{
	topo_state *p = state;
	(void)s;
	if (!p)
		return;
	topo_trees_free(p->trees, p->n_trees);
	tph_free(p->trees);
	topo_scratch_free(&p->x);
	tph_free(p->job_need);
	tph_free(p->sg_need);
	for (uint32_t i = 0; p->slots && i < p->n_slots; i++)
		tph_free(p->slots[i].score);
	tph_free(p->slots);
	tph_free(p);
}

const tph_kai_plugin tph_kai_plugin_topology = {TPH_KAI_PLUGIN_ABI, "topology", open_topology,
                                                close_topology};
