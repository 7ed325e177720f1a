/* Unit tests for the session's hypernode tree (kernel/src/hypernode*.c) and subjobs
 * (subjob*.c): member kinds, the implicit cluster top, tier names, node sets and their order,
 * aggregates kept current through statements, LCA and recovery, gradients, job topologies
 * after soft -> hard, and the subjob partition with its counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "session/topo/hypernode.h"
#include "plugin_test_session.h"
#include "session/statement.h"

#define TREE                                                                                     \
	"queues: [{name: q1}]\n"                                                                 \
	"nodes:\n"                                                                               \
	"  - {name: n1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"                     \
	"  - {name: n2, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"                     \
	"  - {name: r1-n2, allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}\n"                  \
	"  - {name: n3, allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}\n"                     \
	"  - {name: r1-n1, allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}\n"                  \
	"  - {name: l1, allocatable: {cpu: '8', memory: 8Gi, pods: '10'}, labels: {rack: r9}}\n" \
	"  - {name: nr, allocatable: {cpu: '8', memory: 8Gi, pods: '10'}, ready: false}\n"       \
	"  - {name: orphan, allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n"                 \
	"hyperNodes:\n"                                                                          \
	"  - {name: leaf0, tier: 1, tierName: rack, members: [n1, n2]}\n"                        \
	"  - {name: leaf1, tier: 1, members: [{regex: '^r1-n[0-9]+$'}, n3]}\n"                   \
	"  - {name: leaf2, tier: 1, members: [{labels: {rack: r9}}, nr]}\n"                      \
	"  - {name: spine0, tier: 2, tierName: spine, members: [leaf0, leaf1]}\n"                \
	"  - {name: spine1, tier: 2, members: [leaf2]}\n"                                        \
	"  - {name: lone, tier: 3}\n"

#define CONF_NONE "conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: gang\n"

enum {
	LEAF0,
	LEAF1,
	LEAF2,
	SPINE0,
	SPINE1,
	LONE,
	TOP
};

static tph_idx node(const pts *p, const char *name)
{
	for (tph_idx n = 0; n < p->s->nodes.n; n++)
		if (!strcmp(tph_strtab_str(p->s->snap->strs, p->s->nodes.name[n]), name))
			return n;
	fail_msg("no node %s", name);
	return TPH_NOIDX;
}

static void expect_nodes(const pts *p, tph_idx hn, const char *const *names, uint32_t n)
{
	const tph_idx *got;
	assert_int_equal(tph_hn_nodes(&p->s->topo->t, hn, &got), n);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(got[i], node(p, names[i]));
}

static void test_members_and_top(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF_NONE TREE);
	const tph_hn_tree *t = &p.s->topo->t;
	assert_int_equal(t->n, 7);
	assert_int_equal(t->top, TOP);
	assert_true(t->ready);
	assert_string_equal(tph_hn_name(p.s, TOP), "<cluster-top-hypernode>");
	assert_int_equal(t->tier[TOP], 4); /* one above the highest declared tier */
	assert_int_equal(t->parent[LEAF0], SPINE0);
	assert_int_equal(t->parent[LEAF2], SPINE1);
	assert_int_equal(t->parent[SPINE0], TOP);
	assert_int_equal(t->parent[LONE], TOP);
	assert_int_equal(t->parent[TOP], TPH_NOIDX);
	/* regex and names together, in snapshot order; labels; a node that is not ready is out */
	expect_nodes(&p, LEAF1, (const char *[]){"r1-n2", "n3", "r1-n1"}, 3);
	expect_nodes(&p, LEAF2, (const char *[]){"l1"}, 1);
	expect_nodes(&p, SPINE0, (const char *[]){"n1", "n2", "r1-n2", "n3", "r1-n1"}, 5);
	expect_nodes(&p, LONE, NULL, 0);
	expect_nodes(&p, TOP, (const char *[]){"n1", "n2", "r1-n2", "n3", "r1-n1", "l1", "orphan"},
	             7);
	assert_int_equal(tph_hn_node_count(t, SPINE1), 1);
	assert_true(tph_hn_has_node(t, SPINE0, node(&p, "n3")));
	assert_false(tph_hn_has_node(t, SPINE1, node(&p, "nr")));
	/* the lowest-tier hypernode of a node */
	assert_int_equal(t->lowest[node(&p, "n2")], LEAF0);
	assert_int_equal(t->lowest[node(&p, "orphan")], TPH_NOIDX);
	assert_int_equal(t->lowest[node(&p, "nr")], TPH_NOIDX);
	/* the pre-order and subtrees */
	const tph_idx *sub;
	assert_int_equal(tph_hn_subtree(t, SPINE0, &sub), 3);
	assert_int_equal(sub[0], SPINE0);
	assert_true(tph_hn_in_subtree(t, SPINE0, LEAF1));
	assert_false(tph_hn_in_subtree(t, SPINE0, LEAF2));
	assert_true(tph_hn_in_subtree(t, TOP, LONE));
	assert_int_equal(tph_hn_find(p.s, "spine1"), SPINE1);
	pts_free(&p);
}

