/* Network topology of a session: the hypernode tree Volcano's session builds (HyperNodes,
 * RealNodesSet/RealNodesList, HyperNodesSetByTier, HyperNodesTiers and the implicit
 * "<cluster-top-hypernode>"), per-hypernode resource aggregates kept current as tasks move,
 * every job's network topology after tier names are translated and soft mode is made hard
 * (Session.adjustNetworkTopologySpec), the allocated hypernodes recovered from running pods,
 * and the subjob partition (subjob.h).
 *
 * tph_topo_open() builds it once at session open, after the session's columns and before any
 * plugin opens, so plugins and actions see what Volcano's plugins see in OnSessionOpen.
 *
 * Index spaces. Hypernodes are 0..n-1: the snapshot's hyperNodes in snapshot order, then the
 * cluster top (index n - 1, always present, one tier above the highest declared tier and at
 * least tier 1, containing every node of the session). Nodes are the snapshot's node indices.
 * Only READY nodes belong to hypernodes: Volcano's session holds no other node. Every list of
 * hypernodes below is in ascending index order and every list of nodes in snapshot order, so
 * "the first of a list" is the spec's tie-break wherever Volcano iterates a Go map.
 *
 * Threads: everything here is written on the session's thread only (open, the task-move hook,
 * the setters). Per-node callbacks may read it concurrently between writes.
 *
 * The allocate action's hypernode path (Volcano's allocate.go), in this API:
 * - Skip a job when !t.ready && tph_topo_job_contains_topology(). It takes allocateForJob when
 *   tph_topo_job_contains_hard() || tph_job_has_subjob_policy(), else the flat path over its
 *   tph_job_default_subjob()'s pending tasks.
 * - organizeJobWorksheet: the subjobs of tph_job_subjobs(); ready ones (tph_subjob_ready in
 *   ep.h) count per GID (the policy index); the others, sorted by tph_subjob_order, are
 *   "required" while their policy's count is below meta->subgroups[p].min_subgroups.
 * - allocateForJob: tph_hn_gradient_for_job(s, job, t.top, TPH_PURPOSE_ALLOCATE, &g) (room
 *   from tph_hn_gradient_init); for each group, each hypernode in order is a dry run.
 * - allocateForSubJob(sj, hn_for_job): tph_hn_gradient_for_subjob(s, sj, hn_for_job, ...);
 *   each candidate h gets allocateResourcesForTasks over tph_hn_nodes(&t, h) (snapshot order);
 *   the successful candidates are scored with tph_hn_order() and chosen by tph_hn_best(); then
 *   sj.hn[sj] = tph_hn_lca(&t, sj.hn[sj], best).
 * - allocateResourcesForTasks: `placing` starts at sj.hn[sj]; when sj.topo_has[sj], set
 *   task_job_hn[task] = placing before scoring the task's nodes and, once it is placed,
 *   placing = tph_hn_extend(&t, placing, node).
 * - Recorder: save/restore sj.hn of the worksheet's subjobs around each job-level dry run;
 *   on commit job_hn[job] = LCA(job_hn[job], hn_for_job), each decided subjob's
 *   sj.hn = LCA(sj.hn, decision) and sj.nominated = TPH_NOIDX.
 * - Pruning: the live aggregates bound what a candidate's nodes hold: when no node has a
 *   negative future idle, a candidate whose summed future idle is below a task's request
 *   holds no node that fits it (its fit errors must still be recorded as Volcano would). */
#ifndef TPH_HYPERNODE_H
#define TPH_HYPERNODE_H

#include <stdbool.h>
#include <stdint.h>

#include "session/session_int.h"
#include "subjob.h"
#include "tephra/topology.h"

/* ---- lifecycle (session.c, statement.c) ---- */

/* Build s->topo in the session arena: the tree, aggregates, subjobs, job topologies and the
 * recovered allocated hypernodes. Called by session open before the plugins open. */
int tph_topo_open(tph_session *s);
/* The steps of tph_topo_open (hypernode.c, hypernode_agg.c): members, links and the node
 * lists; tiers, tier names and lowest-tier hypernodes. The aggregates from the node columns
 * (tph_hn_agg_build) wait for tph_hn_aggregates(). */
int tph_hn_tree_build(tph_session *s, tph_hn_tree *t);
int tph_hn_tiers_build(tph_session *s, tph_hn_tree *t);
int tph_hn_agg_build(tph_session *s, tph_hn_tree *t);
/* The hook tph_task_move() calls after it changed a task's status and node: keeps the
 * aggregates (once made) and the subjob counters current. No-op before tph_topo_open(). */
void tph_topo_task_moved(tph_session *s, tph_idx task, uint8_t old_status, tph_idx old_node);

/* Make tph_topo.task_job_hn (every task TPH_NOIDX) if not yet made, before the first write:
 * a session whose jobs take no hypernode path never writes it. TPH_OK or TPH_ENOMEM. */
int tph_topo_task_hn_make(tph_session *s);

/* The session's topology (NULL only if the session failed to open). */
static inline tph_topo *tph_topo_of(const tph_session *s)
{
	return s->topo;
}

/* ---- extension points (ep_topology.c): Volcano's session_plugins.go rules ---- */

/* HyperNodeGradientForJobFn: the first registration (tier order) fills `out`; with none, one
 * gradient holding `hn`. `out` has room for t.n entries and groups. */
void tph_hn_gradient_for_job(tph_session *s, tph_idx job, tph_idx hn, int purpose,
                             tph_hn_gradient *out);
/* HyperNodeGradientForSubJobFn, the same over a subjob. */
void tph_hn_gradient_for_subjob(tph_session *s, tph_idx subjob, tph_idx hn, int purpose,
                                tph_hn_gradient *out);
/* HyperNodeOrderMapFn + PrioritizeHyperNodes: total_out[i] = the sum over registrations (tier
 * order) of each plugin's score of hns[i] for `subjob`; 0 with none. */
void tph_hn_order(tph_session *s, tph_idx subjob, const tph_idx *hns, uint32_t n,
                  double *total_out);
/* total_out[i] = what tph_hn_order(s, subjob, &hns[i], 1, ...) gives, for each i in order: a
 * score of each hypernode alone (no tie among candidates), without a call's set-up each. */
void tph_hn_order_each(tph_session *s, tph_idx subjob, const tph_idx *hns, uint32_t n,
                       double *total_out);
/* SelectBestHyperNodeAndScore: the highest total, the first in `hns` on a tie (Volcano picks
 * at random); TPH_NOIDX when n == 0. *score_out (may be NULL) gets its total. */
tph_idx tph_hn_best(const tph_idx *hns, const double *totals, uint32_t n, double *score_out);

#endif
