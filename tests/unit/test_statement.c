/* Statement property test: random allocate / pipeline / evict sequences followed by discard
 * (directly or after a merge) restore every mutable session column bit for bit; commit
 * publishes binds, evictions and pipelined tasks in order, and is the decision log's one
 * writer: Session.dispatch and kept statements go through it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cluster_int.h"
#include "harness.h"

#include "common/action_util.h"

typedef struct fixture {
	pts p;
	char *text;
} fixture;

/* 16 nodes, 64 pods: every third one running on a node, the rest pending. */
static char *make_scenario(void)
{
	size_t cap = 1 << 16, len = 0;
	char *b = malloc(cap);
	len += (size_t)snprintf(b + len, cap - len,
	                        "name: statement\nconf: {actions: \"\", tiers: []}\n"
	                        "queues: [{name: default}]\nnodes:\n");
	for (int n = 0; n < 16; n++)
		len += (size_t)snprintf(b + len, cap - len,
		                        "  - {name: n%d, allocatable: {cpu: '64', memory: 64Gi, "
		                        "pods: '110', nvidia.com/gpu: '8'}}\n",
		                        n);
	len += (size_t)snprintf(b + len, cap - len,
	                        "podGroups: [{name: pg, namespace: ns, minMember: 1}]\npods:\n");
	for (int p = 0; p < 64; p++) {
		bool running = p % 3 == 0;
		len += (size_t)snprintf(
		    b + len, cap - len,
		    "  - {name: p%d, namespace: ns, podGroup: pg, phase: %s, "
		    "%s requests: {cpu: '%dm', memory: %dMi, nvidia.com/gpu: '%d'}}\n",
		    p, running ? "Running" : "Pending",
		    running ? (p % 2 ? "nodeName: n3," : "nodeName: n7,") : "", 100 + 37 * p,
		    64 + p, p % 3);
	}
	return b;
}

static int setup(void **state)
{
	static fixture f;
	f.text = make_scenario();
	pts_open(&f.p, f.text); /* no creationTimestamp: the clock is 0 */
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	pts_free(&f->p);
	free(f->text);
	return 0;
}

/* Every mutable column, concatenated. */
static size_t dump(const tph_session *s, unsigned char **out)
{
	size_t rows = (size_t)s->ndim * s->nodes.stride * sizeof(int64_t);
	size_t jc = (size_t)s->jobs->n * TPH_TS_COUNT * sizeof(uint32_t);
	size_t ja = (size_t)s->jobs->n * s->ndim * sizeof(int64_t);
	size_t total = 4 * rows + s->nodes.n * sizeof(uint32_t) + s->tasks.n +
	               s->tasks.n * sizeof(tph_idx) + jc + ja;
	unsigned char *b = malloc(total), *p = b;
	const void *parts[] = {s->nodes.used,      s->nodes.idle,   s->nodes.releasing,
	                       s->nodes.pipelined, s->nodes.ntasks, s->tasks.status,
	                       s->tasks.node,      s->js.count,     s->js.allocated};
	size_t sizes[] = {rows,
	                  rows,
	                  rows,
	                  rows,
	                  s->nodes.n * sizeof(uint32_t),
	                  s->tasks.n,
	                  s->tasks.n * sizeof(tph_idx),
	                  jc,
	                  ja};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		memcpy(p, parts[i], sizes[i]);
		p += sizes[i];
	}
	*out = b;
	return total;
}

/* The nodes' cpu and memory lines hold the alloc and used columns' values. */
static void expect_cm(const tph_session *s)
{
	const tph_node_store *ns = &s->nodes;
	for (size_t i = 0; i < ns->n; i++) {
		const int64_t *l = ns->cm + i * TPH_NODE_CM;
		assert_int_equal(l[TPH_CM_ALLOC_CPU], ns->alloc[TPH_RES_CPU * ns->stride + i]);
		assert_int_equal(l[TPH_CM_ALLOC_MEM], ns->alloc[TPH_RES_MEMORY * ns->stride + i]);
		assert_int_equal(l[TPH_CM_USED_CPU], ns->used[TPH_RES_CPU * ns->stride + i]);
		assert_int_equal(l[TPH_CM_USED_MEM], ns->used[TPH_RES_MEMORY * ns->stride + i]);
	}
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(uint32_t bound)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % bound);
}