static void test_tiers_and_names(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF_NONE TREE);
	const tph_hn_tree *t = &p.s->topo->t;
	assert_int_equal(t->n_tiers, 4);
	for (int32_t i = 0; i < 4; i++)
		assert_int_equal(t->tiers[i], i + 1);
	assert_int_equal(t->tier_off[1] - t->tier_off[0], 3);
	assert_int_equal(t->by_tier[t->tier_off[1]], SPINE0);
	int32_t tier = -1;
	tph_sid rack = tph_strtab_find(p.s->snap->strs, "rack", 4);
	tph_sid spine = tph_strtab_find(p.s->snap->strs, "spine", 5);
	assert_true(tph_hn_tier_of_name(t, rack, &tier));
	assert_int_equal(tier, 1);
	assert_true(tph_hn_tier_of_name(t, spine, &tier));
	assert_int_equal(tier, 2);
	assert_false(tph_hn_tier_of_name(t, TPH_SID_EMPTY, &tier));
	pts_free(&p);
}

static void test_no_hypernodes(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF_NONE "queues: [{name: q1}]\n"
	                       "nodes:\n"
	                       "  - {name: a, allocatable: {cpu: '1', pods: '1'}}\n"
	                       "  - {name: b, allocatable: {cpu: '2', pods: '1'}, ready: false}\n"
	                       "  - {name: c, allocatable: {cpu: '4', pods: '1'}}\n"
	                       "pods:\n"
	                       "  - {name: r, namespace: c1, phase: Running, nodeName: c,"
	                       " requests: {cpu: '1'}}\n");
	const tph_hn_tree *t = &p.s->topo->t;
	assert_int_equal(t->n, 1);
	assert_int_equal(t->tier[0], 1); /* the top alone is tier 1 */
	/* the top holds the ready nodes, in snapshot order; each of them is in the top alone */
	static const char *const ready[] = {"a", "c"};
	expect_nodes(&p, 0, ready, 2);
	for (tph_idx i = 0; i < 3; i++) {
		bool on = i != node(&p, "b");
		assert_int_equal(t->of_off[i + 1] - t->of_off[i], on);
		if (on)
			assert_int_equal(t->of[t->of_off[i]], 0);
		assert_int_equal(t->lowest[i], on ? 0 : TPH_NOIDX);
		assert_int_equal(tph_hn_has_node(t, 0, i), on);
	}
	/* aggregates made late: the ready nodes' sums as they stand */
	assert_null(t->idle);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_evict(&st, pts_task(&p, "c1/r"), "test"), TPH_OK);
	assert_int_equal(tph_hn_aggregates(p.s), TPH_OK);
	assert_int_equal(t->alloc[(size_t)TPH_RES_CPU * t->n], 5000);
	assert_int_equal(t->idle[(size_t)TPH_RES_CPU * t->n], 4000);
	assert_int_equal(t->releasing[(size_t)TPH_RES_CPU * t->n], 1000);
	tph_stmt_discard(&st);
	assert_int_equal(t->releasing[(size_t)TPH_RES_CPU * t->n], 0);
	assert_int_equal(t->used[(size_t)TPH_RES_CPU * t->n], 1000);
	pts_free(&p);
}

