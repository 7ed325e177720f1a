/* KAI's allocate action (actions/allocate, actions/common/allocate.go; KAI-NOTES section 1):
 * ready jobs with pending pods, in hierarchical queue order; per job a statement: the tasks of
 * this turn (PreJobAllocation, tph_kai_tasks_to_allocate), IsJobOverQueueCapacity, then the
 * sub-group tree — child sets, then pod sets, each in sub-group order, each on the node sets
 * SubsetNodes proposes for it (tried in order from a checkpoint) — placing each task on the
 * best-scored node of its set it fits:
 * bound on idle resources, pipelined onto releasing ones. A job that pipelined a pod while its
 * gang is short of allocated pods is pipelined whole. A committed job with pending pods goes
 * back to its queue (one more pod per turn); a job newly allocated gets last-start `now`. */
#include "base/mem.h"
#include "session/kai/kai_int.h"

#include <stdlib.h>
#include <string.h>

/* A node scored for one task. */
typedef struct ranked {
	double score;
	uint32_t rank; /* name_rank */
	uint32_t node;
} ranked;

/* The action's working state; scratch sized once per run. */
typedef struct tph_kai_alloc {
	tph_kai_session *s;
	uint8_t *queued; /* [job] waiting in the job queues */
	uint32_t *tasks; /* the tasks this turn tries, in order */
	uint32_t n_tasks;
	uint32_t *q_first; /* [queue + 1]: queue q's jobs are q_jobs[q_first[q] .. [q + 1]) */
	uint32_t *q_jobs;
	/* [queue] its best queued job, -1: none, -2: to be found (best_job) */
	int32_t *q_best;
	uint32_t *name_rank; /* [node] its name's position in byte order (score ties) */
	uint32_t *nodes;     /* [node] one task's candidate nodes */
	uint32_t *pool;      /* [node] the in-pool nodes: the root's node set */
	uint32_t n_pool;
	ranked *ranked; /* [node] one task's scored nodes, best first */
} tph_kai_alloc;

static bool schedulable_queue(const tph_kai_view *v, int32_t q)
{
	return q >= 0 && !v->queues.dropped[q] && !v->queues.has_kids[q];
}

static bool has_pending(const tph_kai_session *s, uint32_t j)
{
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
		uint32_t t = s->job_tasks[i];
		if (s->status[t] == TPH_KAI_TS_PENDING && s->v->tasks.pod_set[t] >= 0)
			return true;
	}
	return false;
}

/* The best queued job of leaf queue q, or -1; remembered until a job of q takes a turn, which
 * is exact because JobOrder compares two jobs by their own state (tephra/kai.h). A scan per
 * pop was a quarter of allocate on 10k-gpu (3,700 jobs over 64 queues). */
static int32_t best_job(tph_kai_alloc *a, uint32_t q)
{
	if (a->q_best[q] != -2 && !a->s->naive)
		return a->q_best[q];
	int32_t best = -1;
	for (uint32_t i = a->q_first[q]; i < a->q_first[q + 1]; i++) {
		uint32_t j = a->q_jobs[i];
		if (a->queued[j] && (best < 0 || tph_kai_job_order(a->s, j, (uint32_t)best) < 0))
			best = (int32_t)j;
	}
	return a->q_best[q] = best;
}

/* Down the queue tree from `parent` (-1: the top): among its children with a queued job below,
 * the first by QueueOrder asked with each one's best job; its best job, or -1. */
static int32_t pick(tph_kai_alloc *a, int32_t parent)
{
	const tph_kai_view *v = a->s->v;
	int32_t best_q = -1, best_j = -1;
	for (uint32_t q = 0; q < v->queues.n; q++) {
		if (v->queues.parent[q] != parent || v->queues.dropped[q])
			continue;
		int32_t j = v->queues.has_kids[q] ? pick(a, (int32_t)q) : best_job(a, q);
		if (j < 0)
			continue;
		if (best_q < 0 || tph_kai_queue_order(a->s, q, (uint32_t)best_q, j, best_j) < 0) {
			best_q = (int32_t)q;
			best_j = j;
		}
	}
	return best_j;
}

/* Highest score first; equal scores by node name (its precomputed rank). */
static int by_score(const void *pa, const void *pb)
{
	const ranked *l = pa, *r = pb;
	if (l->score != r->score)
		return l->score > r->score ? -1 : 1;
	return l->rank < r->rank ? -1 : l->rank > r->rank;
}

/* The nodes of a set by summed score, highest first, ties by name; a node a plugin drops is
 * left out. Returns how many (in a->ranked). */
