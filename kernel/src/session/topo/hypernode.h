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

/* Volcano's framework.ClusterTopHyperNode. */
#define TPH_HN_TOP_NAME "<cluster-top-hypernode>"

/* The tree and its aggregates. Immutable after open except the aggregate columns. */
typedef struct tph_hn_tree {
	uint32_t n;  /* hypernodes, the cluster top included */
	tph_idx top; /* == n - 1 */
	/* HyperNodesReadyToSchedule: false when the members do not form a tree (a hypernode claimed
	 * by two parents, or a cycle the loader did not reject). Volcano then skips every job with
	 * a network topology in allocate and recovers no allocated hypernode. */
	bool ready;
	const tph_sid *name;      /* [n]; the top's is TPH_SID_NONE: use tph_hn_name() */
	const int32_t *tier;      /* [n] */
	const tph_sid *tier_name; /* [n]; TPH_SID_NONE: none */
	tph_idx *parent;          /* [n]; TPH_NOIDX for the top only */
	uint32_t *depth;          /* [n]; edges from the top */
	uint32_t *child_off; /* [n + 1]: children of h are child[child_off[h] .. child_off[h+1]) */
	tph_idx *child;
	/* Pre-order of the tree from the top: the subtree of h (h first) is
	 * preorder[pre[h] .. pre[h] + size[h]). */
	tph_idx *preorder;
	uint32_t *pre, *size;
	/* RealNodesList: the nodes of h are node[node_off[h] .. node_off[h+1]), snapshot order. The
	 * count is h's leaf-node count (tph_hn_node_count). */
	uint32_t *node_off;
	tph_idx *node;
	/* The reverse: hypernodes holding node i are of[of_off[i] .. of_off[i+1]) (ascending; empty
	 * for nodes that are not ready; the top's index, the largest, ends every other list). */
	uint32_t *of_off;
	tph_idx *of;
	/* util.FindHyperNodeForNode: a hypernode of the lowest tier in the session (tiers[0]) that
	 * holds the node, the first by index; TPH_NOIDX when none does. Volcano's "hypernode of a
	 * node" for soft-topology bookkeeping, node scores and bindsPerHyperNode. */
	tph_idx *lowest;
	/* HyperNodesTiers (ascending, the top's tier last) and HyperNodesSetByTier. */
	uint32_t n_tiers;
	int32_t *tiers;
	uint32_t *tier_off; /* [n_tiers + 1] */
	tph_idx *by_tier;   /* hypernodes of tiers[k]: by_tier[tier_off[k] .. tier_off[k+1]) */
	/* HyperNodeTierNameMap: tierName -> tier (on conflict the last hypernode by index wins). */
	uint32_t n_tier_names;
	tph_sid *tn_name;
	int32_t *tn_tier;
	/* Aggregates, columns [d * n + h] over the hypernode's nodes: allocatable (constant) and
	 * the live idle, used, releasing and pipelined (FutureIdle = idle + releasing - pipelined),
	 * updated by tph_topo_task_moved() whenever a task changes status or node. */
	uint32_t ndim;
	int64_t *alloc, *idle, *used, *releasing, *pipelined;
} tph_hn_tree;

/* The session's topology state (s->topo). */
typedef struct tph_topo {
	tph_hn_tree t;
	tph_subjobs sj;
	/* Jobs after adjustNetworkTopologySpec. job_has: WithNetworkTopology (the podgroup has a
	 * networkTopology). job_tier: the highest allowed tier when IsHardTopologyMode() holds
	 * (hard, soft made hard at the top's tier, or a tierName that resolved), else -1 (no
	 * topology, or hard with a tierName no hypernode carries). */
	uint8_t *job_has;
	int32_t *job_tier;
	/* Mutable, written by the allocate action (and read by plugins): JobInfo.AllocatedHyperNode
	 * per job (recovered at open) and TaskInfo.JobAllocatedHyperNode per task (the hypernode
	 * the task's subjob is being placed in, set before its nodes are scored). TPH_NOIDX: "". */
	tph_idx *job_hn;
	tph_idx *task_job_hn;
	double *scores; /* ep_topology.c's per-call scratch (t.n), allocated on first use */
} tph_topo;

/* ---- lifecycle (session.c, statement.c) ---- */

/* Build s->topo in the session arena: the tree, aggregates, subjobs, job topologies and the
 * recovered allocated hypernodes. Called by session open before the plugins open. */
int tph_topo_open(tph_session *s);
/* The steps of tph_topo_open (hypernode.c, hypernode_agg.c): members, links and the node
 * lists; tiers, tier names and lowest-tier hypernodes; aggregates from the node columns. */
int tph_hn_tree_build(tph_session *s, tph_hn_tree *t);
int tph_hn_tiers_build(tph_session *s, tph_hn_tree *t);
int tph_hn_agg_build(tph_session *s, tph_hn_tree *t);
/* The hook tph_task_move() calls after it changed a task's status and node: keeps the
 * aggregates and the subjob counters current. No-op before tph_topo_open(). */
void tph_topo_task_moved(tph_session *s, tph_idx task, uint8_t old_status, tph_idx old_node);

/* The session's topology (NULL only if the session failed to open). */
static inline tph_topo *tph_topo_of(const tph_session *s)
{
	return s->topo;
}

/* ---- tree queries (hypernode_query.c) ---- */

/* The hypernode's name ("<cluster-top-hypernode>" for the top). */
const char *tph_hn_name(const tph_session *s, tph_idx hn);
/* The hypernode named `name`, or TPH_NOIDX. Linear: not for hot paths. */
tph_idx tph_hn_find(const tph_session *s, const char *name);

