/* Volcano's Session.BuildVictimsPriorityQueue as an order: the sequence in which popping the
 * victims' priority queue returns them. Shared by the plugins that walk victims in that order
 * (capacity's Reclaimable) and by the preempt and reclaim actions. */
#ifndef TPH_VICTIM_ORDER_H
#define TPH_VICTIM_ORDER_H

#include "session.h"

/* The order in which Volcano pops tasks[0..n) for `preemptor`: perm[k] is the index in
 * `tasks` of the k-th task popped (lower job or task order first within a job or queue,
 * VictimQueueOrder across queues). The heap is Go's container/heap run with Volcano's less
 * function, so ties and inconsistent plugin orders come out as Volcano's do. Serial; no
 * allocation; the order callbacks it runs must not call it again with the same perm. */
void tph_victims_pop_order(const tph_session *s, tph_idx preemptor, const tph_idx *tasks,
                           uint32_t n, uint32_t *perm);

#endif