static uint32_t ordered_nodes(tph_kai_alloc *a, uint32_t t, const uint32_t *set, uint32_t n)
{
	uint32_t kept = 0;
	memcpy(a->nodes, set, n * sizeof *set);
	tph_kai_node_pre_order(a->s, t, a->nodes, n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t node = a->nodes[i];
		double sc;
		if (tph_kai_node_score(a->s, t, node, &sc) == 0)
			a->ranked[kept++] = (ranked){sc, a->name_rank[node], node};
	}
	qsort(a->ranked, kept, sizeof *a->ranked, by_score);
	return kept;
}

/* Whether (score, rank) l comes before r in ordered_nodes' order. */
static bool before(double ls, uint32_t lr, double rs, uint32_t rr)
{
	return ls != rs ? ls > rs : lr < rr;
}

/* The node place_task's walk over ordered_nodes would take, found in one pass without the
 * sort (which was half of allocate on 10k-gpu: a 10k-node sort per task): the first node of
 * that order that fits is the best-ordered node among those that fit, and ranks are distinct,
 * so (score, rank) is a total order. Only fitting nodes are scored: NodeOrder functions are pure
 * (their score depends on the session, the task and the node, never on the call order), and
 * a node a plugin drops or that does not fit is skipped either way. A NaN score (no plugin
 * gives one) would make the sort's order ill-defined: -2 then asks for the sort. -1: none fits. */
static int64_t best_fitting(tph_kai_alloc *a, uint32_t t, const uint32_t *set, uint32_t n)
{
	memcpy(a->nodes, set, n * sizeof *set);
	tph_kai_node_pre_order(a->s, t, a->nodes, n);
	/* A lower bound of what the task takes from the ledger (whole GPUs; cpu and memory as
	 * they are), compared as tph_kai_fits_future compares: a node it rules out fails that
	 * test too, so most of a busy cluster is passed over with three loads. */
	const tph_kai_tasks *k = &a->s->v->tasks;
	const double need[TPH_KAI_DIMS] = {k->gpus[t], (double)k->cpu_milli[t],
	                                   (double)k->memory[t]};
	const double *idle = a->s->idle, *rel = a->s->releasing;
	int64_t best = -1;
	double best_sc = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t node = a->nodes[i];
		size_t at = (size_t)node * TPH_KAI_DIMS;
		double sc;
		if (need[0] > idle[at] + rel[at] || need[1] > idle[at + 1] + rel[at + 1] ||
		    need[2] > idle[at + 2] + rel[at + 2])
			continue;
		if (!tph_kai_fits_future(a->s, t, node) || tph_kai_node_score(a->s, t, node, &sc))
			continue;
		if (sc != sc)
			return -2;
		/* Predicates are pure too: asked only of a node that would win, as the walk asks
		 * them only of the nodes it reaches. */
		if ((best < 0 || before(sc, a->name_rank[node], best_sc, a->name_rank[best])) &&
		    tph_kai_predicate(a->s, t, node)) {
			best = node;
			best_sc = sc;
		}
	}
	return best;
}

/* A node set to try, and the subtree's tasks of this turn. */
typedef struct scope {
	const uint32_t *nodes;
	uint32_t n_nodes;
	const uint32_t *tasks;
	uint32_t n_tasks;
} scope;

/* Task t on a node it fits once releasing pods go: bound when idle suffices, else pipelined. */
static int take(tph_kai_alloc *a, uint32_t t, uint32_t node)
{
	int rc = tph_kai_fits_idle(a->s, t, node) ? tph_kai_stmt_allocate(a->s, t, node)
	                                          : tph_kai_stmt_pipeline(a->s, t, node);
	return rc < 0 ? rc : 1;
}

/* Place task t (PrePredicate first): the first node of the set it fits (idle plus releasing)
 * whose predicates pass; bound there when idle suffices, else pipelined. 1 placed, 0 not, < 0
 * error. */
static int place_task(tph_kai_alloc *a, uint32_t t, const scope *sc)
{
	if (!tph_kai_pre_predicate(a->s, t, (uint32_t)a->s->v->tasks.job[t]))
		return 0;
	int64_t best = a->s->naive ? -2 : best_fitting(a, t, sc->nodes, sc->n_nodes);
	if (best == -1)
		return 0;
	if (best >= 0)
		return take(a, t, (uint32_t)best);
	uint32_t n = ordered_nodes(a, t, sc->nodes, sc->n_nodes);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t node = a->ranked[i].node;
		if (tph_kai_fits_future(a->s, t, node) && tph_kai_predicate(a->s, t, node))
			return take(a, t, node);
	}
	return 0;
}

