/* Network topology as plugins read it: the session's hypernode tree (Volcano's HyperNodes,
 * RealNodesSet/List, HyperNodesSetByTier and the implicit cluster-top hypernode), the jobs'
 * network topologies after tier names are resolved, and the subjob partition (Volcano's
 * SubJobInfo). The kernel builds it at session open, before any plugin opens; tph_view_of(s)->topo
 * reaches it. Read-only for plugins, like every view (tephra/columns.h); the columns marked
 * mutable change as actions place tasks.
 *
 * Index spaces. Hypernodes are 0..n-1: the snapshot's hyperNodes in snapshot order, then the
 * cluster top (index n - 1, one tier above the highest declared tier and at least tier 1,
 * holding every ready node). Only READY nodes belong to hypernodes. Lists of hypernodes are in
 * ascending index order and lists of nodes in snapshot order, so "the first of a list" is the
 * spec's tie-break wherever Volcano iterates a Go map. Subjobs have session-wide indices. */
#ifndef TEPHRA_TOPOLOGY_H
#define TEPHRA_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "tephra/columns.h"
#include "tephra/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

/* Volcano's framework.ClusterTopHyperNode. */
#define TPH_HN_TOP_NAME "<cluster-top-hypernode>"

typedef struct tph_subjobs {
	uint32_t n;
	uint32_t *job_off; /* [jobs + 1] */
	tph_idx *job;      /* [n] */
	/* The policy (index into the job's meta->subgroups) or TPH_NOIDX for the default subjob;
	 * the policy is also the subjob's GID (the default's GID is the job's own). */
	uint32_t *policy;
	int32_t *min_available;
	int64_t *match_index; /* Atoi of the first match value, else 0 */
	const char **uid;     /* "<job uid>/<policy>-<values joined by '-'>"; the job's uid for the
	                         default, or NULL there: read it through tph_subjob_uid */
	int32_t *priority;    /* the highest task priority, at least 0 */
	/* Topology after adjustNetworkTopologySpec: topo_has = WithNetworkTopology, topo_tier =
	 * the highest allowed tier in hard mode (IsHardTopologyMode), else -1. */
	uint8_t *topo_has;
	int32_t *topo_tier;
	/* Mutable, session thread: AllocatedHyperNode (recovered at open; allocate updates it) and
	 * NominatedHyperNode (gang preempt/reclaim); TPH_NOIDX for "". */
	tph_idx *hn;
	tph_idx *nominated;
	uint32_t *task_off; /* [n + 1]: tasks of subjob k are task[task_off[k] .. task_off[k+1]) */
	tph_idx *task;      /* in the job's task order (the job store's own list when no job has
	                       policies: never written) */
	tph_idx *of_task;   /* [tasks]: the subjob of each task; TPH_NOIDX when it has no job.
	                       NULL when no job has policies: read it through tph_task_subjob */
	/* Mutable (the task-move hook): tasks per status [k * TPH_TS_COUNT + status], and pending
	 * best-effort tasks. count is NULL when no job has policies (each subjob's counts are then
	 * its job's, which the session keeps): read it through tph_subjob_counts. */
	uint32_t *count;
	uint32_t *be_pending;
	/* Mutable (the task-move hook): how many times a task of subjob k changed node, and the
	 * task of the last change (TPH_NOIDX before any). A reader that keeps something per task
	 * of k, read when moves[k] was m, has only last_moved[k] to read again when moves[k] is
	 * m + 1, and nothing when it is still m. */
	uint32_t *moves;
	tph_idx *last_moved;
} tph_subjobs;

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
	 * updated by tph_topo_task_moved() whenever a task changes status or node. Made on first
	 * ask: NULL, and not kept, until tph_hn_aggregates() is called (most sessions have no
	 * reader of them); every reader calls it first. */
	uint32_t ndim;
	int64_t *alloc, *idle, *used, *releasing, *pipelined;
	/* Mutable (the task-move hook), made with the aggregates: how many times a task's request
	 * was added to or taken from a node of h (and so from h's aggregates) since they were made
	 * [n]. A reader that keeps something computed from h's nodes' idle, used, releasing and
	 * pipelined when moves[h] was m may reuse it while moves[h] is still m. */
	uint32_t *moves;
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
	 * the task's subjob is being placed in, set before its nodes are scored). TPH_NOIDX: "".
	 * task_job_hn is NULL until the hypernode path first places a task (TPH_NOIDX for every
	 * task until then): read it through tph_task_job_hn. */
	tph_idx *job_hn;
	tph_idx *task_job_hn;
	double *scores; /* ep_topology.c's per-call scratch (t.n), allocated on first use */
} tph_topo;

