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

/* The shape's row and pod spec verdicts brought up to date, and its row's type winners with
 * them (one walk of the log), its own columns left as they are; TPH_ENOMEM. */
int af_type_sync(alloc_fast *f, af_shape *sh, tph_idx task);
/* The shape's first as af_tree_first orders it (*first; pos UINT32_MAX when no node is
 * feasible), from the type winners of its row, the row and spec being current and, with
 * `cells`, the shape's columns too (then the nodes a tracker masks are left out); without,
 * the nodes tracker `tr` (if any) holds failed are left out; TPH_DECLINED (out of memory, too
 * many types). */
int af_type_first(alloc_fast *f, af_shape *sh, bool cells, const af_track *tr, af_win *first);
void af_type_free(alloc_fast *f);

#endif
