/* The allocate action's extension points (tephra/kai.h, KAI-NOTES section 3): registration
 * while the plugins open, and dispatch with KAI's aggregation rules — orders take the first
 * non-zero answer then KAI's fallback, node scores are summed and an error drops the node,
 * the capacity check asks only the first registered function. */
#include "kai_int.h"

#include "base/mem.h"

#include <string.h>

int tph_kai_hooks_add(tph_kai_session *s, tph_kai_hooks *h, void *fn, void *state)
{
	if (s->frozen || !fn)
		return TPH_EINVAL;
	if (tph_grow(&h->items, &h->cap, h->n + 1, sizeof *h->items))
		return TPH_ENOMEM;
	h->items[h->n++] = (tph_kai_hook){fn, state};
	return TPH_OK;
}

int tph_kai_add_job_order(tph_kai_session *s, tph_kai_job_order_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->job_order, (void *)fn, state);
}

int tph_kai_add_task_order(tph_kai_session *s, tph_kai_task_order_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->task_order, (void *)fn, state);
}

int tph_kai_add_pod_set_order(tph_kai_session *s, tph_kai_pod_set_order_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->pod_set_order, (void *)fn, state);
}

int tph_kai_add_queue_order(tph_kai_session *s, tph_kai_queue_order_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->queue_order, (void *)fn, state);
}

int tph_kai_add_node_pre_order(tph_kai_session *s, tph_kai_node_pre_order_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->node_pre_order, (void *)fn, state);
}

int tph_kai_add_node_order(tph_kai_session *s, tph_kai_node_order_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->node_order, (void *)fn, state);
}

static int add_local(tph_kai_session *s, tph_kai_hooks *h, void *fn, tph_kai_score_local_fn local,
                     void *state)
{
	int rc = tph_kai_hooks_add(s, h, fn, state);
	if (rc == TPH_OK) {
		h->items[h->n - 1].local = local;
		h->items[h->n - 1].is_local = true;
	}
	return rc;
}

int tph_kai_add_local_node_pre_order(tph_kai_session *s, tph_kai_node_pre_order_fn fn,
                                     tph_kai_score_local_fn local, void *state)
{
	return add_local(s, &s->node_pre_order, (void *)fn, local, state);
}

int tph_kai_add_local_node_order(tph_kai_session *s, tph_kai_node_order_fn fn,
                                 tph_kai_score_local_fn local, void *state)
{
	return add_local(s, &s->node_order, (void *)fn, local, state);
}

static bool all_local(const tph_kai_session *s, const tph_kai_hooks *h, uint32_t t)
{
	for (uint32_t i = 0; i < h->n; i++) {
		const tph_kai_hook *k = &h->items[i];
		if (!k->is_local || (k->local && !k->local(k->state, s, t)))
			return false;
	}
	return true;
}

bool tph_kai_scores_local(const tph_kai_session *s, uint32_t t)
{
	return all_local(s, &s->node_pre_order, t) && all_local(s, &s->node_order, t);
}

int tph_kai_add_job_capacity(tph_kai_session *s, tph_kai_job_capacity_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->job_capacity, (void *)fn, state);
}

int tph_kai_add_event_handler(tph_kai_session *s, tph_kai_event_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->events, (void *)fn, state);
}

/* The first non-zero answer of an order point whose functions compare two indices (JobOrder,
 * TaskOrder and PodSetOrder share the signature). */
static int first_nonzero(const tph_kai_session *s, const tph_kai_hooks *h, uint32_t l, uint32_t r)
{
	for (uint32_t i = 0; i < h->n; i++) {
		int c = ((tph_kai_job_order_fn)h->items[i].fn)(h->items[i].state, s, l, r);
		if (c)
			return c;
	}
	return 0;
}

/* KAI's fallback for equal objects: created first, then the smaller name (the UID). */
static int by_creation(tph_time lc, tph_time rc, const char *ln, const char *rn)
{
	if (lc != rc)
		return lc < rc ? -1 : 1;
	int c = strcmp(ln, rn);
	return (c > 0) - (c < 0);
}

int tph_kai_job_order(const tph_kai_session *s, uint32_t l, uint32_t r)
{
	int c = first_nonzero(s, &s->job_order, l, r);
	if (c)
		return c;
	const tph_kai_jobs *j = &s->v->jobs;
	return by_creation(j->creation[l], j->creation[r], j->name[l], j->name[r]);
}

int tph_kai_task_order(const tph_kai_session *s, uint32_t l, uint32_t r)
{
	int c = first_nonzero(s, &s->task_order, l, r);
	if (c)
		return c;
	const tph_kai_tasks *t = &s->v->tasks;
	return by_creation(t->creation[l], t->creation[r], t->name[l], t->name[r]);
}

/* Whether r goes strictly before l (dir -1: after). */
static bool before(const tph_kai_session *s, const uint32_t *rank, uint32_t r, uint32_t l, int dir)
{
	if (rank)
		return dir > 0 ? rank[r] < rank[l] : rank[r] > rank[l];
	return dir * tph_kai_task_order(s, r, l) < 0;
}