static void test_lca_and_holding(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF_NONE TREE);
	const tph_hn_tree *t = &p.s->topo->t;
	assert_int_equal(tph_hn_lca(t, LEAF0, LEAF1), SPINE0);
	assert_int_equal(tph_hn_lca(t, LEAF0, LEAF2), TOP);
	assert_int_equal(tph_hn_lca(t, LEAF0, SPINE0), SPINE0);
	assert_int_equal(tph_hn_lca(t, TPH_NOIDX, LEAF2), LEAF2);
	assert_int_equal(tph_hn_lca(t, LONE, TPH_NOIDX), LONE);
	tph_idx a[] = {node(&p, "n1"), node(&p, "n2")};
	assert_int_equal(tph_hn_lowest_holding(t, a, 2), LEAF0);
	a[1] = node(&p, "n3");
	assert_int_equal(tph_hn_lowest_holding(t, a, 2), SPINE0);
	a[1] = node(&p, "orphan");
	assert_int_equal(tph_hn_lowest_holding(t, a, 2), TOP);
	a[1] = node(&p, "nr");
	assert_int_equal(tph_hn_lowest_holding(t, a, 2), TPH_NOIDX);
	assert_int_equal(tph_hn_lowest_holding(t, a, 0), TPH_NOIDX);
	assert_int_equal(tph_hn_extend(t, LEAF0, node(&p, "n3")), SPINE0);
	assert_int_equal(tph_hn_extend(t, LEAF0, node(&p, "orphan")), LEAF0);
	assert_int_equal(tph_hn_extend(t, TPH_NOIDX, node(&p, "l1")), LEAF2);
	pts_free(&p);
}

static int64_t cpu(const tph_hn_tree *t, const int64_t *col, tph_idx h)
{
	return col[(size_t)TPH_RES_CPU * t->n + h];
}

static void test_aggregates_follow_statements(void **state)
{
	(void)state;
	pts p;
	pts_open(
	    &p, CONF_NONE TREE
	    "pods:\n"
	    "  - {name: run, namespace: c1, phase: Running, nodeName: n3, requests: {cpu: '1'}}\n"
	    "  - {name: new, namespace: c1, requests: {cpu: '1500m', memory: 1Gi}}\n");
	const tph_hn_tree *t = &p.s->topo->t;
	assert_null(t->idle); /* not made before a reader asks */
	assert_int_equal(tph_hn_aggregates(p.s), TPH_OK);
	assert_int_equal(cpu(t, t->alloc, SPINE0), 16000);
	assert_int_equal(cpu(t, t->used, LEAF1), 1000);
	assert_int_equal(cpu(t, t->idle, SPINE0), 15000);
	assert_int_equal(cpu(t, t->alloc, TOP), 25000);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	tph_idx nw = pts_task(&p, "c1/new"), run = pts_task(&p, "c1/run");
	assert_int_equal(tph_stmt_allocate(&st, nw, node(&p, "n1")), TPH_OK);
	assert_int_equal(cpu(t, t->idle, LEAF0), 2500);
	assert_int_equal(cpu(t, t->idle, SPINE0), 13500);
	assert_int_equal(cpu(t, t->idle, TOP), 22500);
	assert_int_equal(cpu(t, t->idle, LEAF1), 11000);
	assert_int_equal(tph_stmt_evict(&st, run, "test"), TPH_OK);
	assert_int_equal(cpu(t, t->releasing, LEAF1), 1000);
	tph_stmt_discard(&st);
	assert_int_equal(cpu(t, t->idle, LEAF0), 4000);
	assert_int_equal(cpu(t, t->releasing, LEAF1), 0);
	assert_int_equal(cpu(t, t->used, TOP), 1000);
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_pipeline(&st, nw, node(&p, "l1")), TPH_OK);
	assert_int_equal(cpu(t, t->pipelined, SPINE1), 1500);
	assert_int_equal(cpu(t, t->idle, SPINE1), 8000);
	tph_stmt_discard(&st);
	assert_int_equal(cpu(t, t->pipelined, SPINE1), 0);
	pts_free(&p);
}

