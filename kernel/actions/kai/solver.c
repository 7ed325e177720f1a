/* KAI's JobSolver and byPodSolver (actions/common/solvers/job_solver.go, by_pod_solver.go):
 * the k-search over a job's tasks (1, 2, 4 ... n, then a binary search; each solved probe's
 * victims carried into the next), the generators of each probe in registration order, and the
 * simulation of one scenario in the session's statement. */
#include "solver.h"

#include "base/mem.h"

#include <string.h>

int tph_kai_solver_init(tph_kai_solver *sv, tph_kai_session *s, tph_kai_solver_rules rules)
{
	const tph_kai_view *v = s->v;
	size_t nt = (size_t)v->tasks.n + 1, nj = (size_t)v->jobs.n + 1, nn = (size_t)v->nodes.n + 1;
	*sv = (tph_kai_solver){.s = s, .rules = rules};
	int rc = tph_kai_placer_init(&sv->pl, s);
	sv->pl.pipeline_only = true;
	sv->q_first = tph_calloc((size_t)v->queues.n + 2, sizeof *sv->q_first);
	sv->q_jobs = tph_calloc(nj, sizeof *sv->q_jobs);
	sv->pend = tph_calloc(nj, sizeof *sv->pend);
	sv->pool = tph_calloc(nn, sizeof *sv->pool);
	sv->tasks = tph_calloc(nt, sizeof *sv->tasks);
	sv->rec = tph_calloc(nt, sizeof *sv->rec);
	sv->pot = tph_calloc(nt, sizeof *sv->pot);
	sv->batch_end = tph_calloc(nt, sizeof *sv->batch_end);
	sv->victims = tph_calloc(2 * nt, sizeof *sv->victims);
	sv->vjob = tph_calloc(nj, sizeof *sv->vjob);
	sv->vfirst = tph_calloc(nj + 1, sizeof *sv->vfirst);
	sv->order = tph_calloc(2 * nt, sizeof *sv->order);
	sv->sub = tph_calloc(2 * nt, sizeof *sv->sub);
	sv->tmp = tph_calloc(nt + nn, sizeof *sv->tmp);
	sv->cand = tph_calloc(nj, 1);
	sv->vq_in = tph_calloc(nj, 1);
	sv->taken = tph_calloc(nt, 1);
	sv->job_in = tph_calloc(nj, 1);
	sv->job_mark = tph_calloc(nj, 1);
	sv->node_seen = tph_calloc(nn, 1);
	sv->cap = tph_calloc(nn, sizeof *sv->cap);
	sv->rf = tph_calloc(nn, sizeof *sv->rf);
	sv->req = tph_calloc(nt, sizeof *sv->req);
	sv->in_rec = tph_calloc(nt, 1);
	sv->saved = tph_calloc(nt, 1);
	sv->taken_list = tph_calloc(nt, sizeof *sv->taken_list);
	sv->rem = tph_calloc((size_t)v->subgroups.n + 1, sizeof *sv->rem);
	sv->vq_popped = tph_calloc((size_t)v->queues.n * TPH_KAI_DIMS + 1, sizeof *sv->vq_popped);
	sv->filter_levels = tph_calloc((size_t)v->subgroups.n + 1, sizeof *sv->filter_levels);
	sv->filter_req = tph_calloc((size_t)v->subgroups.n + 1, sizeof *sv->filter_req);
	sv->filter_cap = tph_calloc(nn, sizeof *sv->filter_cap);
	sv->filter_used = tph_calloc(nn, sizeof *sv->filter_used);
	sv->feasible = tph_calloc(nn, 1);
	sv->nodes = tph_calloc(nn, sizeof *sv->nodes);
	sv->node_stamp = tph_calloc(nn, sizeof *sv->node_stamp);
	sv->aff_ok = tph_calloc(nt, 1);
	sv->kid_first = tph_calloc((size_t)v->queues.n + 3, sizeof *sv->kid_first);
	sv->kids = tph_calloc((size_t)v->queues.n + 1, sizeof *sv->kids);
	if (rc == TPH_OK)
		rc = tph_kai_idle_init(&sv->idle, v->nodes.n, v->tasks.n);
	if (rc == TPH_OK)
		rc = tph_kai_jobq_init(&sv->vq, v->queues.n, v->jobs.n);
	if (rc == TPH_OK)
		rc = tph_kai_jobq_init(&sv->rq, v->queues.n, v->jobs.n);
	if (rc == TPH_OK &&
	    !(sv->q_first && sv->q_jobs && sv->pend && sv->pool && sv->tasks && sv->rec &&
	      sv->pot && sv->batch_end && sv->victims && sv->vjob && sv->vfirst && sv->order &&
	      sv->sub && sv->tmp && sv->cand && sv->vq_in && sv->taken && sv->job_in &&
	      sv->job_mark && sv->node_seen && sv->cap && sv->rf && sv->req && sv->in_rec &&
	      sv->saved && sv->taken_list && sv->rem && sv->vq_popped && sv->kid_first &&
	      sv->kids && sv->filter_levels && sv->filter_req && sv->filter_cap &&
	      sv->filter_used && sv->feasible && sv->nodes && sv->node_stamp && sv->aff_ok))
		rc = TPH_ENOMEM;
	if (rc == TPH_OK)
		tph_kai_solver_index(sv);
	return rc;
}