static int place_members(tph_kai_alloc *a, uint32_t j, int32_t set, const scope *sc);
static int place_pod_set(tph_kai_alloc *a, const scope *sc);

/* Whether sub-group sg is `set` or below it (-1: the root, above every sub-group). */
static bool under(const tph_kai_view *v, int32_t sg, int32_t set)
{
	for (; sg >= 0; sg = v->subgroups.parent[sg])
		if (sg == set)
			return true;
	return set < 0;
}

/* Sub-group `sg` (-1: the root) of job j, on the nodes of `outer`: its tasks of this turn (none:
 * done), then each node set SubsetNodes proposes, in order, from a checkpoint, until one takes
 * them all. 1 placed, 0 not, < 0 error. */
static int place_subgroup(tph_kai_alloc *a, uint32_t j, int32_t sg, const scope *outer)
{
	const tph_kai_view *v = a->s->v;
	uint32_t *mine = tph_calloc((size_t)outer->n_tasks + 1, sizeof *mine), n = 0;
	tph_kai_node_sets sets = {0};
	if (!mine)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < outer->n_tasks; i++)
		if (under(v, v->tasks.pod_set[outer->tasks[i]], sg))
			mine[n++] = outer->tasks[i];
	int rc =
	    n ? tph_kai_subset_nodes(a->s, j, sg, mine, n, outer->nodes, outer->n_nodes, &sets) : 1;
	for (uint32_t i = 0; n && rc >= 0 && i < sets.n; i++) {
		uint32_t cp = tph_kai_stmt_checkpoint(a->s);
		scope sc = {sets.nodes + sets.first[i], sets.first[i + 1] - sets.first[i], mine, n};
		rc = sg >= 0 && v->subgroups.pod_set[sg] ? place_pod_set(a, &sc)
		                                         : place_members(a, j, sg, &sc);
		if (rc != 0)
			break;
		tph_kai_stmt_rollback(a->s, cp);
	}
	tph_kai_node_sets_free(&sets);
	tph_free(mine);
	return rc;
}

/* The pod set's tasks of this turn, in order, on the set's nodes. */
static int place_pod_set(tph_kai_alloc *a, const scope *sc)
{
	for (uint32_t i = 0; i < sc->n_tasks; i++) {
		int rc = place_task(a, sc->tasks[i], sc);
		if (rc <= 0)
			return rc;
	}
	return 1;
}

/* The members of set `set` (-1: the root) of job j: child sets first, then pod sets, each in
 * sub-group order. */
static int place_members(tph_kai_alloc *a, uint32_t j, int32_t set, const scope *sc)
{
	const tph_kai_view *v = a->s->v;
	uint32_t first = v->jobs.sg_first[j], end = first + v->jobs.sg_count[j];
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			tph_kai_order_subgroups(a->s, j); /* pod sets by the state now */
		for (uint32_t i = first; i < end; i++) {
			uint32_t c = a->s->sg_order[i];
			if (v->subgroups.parent[c] != set || v->subgroups.pod_set[c] != pass)
				continue;
			int rc = place_subgroup(a, j, (int32_t)c, sc);
			if (rc <= 0)
				return rc;
		}
	}
	return 1;
}

static bool allocated_not_pipelined(uint8_t st)
{
	return st != TPH_KAI_TS_PIPELINED && tph_kai_active_allocated(st);
}

static bool any_pipelined(const tph_kai_session *s, uint32_t j)
{
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++)
		if (s->status[s->job_tasks[i]] == TPH_KAI_TS_PIPELINED)
			return true;
	return false;
}

/* One turn of job j in the open statement: 1 allocated (*pipelined set), 0 not, < 0 error. */
static int attempt(tph_kai_alloc *a, uint32_t j, bool *pipelined)
{
	tph_kai_session *s = a->s;
	tph_kai_pre_job_allocation(s, j);
	uint32_t n = a->n_tasks = tph_kai_tasks_to_allocate(s, j, a->tasks);
	if (!n || !tph_kai_job_schedulable(s, j, a->tasks, n))
		return 0;
	scope all = {a->pool, a->n_pool, a->tasks, n};
	int rc = place_subgroup(a, j, -1, &all);
	if (rc <= 0)
		return rc;
	*pipelined = any_pipelined(s, j) && !tph_kai_gang_satisfied(s, j, allocated_not_pipelined);
	if (*pipelined)
		tph_kai_stmt_to_pipelined(s, j);
	return 1;
}

static bool any_allocated(const tph_kai_session *s, uint32_t j)
{
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++)
		if (tph_kai_active_allocated(s->status[s->job_tasks[i]]))
			return true;
	return false;
}