#define LATE                                                                                       \
	CONF_NONE TREE                                                                             \
	    "pods:\n"                                                                              \
	    "  - {name: run, namespace: c1, phase: Running, nodeName: n3, requests: {cpu: '1'}}\n" \
	    "  - {name: old, namespace: c1, phase: Running, nodeName: l1, requests: {cpu: '2'}}\n" \
	    "  - {name: new, namespace: c1, requests: {cpu: '1500m', memory: 1Gi}}\n"              \
	    "  - {name: two, namespace: c1, requests: {cpu: '1', memory: 2Gi}}\n"

static void same_aggregates(const pts *a, const pts *b)
{
	const tph_hn_tree *x = &a->s->topo->t, *y = &b->s->topo->t;
	size_t cells = (size_t)x->ndim * x->n;
	assert_int_equal(cells, (size_t)y->ndim * y->n);
	assert_memory_equal(x->alloc, y->alloc, cells * sizeof *x->alloc);
	assert_memory_equal(x->idle, y->idle, cells * sizeof *x->idle);
	assert_memory_equal(x->used, y->used, cells * sizeof *x->used);
	assert_memory_equal(x->releasing, y->releasing, cells * sizeof *x->releasing);
	assert_memory_equal(x->pipelined, y->pipelined, cells * sizeof *x->pipelined);
}

/* One session's moves: placements, an eviction, a pipeline, a commit and a discard. */
static void late_moves(pts *p, int round)
{
	tph_statement st;
	tph_stmt_init(&st, p->s);
	if (round == 0) {
		assert_int_equal(tph_stmt_allocate(&st, pts_task(p, "c1/new"), node(p, "n1")),
		                 TPH_OK);
		assert_int_equal(tph_stmt_evict(&st, pts_task(p, "c1/run"), "test"), TPH_OK);
		assert_int_equal(tph_stmt_commit(&st), TPH_OK);
		tph_stmt_init(&st, p->s);
		assert_int_equal(tph_stmt_pipeline(&st, pts_task(p, "c1/two"), node(p, "l1")),
		                 TPH_OK);
		tph_stmt_discard(&st);
		return;
	}
	assert_int_equal(tph_stmt_pipeline(&st, pts_task(p, "c1/two"), node(p, "n2")), TPH_OK);
	assert_int_equal(tph_stmt_evict(&st, pts_task(p, "c1/old"), "test"), TPH_OK);
	assert_int_equal(tph_stmt_commit(&st), TPH_OK);
}

/* Aggregates first asked for after tasks moved hold what aggregates kept since open hold, and
 * are kept from then on, their move counters with them. */
static void test_aggregates_made_late(void **state)
{
	(void)state;
	pts a, b;
	pts_open(&a, LATE);
	pts_open(&b, LATE);
	assert_int_equal(tph_hn_aggregates(a.s), TPH_OK);
	late_moves(&a, 0);
	late_moves(&b, 0);
	assert_null(b.s->topo->t.idle);
	assert_null(b.s->topo->t.moves);
	assert_int_equal(tph_hn_aggregates(b.s), TPH_OK);
	same_aggregates(&a, &b);
	uint32_t ma[TOP + 1], mb[TOP + 1];
	memcpy(ma, a.s->topo->t.moves, sizeof ma);
	memcpy(mb, b.s->topo->t.moves, sizeof mb);
	late_moves(&a, 1);
	late_moves(&b, 1);
	same_aggregates(&a, &b);
	for (uint32_t h = 0; h <= TOP; h++)
		assert_int_equal(a.s->topo->t.moves[h] - ma[h], b.s->topo->t.moves[h] - mb[h]);
	assert_int_not_equal(b.s->topo->t.moves[LEAF0], mb[LEAF0]); /* two on n2 */
	assert_int_equal(b.s->topo->t.moves[LEAF1], mb[LEAF1]);     /* no move there */
	pts_free(&a);
	pts_free(&b);
}