void tph_kai_solver_free(tph_kai_solver *sv)
{
	void *all[] = {sv->q_first,    sv->q_jobs, sv->pend,      sv->pool,     sv->tasks,
	               sv->rec,        sv->pot,    sv->batch_end, sv->victims,  sv->vjob,
	               sv->vfirst,     sv->order,  sv->sub,       sv->tmp,      sv->cand,
	               sv->vq_in,      sv->taken,  sv->job_in,    sv->job_mark, sv->node_seen,
	               sv->cap,        sv->rf,     sv->req,       sv->in_rec,   sv->saved,
	               sv->taken_list, sv->rem,    sv->kid_first, sv->kids};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		tph_free(all[i]);
	tph_free(sv->vq_popped);
	tph_free(sv->filter_levels);
	tph_free(sv->filter_req);
	tph_free(sv->filter_cap);
	tph_free(sv->filter_used);
	tph_free(sv->feasible);
	if (sv->s)
		tph_kai_ranges_subset(sv->s, NULL, 0);
	tph_free(sv->nodes);
	tph_free(sv->node_stamp);
	tph_free(sv->aff_ok);
	tph_kai_jobq_free(&sv->vq);
	tph_kai_jobq_free(&sv->rq);
	tph_kai_placer_free(&sv->pl);
	tph_kai_memo_free(&sv->memo);
	tph_kai_idle_free(&sv->idle);
}

/* KAI's AllocateJob pipeline-only on the scenario's nodes: PreJobAllocation,
 * IsJobOverQueueCapacity, the placement walk.
 * What it placed is rolled back when not every task found a node. */
static int allocate_job(tph_kai_solver *sv, uint32_t j, const uint32_t *tasks, uint32_t n)
{
	tph_kai_session *s = sv->s;
	tph_kai_pre_job_allocation(s, j);
	if (!n || !tph_kai_job_schedulable(s, j, tasks, n))
		return 0;
	uint32_t cp = tph_kai_stmt_checkpoint(s);
	int rc = tph_kai_place_job(&sv->pl, j, tasks, n, sv->nodes, sv->n_nodes);
	if (rc == 0)
		tph_kai_stmt_rollback(s, cp);
	return rc;
}

/* The victims, grouped by job in order of first appearance, for the validators. */
static void group_victims(tph_kai_solver *sv, tph_kai_scenario *sc)
{
	const tph_kai_view *v = sv->s->v;
	uint32_t nv = 0, *out = sv->sub + v->tasks.n; /* the generators' scenario is below */
	for (uint32_t i = 0; i < sv->n_victims; i++) {
		uint32_t j = (uint32_t)v->tasks.job[sv->victims[i]];
		if (!sv->job_mark[j]) {
			sv->job_mark[j] = 1;
			sv->vjob[nv++] = j;
		}
	}
	uint32_t at = 0;
	for (uint32_t g = 0; g < nv; g++) {
		sv->vfirst[g] = at;
		for (uint32_t i = 0; i < sv->n_victims; i++)
			if ((uint32_t)v->tasks.job[sv->victims[i]] == sv->vjob[g])
				out[at++] = sv->victims[i];
		sv->job_mark[sv->vjob[g]] = 0;
	}
	sv->vfirst[nv] = at;
	*sc = (tph_kai_scenario){sv->job, nv, sv->vjob, sv->vfirst, out, sv->k, sv->tasks};
}