/* One random operation on a task in a state that allows it. */
static void random_op(tph_statement *st)
{
	tph_session *s = st->s;
	tph_idx t = next(s->tasks.n), n = next(s->nodes.n);
	uint8_t status = s->tasks.status[t];
	if (status == TPH_TS_PENDING && next(2))
		assert_int_equal(tph_stmt_allocate(st, t, n), TPH_OK);
	else if (status == TPH_TS_PENDING)
		assert_int_equal(tph_stmt_pipeline(st, t, n), TPH_OK);
	else if (status == TPH_TS_RUNNING || status == TPH_TS_ALLOCATED)
		assert_int_equal(tph_stmt_evict(st, t, "test"), TPH_OK);
}

static void test_discard_restores_every_column(void **state)
{
	fixture *f = *state;
	unsigned char *before, *after;
	size_t n = dump(f->p.s, &before);
	for (int round = 0; round < 200; round++) {
		tph_statement st;
		tph_stmt_init(&st, f->p.s);
		uint32_t ops = 1 + next(40);
		for (uint32_t i = 0; i < ops; i++) {
			random_op(&st);
			expect_cm(f->p.s);
		}
		tph_stmt_discard(&st);
		expect_cm(f->p.s);
		assert_int_equal(dump(f->p.s, &after), n);
		assert_memory_equal(before, after, n);
		free(after);
	}
	free(before);
}

static void test_merged_discard_restores(void **state)
{
	fixture *f = *state;
	unsigned char *before, *after;
	size_t n = dump(f->p.s, &before);
	for (int round = 0; round < 100; round++) {
		tph_statement a, b;
		tph_stmt_init(&a, f->p.s);
		tph_stmt_init(&b, f->p.s);
		for (uint32_t i = 0; i < 10; i++)
			random_op(&a);
		for (uint32_t i = 0; i < 10; i++)
			random_op(&b);
		assert_int_equal(tph_stmt_merge(&a, &b), TPH_OK);
		assert_int_equal(b.n, 0);
		tph_stmt_discard(&a);
		dump(f->p.s, &after);
		assert_memory_equal(before, after, n);
		free(after);
	}
	free(before);
}

static void test_commit_publishes_in_order(void **state)
{
	fixture *f = *state;
	tph_session *s = f->p.s;
	tph_statement st;
	tph_stmt_init(&st, s);
	assert_int_equal(tph_stmt_allocate(&st, 1, 2), TPH_OK);      /* p1 pending */
	assert_int_equal(tph_stmt_pipeline(&st, 2, 5), TPH_OK);      /* p2 pending */
	assert_int_equal(tph_stmt_evict(&st, 0, "preempt"), TPH_OK); /* p0 running on n7 */
	int64_t idle_before = s->nodes.idle[0 * s->nodes.stride + 2];
	assert_int_equal(tph_stmt_commit(&st), TPH_OK);
	expect_cm(s);
	assert_int_equal(s->tasks.status[1], TPH_TS_BINDING);
	assert_int_equal(s->tasks.status[2], TPH_TS_PIPELINED);
	assert_int_equal(s->tasks.status[0], TPH_TS_RELEASING);
	/* Binding holds the same resources as Allocated: idle unchanged by the commit. */
	assert_int_equal(s->nodes.idle[0 * s->nodes.stride + 2], idle_before);
	assert_int_equal(tph_session_close(s, &f->p.d), TPH_OK);
	const tph_decision_log *l = tph_session_decisions(s);
	assert_int_equal(l->n_binds, 1);
	assert_string_equal(l->binds[0].pod, "ns/p1");
	assert_string_equal(l->binds[0].node, "n2");
	assert_int_equal(l->n_pipelined, 1);
	assert_string_equal(l->pipelined[0].node, "n5");
	assert_int_equal(l->n_evictions, 1);
	assert_string_equal(l->evictions[0].pod, "ns/p0");
	assert_string_equal(l->evictions[0].reason, "preempt");
}

/* Session.Allocate leaves p1 and p2 Allocated (no row); p4 commits; dispatching the job binds
 * p2 (first) then p1, each once; a dispatch in a discarded statement undoes nothing; a kept
 * statement logs its pipeline alone. */