/* A node in two hypernodes counts once in their common ancestors, as a set union does. */
static void test_overlapping_members(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF_NONE "queues: [{name: q1}]\n"
	                       "nodes:\n"
	                       "  - {name: a, allocatable: {cpu: '1', pods: '1'}}\n"
	                       "  - {name: b, allocatable: {cpu: '2', pods: '1'}}\n"
	                       "hyperNodes:\n"
	                       "  - {name: x, tier: 1, members: [a, b]}\n"
	                       "  - {name: y, tier: 1, members: [{regex: '^b$'}]}\n"
	                       "  - {name: z, tier: 2, members: [x, y]}\n");
	const tph_hn_tree *t = &p.s->topo->t;
	assert_int_equal(tph_hn_aggregates(p.s), TPH_OK);
	assert_int_equal(cpu(t, t->alloc, 0), 3000);
	assert_int_equal(cpu(t, t->alloc, 1), 2000);
	assert_int_equal(cpu(t, t->alloc, 2), 3000);
	assert_int_equal(cpu(t, t->alloc, 3), 3000);
	assert_int_equal(t->lowest[1], 0); /* the first by index of the lowest tier */
	tph_idx both[] = {0, 1};
	assert_int_equal(tph_hn_lowest_holding(t, both, 2), 0);
	pts_free(&p);
}

/* ---- gradients ---- */

static void expect_gradient(const tph_hn_gradient *g, const char *want)
{
	char got[256] = "";
	size_t len = 0;
	for (uint32_t k = 0, i = 0; k < g->n_groups; k++) {
		len += (size_t)snprintf(got + len, sizeof got - len, "[");
		for (; i < g->end[k]; i++)
			len += (size_t)snprintf(got + len, sizeof got - len, "%s%u",
			                        i > (k ? g->end[k - 1] : 0) ? " " : "", g->hn[i]);
		len += (size_t)snprintf(got + len, sizeof got - len, "]");
	}
	assert_string_equal(got, want);
}

static void test_gradient_build(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF_NONE TREE);
	const tph_hn_tree *t = &p.s->topo->t;
	tph_idx hn[8];
	uint32_t end[8];
	tph_hn_gradient g = {hn, end, 0, 0};
	tph_hn_gradient_build(t, TOP, 1, NULL, &g);
	expect_gradient(&g, "[0 1 2]");
	tph_hn_gradient_build(t, TOP, 4, NULL, &g);
	expect_gradient(&g, "[0 1 2][3 4][5][6]");
	uint8_t ok[7] = {1, 0, 1, 1, 0, 0, 1};
	tph_hn_gradient_build(t, TOP, 3, ok, &g);
	expect_gradient(&g, "[0 2][3]");
	tph_hn_gradient_build(t, SPINE0, 2, NULL, &g);
	expect_gradient(&g, "[0 1][3]");
	tph_hn_gradient_build(t, TOP, 0, NULL, &g);
	expect_gradient(&g, "");
	/* eviction: widest first, at most `cap` hypernodes, the last of a group that crosses */
	tph_hn_gradient_build(t, TOP, 4, NULL, &g);
	tph_hn_gradient_reverse_cap(&g, 4);
	expect_gradient(&g, "[6][5][3 4]");
	tph_hn_gradient_build(t, TOP, 4, NULL, &g);
	tph_hn_gradient_reverse_cap(&g, 5);
	expect_gradient(&g, "[6][5][3 4][2]");
	tph_hn_gradient_build(t, TOP, 4, NULL, &g);
	tph_hn_gradient_reverse_cap(&g, 50);
	expect_gradient(&g, "[6][5][3 4][0 1 2]");
	tph_hn_gradient_single(&g, LEAF2);
	expect_gradient(&g, "[2]");
	pts_free(&p);
}

