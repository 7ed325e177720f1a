/* Volcano's util.PriorityQueue: Go's container/heap (up, down, Push, Pop) over indices, step
 * for step. It serves every action's queue, job and task loops, the victim queues of preempt
 * and reclaim, and capacity's victim order. A job's task queue whose order the session ranked
 * (tph_pq_init_tasks) may keep a sorted run instead: the same pops. Serial; the storage is the
 * caller's. */
#ifndef TPH_PQ_H
#define TPH_PQ_H

#include <stdbool.h>
#include <stdint.h>

#include "session/session_int.h"

/* A session order: <0 when a comes first (Volcano's LessFn returning true). */
typedef int (*tph_pq_cmp)(const tph_session *s, tph_idx a, tph_idx b);
/* A Less function over its own context: true when a comes first. */
typedef bool (*tph_pq_less)(const void *ctx, tph_idx a, tph_idx b);

/* Plugins' orders can change while items wait (drf shares, gang readiness, evictions between
 * victim pops), so the heap is Go's exactly: the same pushes and pops give the same answers
 * even when the order is stale. Task ranks never go stale: they are the one exception. */
typedef struct tph_pq {
	tph_idx *items; /* caller-provided storage of `cap` entries */
	uint32_t n, cap;
	tph_pq_cmp cmp;   /* the order when set (tph_pq_init), else `less` */
	tph_pq_less less; /* tph_pq_init_less */
	const void *ctx;  /* the session for cmp, less's context otherwise */
	/* tph_pq_init_tasks: the job's task ranks, which answer as cmp would; NULL: ask cmp */
	const uint32_t *rank;
	/* Ranks are distinct and fixed, so any priority queue pops what the heap pops: a rank
	 * queue keeps its items as a run while pushes allow, TPH_PQ_ASC (pushed in rising rank:
	 * an ascending array is a heap) until the first pop turns it TPH_PQ_DESC (pops take the
	 * last item; pushes below it append); any other push makes it the heap again. */
	uint8_t run;
} tph_pq;

enum {
	TPH_PQ_HEAP = 0,
	TPH_PQ_ASC,
	TPH_PQ_DESC
};

/* A queue ordered by a session order (tph_queue_order, tph_job_order, tph_task_order...). */
void tph_pq_init(tph_pq *q, const tph_session *s, tph_pq_cmp cmp, tph_idx *storage, uint32_t cap);
/* A queue of job's tasks in tph_task_order, by the job's task ranks when the session has them
 * (tph_task_ranks): they answer every comparison as tph_task_order would and never change, so
 * the queue pops what the callbacks' heap pops. Only tasks of `job` may be pushed. */
void tph_pq_init_tasks(tph_pq *q, const tph_session *s, tph_idx job, tph_idx *storage,
                       uint32_t cap);
/* A queue ordered by `less`; ctx must outlive the queue. */
void tph_pq_init_less(tph_pq *q, const void *ctx, tph_pq_less less, tph_idx *storage, uint32_t cap);
/* heap.Push. TPH_ERANGE when full (a caller sized it wrong; asserted in debug builds). */
int tph_pq_push(tph_pq *q, tph_idx item);
/* heap.Pop. TPH_NOIDX when empty. */
tph_idx tph_pq_pop(tph_pq *q);

#endif