/* ---- tree queries (hypernode_query.c) ---- */

/* Make the tree's aggregates and hypernode move counters (alloc, idle, used, releasing,
 * pipelined, moves) on the first call, from the node columns as they stand, and keep them
 * current from then on: they hold what they would had they been kept since session open. On
 * the session's thread only (a plugin's open or handler, an action), before reading them.
 * TPH_OK, or TPH_ENOMEM (they stay NULL). */
int tph_hn_aggregates(tph_session *s);

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

/* ---- jobs ---- */

/* TaskInfo.JobAllocatedHyperNode: TPH_NOIDX for "". */
static inline tph_idx tph_task_job_hn(const tph_session *s, tph_idx task)
{
	const tph_idx *v = tph_view_of(s)->topo->task_job_hn;
	return v ? v[task] : TPH_NOIDX;
}
/* JobInfo.IsHardTopologyMode: the highest allowed tier, or -1. */
static inline int32_t tph_topo_job_tier(const tph_session *s, tph_idx job)
{
	return tph_view_of(s)->topo->job_tier[job];
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

/* ---- subjobs ---- */

/* The session's subjobs. */
const tph_subjobs *tph_subjobs_of(const tph_session *s);
/* The subjob of a task (JobInfo.TaskToSubJob), TPH_NOIDX when the task has no job. */
tph_idx tph_task_subjob(const tph_session *s, tph_idx task);
/* The subjobs of a job: *first and the count. */
uint32_t tph_job_subjobs(const tph_session *s, tph_idx job, tph_idx *first);
/* The job's default subjob (JobInfo.DefaultSubJobID: no policy took its tasks), or TPH_NOIDX
 * when it has none. */
tph_idx tph_job_default_subjob(const tph_session *s, tph_idx job);
/* JobInfo.ContainsSubJobPolicy: the podgroup declares at least one subGroupPolicy. */
bool tph_job_has_subjob_policy(const tph_session *s, tph_idx job);

/* The subjob's tasks per status, [TPH_TS_COUNT] (its job's own counts when no job has
 * policies). */
const uint32_t *tph_subjob_counts(const tph_session *s, tph_idx sj);
/* SubJobInfo.UID. */
const char *tph_subjob_uid(const tph_session *s, tph_idx sj);
/* SubJobInfo.ReadyTaskNum (Allocated, Binding, Bound, Running, Succeeded). */
uint32_t tph_subjob_ready_num(const tph_session *s, tph_idx sj);
/* SubJobInfo.IsReady / IsPipelined (gang's SubJobReady / SubJobPipelined votes). */
bool tph_subjob_is_ready(const tph_session *s, tph_idx sj);
bool tph_subjob_is_pipelined(const tph_session *s, tph_idx sj);
/* SubJobInfo.AllocatedTaskNum. */
uint32_t tph_subjob_allocated_num(const tph_session *s, tph_idx sj);
/* SubJobInfo.GetMinResources: the requests of its Pending tasks summed into row[0..ndim), pods
 * left at 0 (Volcano's requests carry none). */
void tph_subjob_min_resources(const tph_session *s, tph_idx sj, int64_t *row);
/* JobInfo.CheckSubJobValid: every policy has at least minSubGroups subjobs. */
bool tph_job_subjobs_valid(const tph_session *s, tph_idx job);
/* JobInfo.CheckSubJobReady / CheckSubJobPipelined: every policy with minSubGroups > 0 has
 * that many ready (pipelined) subjobs. */
bool tph_job_subjobs_ready(const tph_session *s, tph_idx job);
bool tph_job_subjobs_pipelined(const tph_session *s, tph_idx job);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