/* KAI's GetJobsToAllocate + TryToVirtuallyAllocatePreemptorAndGetVictims: every job with a
 * pending pod, each victim job and the preemptor, in queue order; only the preemptor and the
 * victim jobs are placed (pipeline-only); the preemptor must fit. */
static int reallocate(tph_kai_solver *sv)
{
	tph_kai_session *s = sv->s;
	const tph_kai_view *v = s->v;
	for (uint32_t i = 0; i < sv->n_pend; i++)
		sv->job_in[sv->pend[i]] = 1;
	uint32_t left = 1; /* the preemptor and the victim jobs not popped yet: then stop */
	for (uint32_t i = 0; i < sv->n_victims; i++) {
		uint32_t j = (uint32_t)v->tasks.job[sv->victims[i]];
		left += !sv->job_mark[j];
		sv->job_in[j] = sv->job_mark[j] = 1;
	}
	sv->job_in[sv->job] = 1;
	int rc = 0;
	tph_kai_jobq_forget(sv, &sv->rq, false);
	/* Until its pop the queue orders KAI's partial job, whose turn is the probe's k tasks. */
	tph_kai_set_partial(s, sv->job, sv->tasks, sv->k);
	for (int32_t j; left && (j = tph_kai_jobq_pop(sv, sv->job_in, &sv->rq, false)) >= 0;) {
		left -= (uint32_t)j == sv->job || sv->job_mark[j];
		if ((uint32_t)j == sv->job) {
			tph_kai_set_partial(s, sv->job, NULL, 0);
			rc = allocate_job(sv, sv->job, sv->tasks, sv->k);
			if (rc <= 0)
				break;
		} else if (sv->job_mark[j]) {
			uint32_t n = tph_kai_tasks_to_allocate(s, (uint32_t)j, sv->tmp);
			int r = allocate_job(sv, (uint32_t)j, sv->tmp, n);
			if (r < 0) {
				rc = r;
				break;
			}
		}
	}
	if (s->partial)
		tph_kai_set_partial(s, sv->job, NULL, 0);
	for (uint32_t i = 0; i < sv->n_pend; i++)
		sv->job_in[sv->pend[i]] = 0;
	for (uint32_t i = 0; i < sv->n_victims; i++) {
		uint32_t j = (uint32_t)v->tasks.job[sv->victims[i]];
		sv->job_in[j] = sv->job_mark[j] = 0;
	}
	sv->job_in[sv->job] = 0;
	return rc;
}

/* The recorded victims become tasks[0..n); in_rec marks exactly them. */
static void set_recorded(tph_kai_solver *sv, const uint32_t *tasks, uint32_t n)
{
	for (uint32_t i = 0; i < sv->n_rec; i++)
		sv->in_rec[sv->rec[i]] = 0;
	if (n) /* tasks is NULL when clearing */
		memmove(sv->rec, tasks, n * sizeof *sv->rec);
	sv->n_rec = n;
	for (uint32_t i = 0; i < n; i++)
		sv->in_rec[tasks[i]] = 1;
}

/* The victims a solved scenario leaves: killed (Releasing) first, then moved (Pipelined);
 * those pipelined back onto their own node were unevicted and are no victims. */
static void record_victims(tph_kai_solver *sv)
{
	const uint8_t *st = sv->s->status;
	uint32_t n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < sv->n_victims; i++) {
			uint8_t want = pass ? TPH_KAI_TS_PIPELINED : TPH_KAI_TS_RELEASING;
			if (st[sv->victims[i]] == want)
				sv->tmp[n++] = sv->victims[i];
		}
	set_recorded(sv, sv->tmp, n);
}

int tph_kai_solver_try(tph_kai_solver *sv, const uint32_t *pot, uint32_t n)
{
	tph_kai_session *s = sv->s;
	if (tph_kai_memo_failed_before(sv, pot, n))
		return 0;
	sv->n_victims = 0;
	for (uint32_t i = 0; i < sv->n_rec + n; i++) {
		uint32_t t = i < sv->n_rec ? sv->rec[i] : pot[i - sv->n_rec];
		if (!s->virt[t] && tph_kai_active_allocated(s->status[t]) && s->node[t] >= 0) {
			int rc = tph_kai_stmt_evict(s, t);
			if (rc < 0)
				return rc;
			sv->victims[sv->n_victims++] = t;
		}
	}
	sv->scenarios++;
	tph_kai_scenario_nodes(sv);
	int rc = sv->n_victims ? reallocate(sv) : 0;
	tph_kai_scenario sc;
	if (rc > 0) {
		group_victims(sv, &sc);
		rc = !sv->rules.valid || sv->rules.valid(sv, &sc) ? 1 : 0;
	}
	if (rc <= 0)
		tph_kai_stmt_rollback(s, 0);
	return rc == 0 ? tph_kai_memo_add(sv, pot, n) : rc;
}