static void test_search_root(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF_NONE TREE);
	const tph_hn_tree *t = &p.s->topo->t;
	assert_int_equal(tph_hn_search_root(t, TOP, 1, TPH_NOIDX), TOP);
	assert_int_equal(tph_hn_search_root(t, TOP, 2, LEAF0), SPINE0);
	assert_int_equal(tph_hn_search_root(t, TOP, 1, LEAF0), LEAF0);
	assert_int_equal(tph_hn_search_root(t, TOP, 0, LEAF0), TPH_NOIDX);   /* above the limit */
	assert_int_equal(tph_hn_search_root(t, LEAF0, 2, LEAF1), LEAF0);     /* inside the limit */
	assert_int_equal(tph_hn_search_root(t, LEAF2, 2, LEAF0), TPH_NOIDX); /* disjoint */
	pts_free(&p);
}

/* ---- jobs ---- */

static const char jobs_scn[] = CONF_NONE TREE
    "podGroups:\n"
    "  - {name: hard1, namespace: c1, queue: q1,"
    " networkTopology: {mode: hard, highestTierAllowed: 1}}\n"
    "  - {name: soft, namespace: c1, queue: q1,"
    " networkTopology: {mode: soft, highestTierAllowed: 1}}\n"
    "  - {name: byname, namespace: c1, queue: q1,"
    " networkTopology: {mode: hard, highestTierName: spine}}\n"
    "  - {name: unknown, namespace: c1, queue: q1,"
    " networkTopology: {mode: hard, highestTierName: nope}}\n"
    "  - {name: plain, namespace: c1, queue: q1}\n"
    "  - {name: sg, namespace: c1, queue: q1,"
    " networkTopology: {mode: hard, highestTierAllowed: 2}, subGroupPolicy: ["
    "{name: a, matchLabelKeys: [k], networkTopology: {mode: soft}},"
    "{name: b, matchLabelKeys: [j], networkTopology: {mode: hard, highestTierName: rack}},"
    "{name: c, matchLabelKeys: [i]}]}\n"
    "  - {name: sgu, namespace: c1, queue: q1,"
    " networkTopology: {mode: hard, highestTierName: nope}, subGroupPolicy: ["
    "{name: a, matchLabelKeys: [k], networkTopology: {mode: soft}}]}\n"
    "pods:\n"
    "  - {name: p1, namespace: c1, podGroup: hard1}\n"
    "  - {name: p2, namespace: c1, podGroup: soft}\n"
    "  - {name: p3, namespace: c1, podGroup: byname}\n"
    "  - {name: p4, namespace: c1, podGroup: unknown}\n"
    "  - {name: p5, namespace: c1, podGroup: plain}\n"
    "  - {name: s1, namespace: c1, podGroup: sg, labels: {k: x}}\n"
    "  - {name: s2, namespace: c1, podGroup: sg, labels: {j: y}}\n"
    "  - {name: s3, namespace: c1, podGroup: sg, labels: {i: z}}\n"
    "  - {name: s4, namespace: c1, podGroup: sg}\n"
    "  - {name: u1, namespace: c1, podGroup: sgu, labels: {k: x}}\n"
    "  - {name: u2, namespace: c1, podGroup: sgu}\n";

