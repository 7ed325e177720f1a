/* Volcano's PredicateFn alone, without the resource fit that tph_filter_nodes() adds: what
 * preempt and reclaim ask of a node (PredicateForPreemptAction, preemptorFitsOnNode, the
 * nominated-node check). Called from the session's thread; spans of nodes may go to OpenMP
 * workers (the callbacks' contract allows it). */
#ifndef TPH_EP_PREDICATE_H
#define TPH_EP_PREDICATE_H

#include "session/session_int.h"

/* out[i] = the first failing predicate's reason on nodes[i] (plugins in tier order; a plugin
 * sees only the nodes every earlier one passed), or TPH_PASS. Any n; callbacks get spans. */
void tph_predicate_nodes(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                         tph_reason_code *out);
/* The same for one node. */
tph_reason_code tph_predicate_node(const tph_session *s, tph_idx task, tph_idx node);

/* The span step that tph_predicate_nodes() and tph_filter_nodes() share: each predicate over
 * live[0..m) (m <= TPH_SPAN) in registration order, a plugin seeing only the nodes every
 * earlier one passed. A node that fails gets the reason in reason[pos[i]]; live and pos keep
 * the survivors, whose count is returned. */
uint32_t tph_predicate_span(const tph_session *s, tph_idx task, tph_idx *live, uint32_t *pos,
                            uint32_t m, tph_reason_code *reason);

/* Volcano's PredicateForPreemptAction verdict from a predicate reason: a node is left out of
 * preemption only when its failure is UnschedulableAndUnresolvable. */
bool tph_predicate_blocks_preempt(const tph_session *s, tph_reason_code code);

#endif