static int turn(tph_kai_alloc *a, uint32_t j)
{
	tph_kai_session *s = a->s;
	bool already = any_allocated(s, j), pipelined = false;
	int rc = attempt(a, j, &pipelined);
	if (rc <= 0) {
		tph_kai_stmt_rollback(s, 0);
		return rc;
	}
	rc = tph_kai_stmt_commit(s);
	if (rc < 0)
		return rc;
	if (!pipelined && !already)
		s->last_start[j] = s->v->now;
	a->queued[j] = has_pending(s, j);
	return TPH_OK;
}

static int loop(tph_kai_alloc *a)
{
	const tph_kai_view *v = a->s->v;
	for (uint32_t j = 0; j < v->jobs.n; j++)
		a->queued[j] = schedulable_queue(v, v->jobs.queue[j]) && has_pending(a->s, j) &&
		               tph_kai_gang_satisfied(a->s, j, tph_kai_alive);
	for (uint32_t q = 0; q < v->queues.n; q++)
		a->q_best[q] = -2;
	for (int32_t j; (j = pick(a, -1)) >= 0;) {
		a->queued[j] = 0;
		a->q_best[v->jobs.queue[j]] = -2;
		int rc = turn(a, (uint32_t)j);
		if (rc < 0)
			return rc;
	}
	return TPH_OK;
}

/* Entries are addresses inside the view's name column, so a sorted entry tells its node. */
static int by_name(const void *pa, const void *pb)
{
	return strcmp(**(const char *const *const *)pa, **(const char *const *const *)pb);
}

/* Jobs grouped by queue (a counting sort), node names ranked once, the in-pool nodes. */
static void index_run(tph_kai_alloc *a, const char *const **names)
{
	const tph_kai_view *v = a->s->v;
	for (uint32_t j = 0; j < v->jobs.n; j++)
		if (v->jobs.queue[j] >= 0)
			a->q_first[v->jobs.queue[j] + 2]++;
	for (uint32_t q = 0; q < v->queues.n; q++)
		a->q_first[q + 2] += a->q_first[q + 1];
	for (uint32_t j = 0; j < v->jobs.n; j++)
		if (v->jobs.queue[j] >= 0)
			a->q_jobs[a->q_first[v->jobs.queue[j] + 1]++] = j;
	for (uint32_t n = 0; n < v->nodes.n; n++)
		names[n] = &v->nodes.name[n];
	qsort(names, v->nodes.n, sizeof *names, by_name);
	for (uint32_t r = 0; r < v->nodes.n; r++)
		a->name_rank[names[r] - v->nodes.name] = r;
	for (uint32_t n = 0; n < v->nodes.n; n++)
		if (v->nodes.in_pool[n])
			a->pool[a->n_pool++] = n;
}

static int run(tph_kai_session *s, tph_diag *d)
{
	const tph_kai_view *v = s->v;
	size_t nn = (size_t)v->nodes.n + 1;
	tph_kai_alloc a = {.s = s};
	const char *const **names = tph_calloc(nn, sizeof *names);
	a.queued = tph_calloc((size_t)v->jobs.n + 1, 1);
	a.tasks = tph_calloc((size_t)v->tasks.n + 1, sizeof *a.tasks);
	a.q_first = tph_calloc((size_t)v->queues.n + 2, sizeof *a.q_first);
	a.q_jobs = tph_calloc((size_t)v->jobs.n + 1, sizeof *a.q_jobs);
	a.q_best = tph_calloc((size_t)v->queues.n + 1, sizeof *a.q_best);
	a.name_rank = tph_calloc(nn, sizeof *a.name_rank);
	a.nodes = tph_calloc(nn, sizeof *a.nodes);
	a.pool = tph_calloc(nn, sizeof *a.pool);
	a.ranked = tph_calloc(nn, sizeof *a.ranked);
	int rc = TPH_ENOMEM;
	if (names && a.queued && a.tasks && a.q_first && a.q_jobs && a.q_best && a.name_rank &&
	    a.nodes && a.pool && a.ranked) {
		index_run(&a, names);
		rc = loop(&a);
	}
	tph_free(names);
	tph_free(a.queued);
	tph_free(a.tasks);
	tph_free(a.q_first);
	tph_free(a.q_jobs);
	tph_free(a.q_best);
	tph_free(a.name_rank);
	tph_free(a.nodes);
	tph_free(a.pool);
	tph_free(a.ranked);
	return rc < 0 ? tph_diag_set(d, rc, "allocate: out of memory") : TPH_OK;
}

const tph_kai_action tph_kai_action_allocate = {"allocate", run};