static const char recover_scn[] = CONF_NONE TREE
    "podGroups:\n"
    "  - {name: j1, namespace: c1, queue: q1,"
    " networkTopology: {mode: hard, highestTierAllowed: 2}}\n"
    "  - {name: j2, namespace: c1, queue: q1, networkTopology: {mode: soft}}\n"
    "  - {name: j3, namespace: c1, queue: q1}\n"
    "  - {name: j4, namespace: c1, queue: q1,"
    " networkTopology: {mode: hard, highestTierAllowed: 2}}\n"
    "  - {name: j5, namespace: c1, queue: q1, subGroupPolicy: [{name: a, matchLabelKeys: [k],"
    " networkTopology: {mode: hard, highestTierAllowed: 1}}]}\n"
    "pods:\n"
    "  - {name: a1, namespace: c1, podGroup: j1, phase: Running, nodeName: n1}\n"
    "  - {name: a2, namespace: c1, podGroup: j1, phase: Running, nodeName: n2}\n"
    "  - {name: a3, namespace: c1, podGroup: j1}\n"
    "  - {name: b1, namespace: c1, podGroup: j2, phase: Running, nodeName: n1}\n"
    "  - {name: b2, namespace: c1, podGroup: j2, phase: Pending, nodeName: n3}\n"
    "  - {name: c1, namespace: c1, podGroup: j3, phase: Running, nodeName: n1}\n"
    "  - {name: d1, namespace: c1, podGroup: j4, phase: Running, nodeName: l1}\n"
    "  - {name: d2, namespace: c1, podGroup: j4, phase: Succeeded, nodeName: n1}\n"
    "  - {name: e1, namespace: c1, podGroup: j5, phase: Running, nodeName: n1,"
    " labels: {k: '0'}}\n"
    "  - {name: e2, namespace: c1, podGroup: j5, phase: Running, nodeName: n2,"
    " labels: {k: '0'}}\n"
    "  - {name: e3, namespace: c1, podGroup: j5, phase: Running, nodeName: r1-n1,"
    " labels: {k: '1'}}\n"
    "  - {name: e4, namespace: c1, podGroup: j5, phase: Running, nodeName: orphan}\n";

static void test_job_topology(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, jobs_scn);
	const tph_topo *tp = p.s->topo;
	const char *jobs[] = {"c1/hard1", "c1/soft", "c1/byname", "c1/unknown", "c1/plain"};
	const char *pods[] = {"c1/p1", "c1/p2", "c1/p3", "c1/p4", "c1/p5"};
	int32_t tiers[] = {1, 4, 2, -1, -1};
	for (int i = 0; i < 5; i++) {
		tph_idx j = pts_job(&p, jobs[i]);
		assert_int_equal(tph_topo_job_tier(p.s, j), tiers[i]);
		assert_int_equal(tp->job_has[j], i < 4);
		assert_int_equal(tph_topo_job_contains_hard(p.s, j), tiers[i] >= 0);
		/* no subgroup policy: the default subjob copies the job */
		tph_idx k = tph_task_subjob(p.s, pts_task(&p, pods[i]));
		assert_int_equal(tp->sj.topo_tier[k], tiers[i]);
	}
	/* sg: a soft policy stays under the job's tier; a tierName resolves; a policy without
	 * topology has none; the default subjob takes the job's */
	const char *tasks[] = {"c1/s1", "c1/s2", "c1/s3", "c1/s4", "c1/u1", "c1/u2"};
	int32_t want[] = {2, 1, -1, 2, 4, -1};
	uint8_t has[] = {1, 1, 0, 1, 1, 1};
	for (int i = 0; i < 6; i++) {
		tph_idx k = tph_task_subjob(p.s, pts_task(&p, tasks[i]));
		assert_int_equal(tp->sj.topo_tier[k], want[i]);
		assert_int_equal(tp->sj.topo_has[k], has[i]);
	}
	tph_idx sgu = pts_job(&p, "c1/sgu");
	assert_int_equal(tph_topo_job_tier(p.s, sgu), -1);
	assert_true(tph_topo_job_contains_hard(p.s, sgu));
	assert_true(tph_topo_job_contains_topology(p.s, pts_job(&p, "c1/unknown")));
	assert_false(tph_topo_job_contains_topology(p.s, pts_job(&p, "c1/plain")));
	pts_free(&p);
}

