/* The queue columns and proportion's accounting over them (KAI's proportion.go and
 * resource_share): what the session feeds in at open and on every allocate/deallocate event,
 * before share.c divides and the checks read. */
#include <string.h>

#include "proportion_int.h"

/* Column order inside the block: 8 doubles per resource, then the per-queue integers. */
enum {
	COLS = 8
};

size_t kai_queues_bytes(uint32_t n)
{
	size_t doubles = (size_t)n * COLS * KAI_NRES;
	return doubles * sizeof(double) + (size_t)n * sizeof(int64_t) +
	       (size_t)n * 3 * sizeof(uint32_t) + 8;
}

void kai_queues_init(kai_queues *q, uint32_t n, void *mem)
{
	memset(mem, 0, kai_queues_bytes(n));
	double *d = mem;
	q->n = n;
	for (int r = 0; r < KAI_NRES; r++) {
		kai_share *s = &q->r[r];
		double **col[COLS] = {&s->deserved,  &s->max_allowed, &s->weight,  &s->usage,
		                      &s->allocated, &s->alloc_np,    &s->request, &s->fair};
		for (int c = 0; c < COLS; c++, d += n)
			*col[c] = d;
	}
	q->created = (int64_t *)d;
	q->parent = (uint32_t *)(q->created + n);
	q->rank = q->parent + n;
	q->priority = (int32_t *)(q->rank + n);
	for (uint32_t i = 0; i < n; i++) {
		q->parent[i] = KAI_NOQ;
		q->rank[i] = i;
		q->priority[i] = 100;
	}
}

void kai_queues_copy(kai_queues *dst, const kai_queues *src)
{
	size_t col = (size_t)src->n * sizeof(double);
	for (int r = 0; r < KAI_NRES; r++) {
		const kai_share *s = &src->r[r];
		kai_share *t = &dst->r[r];
		memcpy(t->deserved, s->deserved, col);
		memcpy(t->max_allowed, s->max_allowed, col);
		memcpy(t->weight, s->weight, col);
		memcpy(t->usage, s->usage, col);
		memcpy(t->allocated, s->allocated, col);
		memcpy(t->alloc_np, s->alloc_np, col);
		memcpy(t->request, s->request, col);
		memcpy(t->fair, s->fair, col);
	}
	memcpy(dst->parent, src->parent, src->n * sizeof *src->parent);
	memcpy(dst->priority, src->priority, src->n * sizeof *src->priority);
	memcpy(dst->created, src->created, src->n * sizeof *src->created);
	memcpy(dst->rank, src->rank, src->n * sizeof *src->rank);
}

void kai_queue_set_quota(kai_queues *q, uint32_t queue, int res, double quota, double limit,
                         double weight)
{
	if (res == KAI_MEM) {
		quota *= 1e6;
		limit *= 1e6;
		quota = quota < KAI_UNLIMITED ? KAI_UNLIMITED : quota;
		limit = limit < KAI_UNLIMITED ? KAI_UNLIMITED : limit;
	}
	q->r[res].deserved[queue] = quota;
	q->r[res].max_allowed[queue] = limit;
	q->r[res].weight[queue] = weight;
}

/* KAI walks `for queue, ok := queues[id]; ok; queue, ok = queues[queue.ParentQueue]`. */
#define FOR_PATH(q, i, leaf) for (uint32_t i = (leaf); i < (q)->n; i = (q)->parent[i])

void kai_account_allocated(kai_queues *q, uint32_t queue, const double v[KAI_NRES],
                           bool preemptible)
{
	FOR_PATH(q, i, queue)
	{
		for (int r = 0; r < KAI_NRES; r++) {
			q->r[r].allocated[i] += v[r];
			q->r[r].request[i] += v[r];
			if (!preemptible)
				q->r[r].alloc_np[i] += v[r];
		}
	}
}

void kai_account_pending(kai_queues *q, uint32_t queue, const double v[KAI_NRES])
{
	FOR_PATH(q, i, queue)
	{
		for (int r = 0; r < KAI_NRES; r++)
			q->r[r].request[i] += v[r];
	}
}

void kai_account_event(kai_queues *q, uint32_t queue, const double v[KAI_NRES], bool preemptible,
                       int sign)
{
	FOR_PATH(q, i, queue)
	{
		for (int r = 0; r < KAI_NRES; r++) {
			q->r[r].allocated[i] += sign * v[r];
			if (!preemptible)
				q->r[r].alloc_np[i] += sign * v[r];
		}
	}
}

void kai_total_add_node(double total[KAI_NRES], const double alloc[KAI_NRES],
                        const double foreign[KAI_NRES], bool ready, bool ignore_gpus)
{
	if (!ready)
		return;
	for (int r = 0; r < KAI_NRES; r++)
		total[r] += (r == KAI_GPU && ignore_gpus ? 0 : alloc[r]) - foreign[r];
}

double kai_gpu_memory_fraction(int64_t devices, int64_t mib, int64_t device_mib)
{
	if (mib <= 0 || device_mib <= 0)
		return 0;
	return (double)devices * ((double)mib / (double)device_mib);
}

static uint32_t depth_of(const kai_queues *q, uint32_t i)
{
	uint32_t d = 0;
	FOR_PATH(q, j, q->parent[i])
	{
		d++;
	}
	return d;
}

static uint32_t ancestor_at(const kai_queues *q, uint32_t i, uint32_t depth, uint32_t want)
{
	for (; depth > want; depth--)
		i = q->parent[i];
	return i;
}

void kai_leveled(const kai_queues *q, uint32_t a, uint32_t b, uint32_t *la, uint32_t *lb)
{
	uint32_t da = depth_of(q, a), db = depth_of(q, b);
	uint32_t levels = (da < db ? da : db) + 1;
	for (uint32_t lvl = 0; lvl < levels; lvl++) {
		*la = ancestor_at(q, a, da, lvl);
		*lb = ancestor_at(q, b, db, lvl);
		if (*la != *lb)
			return;
	}
}

double kai_allocatable(const kai_queues *q, uint32_t queue, int res)
{
	const kai_share *s = &q->r[res];
	if (s->deserved[queue] == KAI_UNLIMITED)
		return s->max_allowed[queue];
	double a = s->deserved[queue] > s->fair[queue] ? s->deserved[queue] : s->fair[queue];
	if (s->max_allowed[queue] != KAI_UNLIMITED && s->max_allowed[queue] < a)
		a = s->max_allowed[queue];
	return a;
}

int kai_cmp(double a, double b)
{
	if (a == KAI_UNLIMITED)
		return b == KAI_UNLIMITED ? 0 : 1;
	if (b == KAI_UNLIMITED)
		return -1;
	return a > b ? 1 : a < b ? -1 : 0;
}