void tph_kai_sort_tasks(const tph_kai_session *s, uint32_t *t, uint32_t n, int dir)
{
	uint32_t *tmp = s->order_tmp, *src = t, *dst = tmp;
	const uint32_t *rank = s->naive ? NULL : s->task_rank;
	for (uint64_t w = 1; w < n; w *= 2) {
		for (uint64_t lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = (uint32_t)(lo + w < n ? lo + w : n);
			uint32_t hi = (uint32_t)(lo + 2 * w < n ? lo + 2 * w : n);
			uint32_t i = (uint32_t)lo, j = mid, k = (uint32_t)lo;
			/* the right side goes first only when strictly before: stable */
			while (i < mid && j < hi)
				dst[k++] =
				    before(s, rank, src[j], src[i], dir) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		uint32_t *x = src;
		src = dst;
		dst = x;
	}
	if (src != t)
		memcpy(t, src, (size_t)n * sizeof *t);
}

int tph_kai_rank_tasks(tph_kai_session *s)
{
	uint32_t nt = s->v->tasks.n, *all = tph_malloc(((size_t)nt + 1) * sizeof *all);
	s->task_rank = tph_malloc(((size_t)nt + 1) * sizeof *s->task_rank);
	if (!all || !s->task_rank) {
		tph_free(all);
		return TPH_ENOMEM;
	}
	uint32_t *rank = s->task_rank;
	s->task_rank = NULL; /* the comparator sorts the first time */
	for (uint32_t t = 0; t < nt; t++)
		all[t] = t;
	tph_kai_sort_tasks(s, all, nt, 1);
	for (uint32_t i = 0, r = 0; i < nt; i++) {
		r += i > 0 && tph_kai_task_order(s, all[i - 1], all[i]) != 0;
		rank[all[i]] = r;
	}
	s->task_rank = rank;
	tph_free(all);
	uint32_t nj = s->v->jobs.n;
	s->job_ranked = tph_malloc(((size_t)s->job_first[nj] + 1) * sizeof *s->job_ranked);
	if (!s->job_ranked)
		return TPH_ENOMEM;
	memcpy(s->job_ranked, s->job_tasks, (size_t)s->job_first[nj] * sizeof *s->job_ranked);
	for (uint32_t j = 0; j < nj; j++)
		tph_kai_sort_tasks(s, s->job_ranked + s->job_first[j],
		                   s->job_first[j + 1] - s->job_first[j], 1);
	return TPH_OK;
}

int tph_kai_pod_set_order(const tph_kai_session *s, uint32_t l, uint32_t r)
{
	int c = first_nonzero(s, &s->pod_set_order, l, r);
	if (c)
		return c;
	c = strcmp(s->v->subgroups.name[l], s->v->subgroups.name[r]);
	return (c > 0) - (c < 0);
}

int tph_kai_queue_order(const tph_kai_session *s, uint32_t lq, uint32_t rq, int32_t ljob,
                        int32_t rjob, const double *lvictims, const double *rvictims)
{
	const tph_kai_hooks *h = &s->queue_order;
	for (uint32_t i = 0; i < h->n; i++) {
		int c = ((tph_kai_queue_order_fn)h->items[i].fn)(h->items[i].state, s, lq, rq, ljob,
		                                                 rjob, lvictims, rvictims);
		if (c)
			return c;
	}
	const tph_kai_queues *q = &s->v->queues;
	return by_creation(q->creation[lq], q->creation[rq], q->name[lq], q->name[rq]);
}

void tph_kai_node_pre_order(const tph_kai_session *s, uint32_t task, const uint32_t *nodes,
                            uint32_t n)
{
	const tph_kai_hooks *h = &s->node_pre_order;
	for (uint32_t i = 0; i < h->n; i++)
		((tph_kai_node_pre_order_fn)h->items[i].fn)(h->items[i].state, s, task, nodes, n);
}

int tph_kai_node_score(const tph_kai_session *s, uint32_t task, uint32_t node, double *score)
{
	const tph_kai_hooks *h = &s->node_order;
	double sum = 0;
	for (uint32_t i = 0; i < h->n; i++) {
		double x = 0;
		if (((tph_kai_node_order_fn)h->items[i].fn)(h->items[i].state, s, task, node, &x) <
		    0)
			return -1;
		sum += x;
	}
	*score = sum;
	return 0;
}

bool tph_kai_job_schedulable(const tph_kai_session *s, uint32_t job, const uint32_t *tasks,
                             uint32_t n)
{
	const tph_kai_hooks *h = &s->job_capacity;
	if (!h->n)
		return true;
	return ((tph_kai_job_capacity_fn)h->items[0].fn)(h->items[0].state, s, job, tasks, n);
}

void tph_kai_free_order_hooks(tph_kai_session *s)
{
	tph_kai_hooks *all[] = {&s->job_order,    &s->task_order,     &s->pod_set_order,
	                        &s->queue_order,  &s->node_pre_order, &s->node_order,
	                        &s->job_capacity, &s->events};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		tph_free(all[i]->items);
}