static void test_recovered_hypernode(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, recover_scn);
	const tph_topo *tp = p.s->topo;
	assert_int_equal(tp->job_hn[pts_job(&p, "c1/j1")], LEAF0);
	assert_int_equal(tp->job_hn[pts_job(&p, "c1/j2")], SPINE0); /* Bound counts */
	assert_int_equal(tp->job_hn[pts_job(&p, "c1/j3")], TPH_NOIDX);
	assert_int_equal(tp->job_hn[pts_job(&p, "c1/j4")], LEAF2); /* Succeeded does not */
	/* subjobs with a topology recover theirs; the job takes their LCA; the default subjob of
	 * j5 has no topology and no say */
	assert_int_equal(tp->sj.hn[tph_task_subjob(p.s, pts_task(&p, "c1/e1"))], LEAF0);
	assert_int_equal(tp->sj.hn[tph_task_subjob(p.s, pts_task(&p, "c1/e3"))], LEAF1);
	assert_int_equal(tp->sj.hn[tph_task_subjob(p.s, pts_task(&p, "c1/e4"))], TPH_NOIDX);
	assert_int_equal(tp->job_hn[pts_job(&p, "c1/j5")], SPINE0);
	pts_free(&p);
}

static void test_not_a_tree(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF_NONE "queues: [{name: q1}]\n"
	                       "nodes: [{name: a, allocatable: {cpu: '1', pods: '1'}}]\n"
	                       "hyperNodes:\n"
	                       "  - {name: x, tier: 1, members: [a]}\n"
	                       "  - {name: y, tier: 2, members: [x]}\n"
	                       "  - {name: z, tier: 2, members: [x]}\n");
	const tph_hn_tree *t = &p.s->topo->t;
	assert_false(t->ready);
	assert_int_equal(t->parent[0], 1); /* the first claim stands */
	assert_int_equal(t->parent[2], 3);
	pts_free(&p);
}

/* Members read in Go's regexp syntax, as Volcano reads them; a pattern that backtracks past
 * the match limit on some node drops its member whole, with a warning. */
static void test_go_regex_members(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF_NONE "queues: [{name: q1}]\n"
	                       "nodes:\n"
	                       "  - {name: n12, allocatable: {cpu: '1', pods: '1'}}\n"
	                       "  - {name: n3x, allocatable: {cpu: '1', pods: '1'}}\n"
	                       "  - {name: N7, allocatable: {cpu: '1', pods: '1'}}\n"
	                       "  - {name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab,\n"
	                       "     allocatable: {cpu: '1', pods: '1'}}\n"
	                       "hyperNodes:\n"
	                       "  - {name: x, tier: 1, members: [{regex: '^n\\d+$'}]}\n"
	                       "  - {name: y, tier: 1, members: [{regex: '(?i)^n\\d+?$'}]}\n"
	                       "  - {name: z, tier: 1, members: [{regex: '(?:a|aa)*$'}, n3x]}\n");
	expect_nodes(&p, 0, (const char *[]){"n12"}, 1);
	expect_nodes(&p, 1, (const char *[]){"n12", "N7"}, 2);
	expect_nodes(&p, 2, (const char *[]){"n3x"}, 1);
	assert_int_equal(p.d.warnings, 1);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_members_and_top),
	    cmocka_unit_test(test_tiers_and_names),
	    cmocka_unit_test(test_no_hypernodes),
	    cmocka_unit_test(test_lca_and_holding),
	    cmocka_unit_test(test_aggregates_follow_statements),
	    cmocka_unit_test(test_aggregates_made_late),
	    cmocka_unit_test(test_overlapping_members),
	    cmocka_unit_test(test_gradient_build),
	    cmocka_unit_test(test_search_root),
	    cmocka_unit_test(test_job_topology),
	    cmocka_unit_test(test_recovered_hypernode),
	    cmocka_unit_test(test_not_a_tree),
	    cmocka_unit_test(test_go_regex_members),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