static void test_log_written_by_statements(void **state)
{
	fixture *f = *state;
	tph_session *s = f->p.s;
	tph_statement st;
	tph_stmt_init(&st, s);
	assert_int_equal(tph_stmt_allocate(&st, 1, 1), TPH_OK); /* p1 */
	assert_int_equal(tph_stmt_allocate(&st, 2, 2), TPH_OK); /* p2 */
	tph_stmt_free(&st);
	tph_stmt_init(&st, s);
	assert_int_equal(tph_stmt_allocate(&st, 4, 4), TPH_OK); /* p4 */
	assert_int_equal(tph_stmt_commit(&st), TPH_OK);
	assert_int_equal(tph_act_dispatch_job(s, 0, 2), TPH_OK);
	assert_int_equal(s->tasks.status[1], TPH_TS_BINDING);
	tph_stmt_init(&st, s);
	assert_int_equal(tph_stmt_dispatch(&st, 1), TPH_OK);
	tph_stmt_discard(&st);
	assert_int_equal(s->tasks.status[1], TPH_TS_BINDING);
	tph_stmt_init(&st, s);
	assert_int_equal(tph_stmt_allocate(&st, 7, 5), TPH_OK); /* p7: kept, not logged */
	assert_int_equal(tph_stmt_pipeline(&st, 5, 5), TPH_OK); /* p5 */
	assert_int_equal(tph_stmt_keep(&st), TPH_OK);
	assert_int_equal(s->tasks.status[7], TPH_TS_ALLOCATED);
	assert_int_equal(tph_session_close(s, &f->p.d), TPH_OK);
	const tph_decision_log *l = tph_session_decisions(s);
	const char *binds[] = {"ns/p4", "ns/p2", "ns/p1"};
	assert_int_equal(l->n_binds, 3);
	for (uint32_t i = 0; i < 3; i++)
		assert_string_equal(l->binds[i].pod, binds[i]);
	assert_int_equal(l->n_pipelined, 1);
	assert_string_equal(l->pipelined[0].pod, "ns/p5");
}

static void test_accounting_follows_volcano(void **state)
{
	fixture *f = *state;
	tph_session *s = f->p.s;
	size_t st = s->nodes.stride, cpu = 0 * st + 4, gpu = 4 * st + 4;
	int64_t idle = s->nodes.idle[cpu], used = s->nodes.used[cpu];
	int64_t req = s->tasks.req[(size_t)1 * s->ndim + 0];
	tph_statement stmt;
	tph_stmt_init(&stmt, s);
	assert_int_equal(tph_stmt_pipeline(&stmt, 1, 4), TPH_OK);
	/* Pipelined: only the pipelined column moves. */
	assert_int_equal(s->nodes.idle[cpu], idle);
	assert_int_equal(s->nodes.pipelined[cpu], req);
	tph_stmt_discard(&stmt);
	tph_stmt_init(&stmt, s);
	assert_int_equal(tph_stmt_allocate(&stmt, 1, 4), TPH_OK);
	assert_int_equal(s->nodes.idle[cpu], idle - req);
	assert_int_equal(s->nodes.used[cpu], used + req);
	assert_int_equal(s->nodes.ntasks[4], 1);
	assert_int_equal(s->nodes.idle[gpu], 8000 - s->tasks.req[(size_t)1 * s->ndim + 4]);
	tph_stmt_discard(&stmt);
	assert_int_equal(s->nodes.ntasks[4], 0);
}

/* tph_task_move skips the node sums when a task keeps its node and the way NodeInfo counts it
 * (Allocated to Binding at commit): random moves, same-node ones among them, then every task
 * back to where it started through Pending without a node (the full accounting) restore every
 * column bit for bit. */
