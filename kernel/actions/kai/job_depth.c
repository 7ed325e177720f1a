/* KAI's queueDepthPerAction (framework/session.go GetJobsDepth; scheduler_util/priority_queue.go):
 * allocate, consolidation, reclaim and preempt build each leaf queue's job heap with the
 * action's depth as its capacity, before the first pop. A push past the capacity removes the
 * heap's last slot: the new job when it is no better than its parent, else a job it pushed
 * down. Jobs arrive in Go map order, so which ones stay is KAI's luck, except that the best
 * always does; tephra keeps the `depth` best by JobOrder, what KAI keeps when the map yields
 * them best first. Whatever happens to a kept job later (skipped by its signature, refused
 * by admission) it was one of the depth. A job allocate pushes back after a turn never
 * overflows the heap: its queue just lost that job. */
#include "place.h"

#include "base/mem.h"
#include "load/conf_int.h"

#include <string.h>

int32_t tph_kai_queue_depth(const tph_kai_session *s)
{
	for (uint32_t i = 0; i < s->conf->n_queue_depth; i++)
		if (strcmp(s->conf->queue_depth[i].action, s->action) == 0)
			return s->conf->queue_depth[i].depth;
	return -1;
}

/* heap[0..n) keeps its worst job (by JobOrder) at the root. */
static bool worse(const tph_kai_session *s, uint32_t l, uint32_t r)
{
	return tph_kai_job_order(s, l, r) > 0;
}

static void sift_down(const tph_kai_session *s, uint32_t *heap, uint32_t n, uint32_t at)
{
	for (;;) {
		uint32_t w = at, l = 2 * at + 1, r = l + 1;
		if (l < n && worse(s, heap[l], heap[w]))
			w = l;
		if (r < n && worse(s, heap[r], heap[w]))
			w = r;
		if (w == at)
			return;
		uint32_t t = heap[at];
		heap[at] = heap[w];
		heap[w] = t;
		at = w;
	}
}

static void sift_up(const tph_kai_session *s, uint32_t *heap, uint32_t at)
{
	while (at > 0 && worse(s, heap[at], heap[(at - 1) / 2])) {
		uint32_t p = (at - 1) / 2, t = heap[at];
		heap[at] = heap[p];
		heap[p] = t;
		at = p;
	}
}

/* Leaf queue q's jobs[0..n) flagged in `in`: keep the `depth` best flagged. */
static void limit_queue(const tph_kai_session *s, uint8_t *in, const uint32_t *jobs, uint32_t n,
                        uint32_t depth, uint32_t *heap)
{
	uint32_t size = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = jobs[i];
		if (!in[j])
			continue;
		if (size < depth) {
			heap[size] = j;
			sift_up(s, heap, size++);
		} else if (worse(s, heap[0], j)) {
			in[heap[0]] = 0;
			heap[0] = j;
			sift_down(s, heap, size, 0);
		} else {
			in[j] = 0;
		}
	}
}

int tph_kai_limit_depth(const tph_kai_session *s, uint8_t *in, const uint32_t *q_first,
                        const uint32_t *q_jobs)
{
	int32_t depth = tph_kai_queue_depth(s);
	const tph_kai_view *v = s->v;
	if (depth < 0 || (uint32_t)depth >= v->jobs.n)
		return TPH_OK;
	uint32_t *heap = tph_calloc((size_t)depth + 1, sizeof *heap);
	if (!heap)
		return TPH_ENOMEM;
	for (uint32_t q = 0; q < v->queues.n; q++)
		limit_queue(s, in, q_jobs + q_first[q], q_first[q + 1] - q_first[q],
		            (uint32_t)depth, heap);
	tph_free(heap);
	return TPH_OK;
}