/* One probe with generator g: the first k tasks. */
static int probe(tph_kai_solver *sv, uint8_t g, uint32_t k)
{
	sv->k = k;
	return g == TPH_KAI_GEN_NODE_LOCAL_GREEDY ? tph_kai_gen_node_local_greedy(sv)
	                                          : tph_kai_gen_multi_node_gang(sv);
}

/* A probe whose solution only teaches: its victims are kept (record_victims ran when it
 * solved), its statement discarded. */
static int probe_discard(tph_kai_solver *sv, uint8_t g, uint32_t k)
{
	int rc = probe(sv, g, k);
	if (rc > 0) {
		record_victims(sv);
		tph_kai_stmt_rollback(sv->s, 0);
	}
	return rc;
}

int64_t tph_kai_search_k(uint32_t n, int (*try_k)(void *ctx, uint32_t k), void *ctx)
{
	uint32_t lo = 0, hi = 0, k = 1;
	for (;;) {
		int rc = try_k(ctx, k);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			hi = k;
			break;
		}
		lo = k;
		if (k == n)
			return n;
		k = k * 2 > n ? n : k * 2;
	}
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		int rc = try_k(ctx, mid);
		if (rc < 0)
			return rc;
		if (rc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The generator a search probes with. */
typedef struct search_ctx {
	tph_kai_solver *sv;
	uint8_t g;
} search_ctx;

static int search_probe(void *ctx, uint32_t k)
{
	search_ctx *c = ctx;
	return probe_discard(c->sv, c->g, k);
}

static uint32_t active_used(const tph_kai_session *s, uint32_t j)
{
	uint32_t c = 0;
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++)
		c += tph_kai_active_used(s->status[s->job_tasks[i]]);
	return c;
}

/* The jobs with a Pending pod: re-allocation orders them with the victims (KAI's
 * GetJobsToAllocate); scenarios roll back, so they hold for the whole job's search. */
static void pending_jobs(tph_kai_solver *sv)
{
	const tph_kai_session *s = sv->s;
	sv->n_pend = 0;
	for (uint32_t q = 0; q < s->v->queues.n; q++)
		for (uint32_t i = sv->q_first[q]; i < sv->q_first[q + 1]; i++) {
			uint32_t j = sv->q_jobs[i];
			for (uint32_t k = s->job_first[j]; k < s->job_first[j + 1]; k++)
				if (s->status[s->job_tasks[k]] == TPH_KAI_TS_PENDING) {
					sv->pend[sv->n_pend++] = j;
					break;
				}
		}
}

int tph_kai_solve_job(tph_kai_solver *sv, uint32_t j)
{
	tph_kai_session *s = sv->s;
	sv->job = j;
	tph_kai_memo_reset(&sv->memo);
	pending_jobs(sv);
	sv->n_tasks = tph_kai_tasks_to_allocate(s, j, sv->tasks);
	if (!sv->n_tasks)
		return 0;
	tph_kai_feasible_nodes(sv, j);
	uint32_t before = active_used(s, j);
	for (uint32_t i = 0; i < s->n_generators; i++) {
		uint8_t g = s->generators[i];
		set_recorded(sv, NULL, 0);
		search_ctx ctx = {sv, g};
		int64_t k = tph_kai_search_k(sv->n_tasks, search_probe, &ctx);
		if (k <= 0) {
			if (k < 0)
				return (int)k;
			continue;
		}
		int rc = probe(sv, g, sv->n_tasks);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		/* KAI leaves an unsolved job's statement open, uncommitted; tephra rolls it back.
		 */
		if (tph_kai_gang_satisfied(s, j, tph_kai_active_used) && active_used(s, j) > before)
			return 1;
		tph_kai_stmt_rollback(s, 0);
		return 0;
	}
	return 0;
}