static inline uint32_t tph_hn_node_count(const tph_hn_tree *t, tph_idx hn)
{
	return t->node_off[hn + 1] - t->node_off[hn];
}
/* The nodes of `hn` in snapshot order (RealNodesList[hn]); returns the count. */
static inline uint32_t tph_hn_nodes(const tph_hn_tree *t, tph_idx hn, const tph_idx **out)
{
	*out = t->node + t->node_off[hn];
	return t->node_off[hn + 1] - t->node_off[hn];
}
/* Whether `node` belongs to `hn` (RealNodesSet[hn].Has). O(depth). */
bool tph_hn_has_node(const tph_hn_tree *t, tph_idx hn, tph_idx node);
/* The subtree of `root` (root first, then every descendant, pre-order); returns its size. */
static inline uint32_t tph_hn_subtree(const tph_hn_tree *t, tph_idx root, const tph_idx **out)
{
	*out = t->preorder + t->pre[root];
	return t->size[root];
}
/* Whether `h` is `root` or one of its descendants. O(1). */
static inline bool tph_hn_in_subtree(const tph_hn_tree *t, tph_idx root, tph_idx h)
{
	return t->pre[h] - t->pre[root] < t->size[root];
}
/* HyperNodeInfoMap.GetLCAHyperNode: the least common ancestor; TPH_NOIDX stands for "" (the
 * LCA of "" and x is x). */
tph_idx tph_hn_lca(const tph_hn_tree *t, tph_idx a, tph_idx b);
/* The hypernode of the lowest tier holding every node of nodes[0..n) (the first by index on
 * a tie), as Session.recoverAllocatedHyperNode finds it; TPH_NOIDX when n == 0 or a node is
 * in no hypernode (not ready, or TPH_NOIDX). */
tph_idx tph_hn_lowest_holding(const tph_hn_tree *t, const tph_idx *nodes, uint32_t n);
/* The tier of a tierName (HyperNodeTierNameMap); false when no hypernode carries it. */
bool tph_hn_tier_of_name(const tph_hn_tree *t, tph_sid name, int32_t *tier);
/* allocate's getNewAllocatedHyperNode: LCA(lowest[node], allocated), or `allocated` when the
 * node has no lowest-tier hypernode. */
tph_idx tph_hn_extend(const tph_hn_tree *t, tph_idx allocated, tph_idx node);

/* ---- gradients (hypernode_query.c): the network-topology-aware rules ---- */

/* getSearchRoot: the root of the search for a (sub)job under `avail` given its allocated
 * hypernode (TPH_NOIDX: none) and highest allowed tier. TPH_NOIDX when there is none (the
 * allocated hypernode is above the tier, or the two subtrees are disjoint): no gradient. */
tph_idx tph_hn_search_root(const tph_hn_tree *t, tph_idx avail, int32_t highest_tier,
                           tph_idx allocated);
/* The (sub)job's hypernodes of `root`'s subtree (tier <= highest_tier, and `eligible[h]` set
 * when eligible is not NULL) grouped by tier in ascending order, index order inside a group
 * (hyperNodeGradientFn). `out` has room for t->n entries and groups. */
void tph_hn_gradient_build(const tph_hn_tree *t, tph_idx root, int32_t highest_tier,
                           const uint8_t *eligible, tph_hn_gradient *out);
/* Point g at session-arena arrays with room for every hypernode, empty (n = n_groups = 0). */
int tph_hn_gradient_init(tph_session *s, tph_hn_gradient *g);
/* reverseAndCapEvictionGradients: groups from the highest tier down, at most `cap` hypernodes
 * (the last entries of the group that crosses the cap). In place. */
void tph_hn_gradient_reverse_cap(tph_hn_gradient *g, uint32_t cap);
/* A gradient of one group holding `hn` (what Volcano returns when no plugin decides, or for a
 * (sub)job that is not in hard mode). */
void tph_hn_gradient_single(tph_hn_gradient *g, tph_idx hn);

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
/* SelectBestHyperNodeAndScore: the highest total, the first in `hns` on a tie (Volcano picks
 * at random); TPH_NOIDX when n == 0. *score_out (may be NULL) gets its total. */
tph_idx tph_hn_best(const tph_idx *hns, const double *totals, uint32_t n, double *score_out);

/* ---- jobs ---- */

/* JobInfo.IsHardTopologyMode: the highest allowed tier, or -1. */
static inline int32_t tph_topo_job_tier(const tph_session *s, tph_idx job)
{
	return s->topo->job_tier[job];
}
/* JobInfo.ContainsHardTopology: the job or one of its subjobs is in hard mode. */
bool tph_topo_job_contains_hard(const tph_session *s, tph_idx job);
/* JobInfo.ContainsNetworkTopology: the job or one of its subjobs has a network topology. */
bool tph_topo_job_contains_topology(const tph_session *s, tph_idx job);
/* Does `row` (a resource row of s->ndim) fit under `avail` (an aggregate laid out like the
 * tree's, [d * t->n + h]) at hypernode h, as Volcano's Resource.LessEqual(..., Zero) decides:
 * cpu and memory always, other dimensions only when the row asks for them, and pods against
 * the allocatable pods (Volcano's idle never loses pods: its task requests carry none). */
bool tph_hn_fits(const tph_session *s, const int64_t *row, const int64_t *avail, tph_idx h);

#endif
