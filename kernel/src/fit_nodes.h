/* Volcano's job.NodesFitErrors, the part preempt and reclaim read: for each task whose last
 * placement attempt in this session failed, the nodes that failed it UnschedulableAndUnresolvable
 * (FilterOutUnschedulableAndUnresolvableNodesForTask skips them). Allocate and backfill record;
 * preempt and reclaim read. Session thread only; memory from the session arena. */
#ifndef TPH_FIT_NODES_H
#define TPH_FIT_NODES_H

#include "session.h"

/* The task found no node: codes[i] is the verdict on nodes[i]. Replaces the task's record
 * (job.NodesFitErrors[task] = fitErrors). Failures that are not unresolvable are not kept. */
int tph_record_fit_nodes(tph_session *s, tph_idx task, const tph_idx *nodes,
                         const tph_reason_code *codes, uint32_t n);
/* Forget the record of every task of `job` (Volcano's job.ResetFitErr). */
void tph_reset_fit_nodes(tph_session *s, tph_idx job);
/* The nodes to skip for `task` (in recording order); 0 when none were recorded. */
uint32_t tph_unresolvable_nodes(const tph_session *s, tph_idx task, const tph_idx **out);

#endif
