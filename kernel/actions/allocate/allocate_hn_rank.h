/* Ranks per hypernode set for allocate's shapes (allocate_hn_rank.c). A shape whose scores
 * split at a tail that answers TPH_SCORE_HN_SET (tephra/plugin.h: the tail's score of a node is
 * a function of the hypernodes holding it) keeps, per set of nodes held by the same
 * hypernodes, its members in the order of their head sums, and per set the best member for
 * the tail's current score of the set. A placement moves the tail of every set (the cluster
 * top's aggregates enter each one), so the shape scores the tail once per set and ranks the
 * sets, instead of scoring every node and rebuilding the tournament over the positions. The
 * root of the shape's tournament (win[1]) is then the best set's best node, the same choice
 * as the tournament over every position would make, bit for bit: a set's candidates are the
 * members whose head sum lies within the rounding error of the best, each summed exactly as
 * tph_score_nodes sums it. When the tail's plugin bounds its scores by a part kept per node
 * and a part common to the call (tph_score_hn_bound_fn), only the sets whose estimate lies
 * within the rounding margin of the best are scored and ranked. */
#ifndef TPH_ALLOCATE_HN_RANK_H
#define TPH_ALLOCATE_HN_RANK_H

#include "allocate_fast.h"

/* After build() scored every feasible position and built the tournament: rank the shape per
 * hypernode set when it qualifies (its tail answers TPH_SCORE_HN_SET for the task, the sets
 * are few and small, its head sums are kept in its parts: LOCAL, or ANCHORED without a split),
 * overriding the tournament's root; else leave the shape as it is. An ANCHORED shape is built
 * with its groups due (their sums zero), so it is ranked first, and again whole, after each
 * group's scoring (af_rescore): decide() reads the root only once its group is scored. */
void af_hn_build(alloc_fast *f, af_shape *sh, tph_idx task);
/* A ranked shape after the touched positions f->plist[0..k) were evaluated again (verdicts,
 * groups, and head and tail of the feasible ones): the sets' tails scored again and the sets
 * ranked. TPH_OK, or TPH_DECLINED when the ranks were dropped (the task's tail no longer
 * answers so, or a score is not finite): the caller then scores every position. */
int af_hn_update(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t k);
/* The shape's ranks freed (af_shape_release: the caller accounts for sh->bytes). */
void af_hn_free(af_shape *sh);
/* The sets of the ready nodes, made on the first ranked shape; freed with the path. */
void af_hn_sets_free(alloc_fast *f);

#endif
