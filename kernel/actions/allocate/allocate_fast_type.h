/* Node types for allocate's flat path (allocate_fast.h): the ready positions partitioned by the
 * pod specs' kept predicate verdicts (af_pred), and per request row the first node of each type
 * in the row's order (group, then key, then position). A shape whose keys are its row's
 * (TPH_SCORE_ROW) orders its feasible nodes as the row does, so its first is the first of the
 * type winners it finds feasible, a type whose winner it holds infeasible being scanned in the
 * shape's own order: exact whatever the partition, which only makes those scans rare. The row's
 * winners are kept from the touch log once per row instead of a tournament per shape. */
#ifndef TPH_ALLOCATE_FAST_TYPE_H
#define TPH_ALLOCATE_FAST_TYPE_H

#include "allocate_fast.h"

/* Whether the shape's picks may read the type winners (af_type_first), so that its own
 * tournament need not be kept. */
bool af_type_serves(const alloc_fast *f, const af_shape *sh);
/* The shape's first (as af_tree_first orders it) from the type winners of its row, the shape
 * and its row being current; UINT32_MAX when it declines (out of memory, too many types). */
uint32_t af_type_first(alloc_fast *f, af_shape *sh);
void af_type_free(alloc_fast *f);

#endif