static void test_same_node_moves_keep_sums(void **state)
{
	fixture *f = *state;
	tph_session *s = f->p.s;
	static const uint8_t to[] = {TPH_TS_ALLOCATED, TPH_TS_BINDING,   TPH_TS_BOUND,
	                             TPH_TS_RUNNING,   TPH_TS_RELEASING, TPH_TS_PIPELINED,
	                             TPH_TS_PENDING};
	unsigned char *before, *after;
	size_t n = dump(s, &before);
	uint8_t *status0 = malloc(s->tasks.n);
	tph_idx *node0 = malloc(s->tasks.n * sizeof *node0);
	memcpy(status0, s->tasks.status, s->tasks.n);
	memcpy(node0, s->tasks.node, s->tasks.n * sizeof *node0);
	for (int i = 0; i < 2000; i++) {
		tph_idx t = next(s->tasks.n), node = s->tasks.node[t];
		if (node == TPH_NOIDX || !next(4))
			node = next(s->nodes.n);
		tph_task_move(s, t, to[next(sizeof to)], node);
	}
	for (tph_idx t = 0; t < s->tasks.n; t++) {
		tph_task_move(s, t, TPH_TS_PENDING, TPH_NOIDX);
		tph_task_move(s, t, status0[t], node0[t]);
	}
	assert_int_equal(dump(s, &after), n);
	assert_memory_equal(before, after, n);
	free(after);
	free(before);
	free(status0);
	free(node0);
}

static void *copy_of(const void *src, size_t bytes)
{
	void *d = malloc(bytes);
	memcpy(d, src, bytes);
	return d;
}

/* `col` equals `at_open` with task t's request added on node n. */
static void expect_added(const tph_session *s, const int64_t *col, const int64_t *at_open,
                         tph_idx t, tph_idx n)
{
	size_t rows = (size_t)s->ndim * s->nodes.stride;
	int64_t *want = copy_of(at_open, rows * sizeof *want);
	for (uint32_t d = 0; d < s->ndim; d++)
		want[(size_t)d * s->nodes.stride + n] += s->tasks.req[(size_t)t * s->ndim + d];
	assert_memory_equal(col, want, rows * sizeof *want);
	free(want);
}

/* Releasing, pipelined and nominated are the session's own copies from open (zero columns
 * come zeroed from the arena, the rest copied): they hold the snapshot's values, a write
 * changes the session's column only, and the snapshot never changes (the next session over
 * it starts from the same values). */
static void test_future_columns_are_the_sessions(void **state)
{
	fixture *f = *state;
	tph_session *s = f->p.s;
	const tph_snapshot *sn = s->snap;
	size_t rows = (size_t)s->ndim * s->nodes.stride * sizeof(int64_t);
	size_t noms = s->tasks.n * sizeof(tph_idx);
	int64_t *rel0 = copy_of(sn->nodes.releasing, rows),
	        *pip0 = copy_of(sn->nodes.pipelined, rows);
	tph_idx *nom0 = copy_of(sn->tasks.nominated, noms), n0 = s->tasks.node[0]; /* p0 runs */
	assert_ptr_not_equal(s->nodes.releasing, sn->nodes.releasing);
	assert_ptr_not_equal(s->nodes.pipelined, sn->nodes.pipelined);
	assert_ptr_not_equal(s->tasks.nominated, sn->tasks.nominated);
	assert_memory_equal(s->nodes.releasing, rel0, rows);
	assert_memory_equal(s->nodes.pipelined, pip0, rows);
	assert_memory_equal(s->tasks.nominated, nom0, noms);
	tph_statement st;
	tph_stmt_init(&st, s);
	assert_int_equal(tph_stmt_pipeline(&st, 1, 4), TPH_OK); /* p1 pending */
	expect_added(s, s->nodes.pipelined, pip0, 1, 4);
	assert_int_equal(tph_stmt_evict(&st, 0, "test"), TPH_OK);
	expect_added(s, s->nodes.releasing, rel0, 0, n0);
	tph_stmt_discard(&st);
	assert_memory_equal(s->nodes.releasing, rel0, rows);
	assert_memory_equal(s->nodes.pipelined, pip0, rows);
	s->tasks.nominated[2] = 5;
	assert_memory_equal(sn->nodes.releasing, rel0, rows);
	assert_memory_equal(sn->nodes.pipelined, pip0, rows);
	assert_memory_equal(sn->tasks.nominated, nom0, noms);
	free(rel0);
	free(pip0);
	free(nom0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_discard_restores_every_column, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_merged_discard_restores, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_commit_publishes_in_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_log_written_by_statements, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_accounting_follows_volcano, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_same_node_moves_keep_sums, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_future_columns_are_the_sessions, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
