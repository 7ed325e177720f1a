/* Volcano's Session.BuildVictimsPriorityQueue as an order: the sequence in which popping the
 * victims' priority queue returns them. Shared by the plugins that walk victims in that order
 * (capacity's Reclaimable) and by the preempt and reclaim actions. */
#ifndef TPH_VICTIM_ORDER_H
#define TPH_VICTIM_ORDER_H

#include "session.h"

/* Write tasks[0..n) to out[0..n) in the order Volcano pops them for `preemptor`: lower job
 * or task order first within a job or queue, VictimQueueOrder across queues. The heap is Go's
 * container/heap run with Volcano's less function, so ties and inconsistent plugin orders
 * come out as Volcano's do. out must not alias tasks. Serial; no allocation. */
void tph_victims_pop_order(const tph_session *s, tph_idx preemptor, const tph_idx *tasks,
                           uint32_t n, tph_idx *out);

#endif
