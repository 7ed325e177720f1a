/* KAI's allocate action (actions/allocate, actions/common/allocate.go; KAI-NOTES section 1):
 * ready jobs with pending pods (each leaf queue's queueDepthPerAction best, job_depth.c), in
 * hierarchical queue order; per job a statement: the tasks of
 * this turn (PreJobAllocation, tph_kai_tasks_to_allocate), IsJobOverQueueCapacity, then the
 * sub-group tree — child sets, then pod sets, each in sub-group order, each on the node sets
 * SubsetNodes proposes for it (tried in order from a checkpoint) — placing each task on the
 * best-scored node of its set it fits:
 * bound on idle resources, pipelined onto releasing ones. A job that pipelined a pod while its
 * gang is short of allocated pods is pipelined whole. A committed job with pending pods goes
 * back to its queue (one more pod per turn); a job newly allocated gets last-start `now`. */
#include "base/mem.h"
#include "place.h"

#include <stdlib.h>
#include <string.h>

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
	uint32_t *pool; /* [node] the in-pool nodes: the root's node set */
	uint32_t n_pool;
	tph_kai_placer pl;
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
		if (best_q < 0 ||
		    tph_kai_queue_order(a->s, q, (uint32_t)best_q, j, best_j, NULL, NULL) < 0) {
			best_q = (int32_t)q;
			best_j = j;
		}
	}
	return best_j;
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
	int rc = tph_kai_place_job(&a->pl, j, a->tasks, n, a->pool, a->n_pool);
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
	if (tph_kai_limit_depth(a->s, a->queued, a->q_first, a->q_jobs) < 0)
		return TPH_ENOMEM;
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

/* Jobs grouped by queue (a counting sort), the in-pool nodes. */
static void index_run(tph_kai_alloc *a)
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
		if (v->nodes.in_pool[n])
			a->pool[a->n_pool++] = n;
}

static int run(tph_kai_session *s, tph_diag *d)
{
	const tph_kai_view *v = s->v;
	size_t nn = (size_t)v->nodes.n + 1;
	tph_kai_alloc a = {.s = s};
	int rc = tph_kai_placer_init(&a.pl, s);
	a.queued = tph_calloc((size_t)v->jobs.n + 1, 1);
	a.tasks = tph_calloc((size_t)v->tasks.n + 1, sizeof *a.tasks);
	a.q_first = tph_calloc((size_t)v->queues.n + 2, sizeof *a.q_first);
	a.q_jobs = tph_calloc((size_t)v->jobs.n + 1, sizeof *a.q_jobs);
	a.q_best = tph_calloc((size_t)v->queues.n + 1, sizeof *a.q_best);
	a.pool = tph_calloc(nn, sizeof *a.pool);
	if (rc == TPH_OK && !(a.queued && a.tasks && a.q_first && a.q_jobs && a.q_best && a.pool))
		rc = TPH_ENOMEM;
	if (rc == TPH_OK) {
		index_run(&a);
		rc = loop(&a);
	}
	tph_kai_placer_free(&a.pl);
	tph_free(a.queued);
	tph_free(a.tasks);
	tph_free(a.q_first);
	tph_free(a.q_jobs);
	tph_free(a.q_best);
	tph_free(a.pool);
	return rc < 0 ? tph_diag_set(d, rc, "allocate: out of memory") : TPH_OK;
}

const tph_kai_action tph_kai_action_allocate = {"allocate", run};
