/* Volcano's Session.BuildVictimsPriorityQueue: the one victim order. The preempt and reclaim
 * actions pop its queue lazily (their evictions between pops move plugin orders); plugins that
 * walk victims in pop order (capacity's Reclaimable) take the whole order at once. */
#ifndef TPH_VICTIM_ORDER_H
#define TPH_VICTIM_ORDER_H

#include "pq.h"
#include "session/session_int.h"

/* Whose victims they are: the less function's context. */
typedef struct tph_victim_order {
	const tph_session *s;
	tph_idx preemptor;
} tph_victim_order;

/* BuildVictimsPriorityQueue: victims[0..n) pushed, in that order, into q over buf (room for
 * n). Lower job or task order pops first within a job or queue, tasks whose job left the
 * session before all, VictimQueueOrder across queues. vo must outlive q. */
void tph_victims_queue(tph_pq *q, const tph_victim_order *vo, const tph_idx *victims, uint32_t n,
                       tph_idx *buf);

/* The order in which that queue pops tasks[0..n) for `preemptor` when nothing changes between
 * pops: perm[k] is the index in `tasks` of the k-th task popped. Ties and inconsistent plugin
 * orders come out as Volcano's do. Serial; no allocation; the order callbacks it runs must not
 * call it again with the same perm. */
void tph_victims_pop_order(const tph_session *s, tph_idx preemptor, const tph_idx *tasks,
                           uint32_t n, uint32_t *perm);

#endif
