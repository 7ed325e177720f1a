/* The topology plugin's private layout (plugins/kai/topology*.c): one domain tree per Topology
 * object, built once at open from the snapshot's per-level domains (topology_tree.c), and the
 * per-call work of SubsetNodes over it (topology_domains.c). Not part of the public API. */
#ifndef TPH_PLUGINS_KAI_TOPOLOGY_INT_H
#define TPH_PLUGINS_KAI_TOPOLOGY_INT_H

#include "tephra/kai.h"

/* A Topology's domains as KAI names them: a domain at depth d (1 = the highest level) is one
 * path of label values through levels 1..d, so "spine1" under two racks is two domains; depth 0
 * is the root, over every node of the topology. Domains are numbered depth by depth, and within
 * a depth by parent, then by label value, so a domain's children (in KAI's ID order) are a
 * contiguous range of ids, and its nodes (sorted the same way) a contiguous range of `nodes`. */
typedef struct topo_tree {
	uint32_t levels;             /* L: depths 0 .. L */
	uint32_t n_dom;              /* the root is domain 0 */
	uint32_t *depth_first;       /* [L + 2]: depth d's domains are [depth_first[d], [d + 1]) */
	uint32_t *depth;             /* [dom] */
	uint32_t *parent;            /* [dom]; the root's is 0 */
	uint32_t *kid_lo, *kid_hi;   /* [dom] its children: kids[kid_lo .. kid_hi) */
	uint32_t *kids;              /* [dom] children ids, reordered by each call's sort */
	uint32_t *node_lo, *node_hi; /* [dom] its nodes: nodes[node_lo .. node_hi) */
	uint32_t *nodes;             /* the topology's nodes, by path */
	int32_t *at;        /* [(d - 1) * view nodes + node] a member's depth-d domain, d >= 1 */
	uint8_t *member;    /* [node] in the pool with every level's label */
	const char **value; /* [dom] its level's label value ("" for the root) */
	uint32_t max_per_depth; /* the most domains of one depth */
} topo_tree;

int topo_trees_build(const tph_kai_view *v, topo_tree *trees);
void topo_trees_free(topo_tree *trees, uint32_t n);

/* Node n's domain at depth d (n a member). */
static inline uint32_t topo_at(const topo_tree *t, uint32_t nn, uint32_t d, uint32_t n)
{
	return d ? (uint32_t)t->at[(size_t)(d - 1) * nn + n] : 0;
}

/* Scratch of one SubsetNodes call, sized once at open for the largest tree. */
typedef struct topo_scratch {
	double *free;            /* [dom * TPH_KAI_DIMS] idle + releasing of the call's subtree */
	int64_t *pods;           /* [dom] pods of the call a subtree domain can hold */
	uint32_t *lo, *hi;       /* [depth] the subtree's domains there: [lo, hi) */
	uint32_t *bfs;           /* the subtree depth by depth, in sorted order */
	uint32_t *bfs_first;     /* [L + 2]: depth lca + i is bfs[bfs_first[i] .. [i + 1]) */
	struct topo_pair *pairs; /* [dom] one domain's children with their ratios, to sort */
	uint8_t *active;  /* [dom] a required-depth domain holding an active pod of the call */
	uint32_t *marked; /* [task] the domains marked active, to clear */
	uint8_t *pod_set; /* [sub-group] a pod set of the call */
	uint8_t *in_set;  /* [node] a member of the call's node set */
	uint32_t *valid;  /* [node] those nodes */
	uint32_t *buf;    /* [node] one node set */
} topo_scratch;

/* One call: its tree, tasks and, once found, the lowest common domain of its nodes. */
typedef struct topo_call {
	const tph_kai_session *s;
	const topo_tree *t;
	topo_scratch *x;
	uint32_t nn;              /* the view's node count */
	uint32_t n_valid;         /* x->valid's */
	uint32_t n_tasks;         /* KAI's tasksCount */
	double sum[TPH_KAI_DIMS]; /* the tasks' requests together */
	bool by_pods;             /* KAI's representor-pod accounting: every task GPU or none */
	uint32_t lca, lca_depth;
} topo_call;

int topo_scratch_alloc(topo_scratch *x, const tph_kai_view *v, uint32_t max_dom, uint32_t levels);
void topo_scratch_free(topo_scratch *x);

/* KAI's lowestCommonDomainID over the call's valid nodes, going no deeper than `stop`. */
void topo_lca(topo_call *c, uint32_t stop);
/* Free resources and (with representor accounting) pods each domain of the LCA's subtree can
 * hold for the tasks. */
void topo_account(topo_call *c, const uint32_t *tasks);
/* KAI's checkJobDomainFit: the subtree's pod count, else the dominant-resource ratio <= 1
 * (a domain outside the subtree has nothing free: KAI clears the whole tree per call). */
bool topo_fits(const topo_call *c, uint32_t dom);
/* Sort the subtree's children by KAI's bin-packing order down to depth `deepest`, and list the
 * subtree depth by depth in that order (x->bfs). */
void topo_sort(topo_call *c, uint32_t deepest);

#endif
