/* An ANCHORED shape whose verdicts are its row's fit and its spec's predicates (sh->pred) keeps
 * no verdict column (allocate_fast.h, af_shape.code): its cells hold the key and the group, 9
 * bytes a position, which set each group was scored over is a bit a position in the groups
 * scored since the build (af_shape_known), and its verdicts are read from the row and spec.
 * Over placements that move nodes out of the row's fit and back, its reads agree with them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "fast_harness.h"

#define N_NODES 300u

/* Task a (3 cpu) prefers zone a (the even nodes): nodeorder's node affinity is ANCHORED. One
 * node in three has 2 cpu, too small for it. */
static char *scenario(void)
{
	size_t cap = 160u * N_NODES + 2048, len = 0;
	char *y = malloc(cap);
	assert_non_null(y);
	len += (size_t)snprintf(y + len, cap - len,
	                        "conf: |\n"
	                        "  actions: \"allocate\"\n"
	                        "  tiers: [{plugins: [{name: predicates}, {name: nodeorder}, "
	                        "{name: binpack}]}]\n"
	                        "queues: [{name: q1}]\n"
	                        "nodes:\n");
	for (uint32_t i = 0; i < N_NODES; i++)
		len +=
		    (size_t)snprintf(y + len, cap - len,
		                     "  - {name: n%u, labels: {zone: %s}, allocatable: {cpu: '%u', "
		                     "memory: 8Gi, pods: '110'}}\n",
		                     i, i % 2 ? "b" : "a", i % 3 ? 4u + i % 4 : 2u);
	snprintf(y + len, cap - len,
	         "podGroups:\n"
	         "  - {name: pg, namespace: ns, queue: q1, minMember: 1, phase: Inqueue}\n"
	         "pods:\n"
	         "  - {name: a, namespace: ns, podGroup: pg, requests: {cpu: '3'}, affinity: "
	         "{nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, "
	         "preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}}]}}}\n");
	return y;
}

static int setup(void **state)
{
	return pts_fast_new(state, scenario(), N_NODES);
}

/* Task a's pick (which brings its shape up to date); its shape, the only one. */
static af_shape *pick(pts_fast *x)
{
	tph_idx node = TPH_NOIDX;
	tph_reason_code codes[N_NODES];
	assert_int_equal(alloc_fast_pick(x->f, pts_task(&x->p, "ns/a"), &node, codes), AF_NODE);
	assert_int_equal(x->f->n_shapes, 1);
	af_shape *sh = x->f->shapes[0];
	assert_int_equal(x->f->pos[node] == UINT32_MAX, false);
	assert_int_equal(af_track_base(sh, x->f->pos[node]), TPH_PASS); /* a node it passes */
	return sh;
}

/* Every position's verdict is the row's fit where it fails, else the spec's; its group the
 * row's where that passes. How many pass. */
static uint32_t agree(const af_shape *sh)
{
	uint32_t pass = 0;
	for (uint32_t p = 0; p < N_NODES; p++) {
		tph_reason_code fit = af_row_fit(sh->row, p);
		tph_reason_code want = fit == TPH_PASS ? sh->pred->code[p] : fit;
		assert_int_equal(af_track_base(sh, p), want);
		assert_int_equal(af_type_verdict(sh, p), want);
		assert_int_equal(sh->cell[p].grp,
		                 want == TPH_PASS ? af_row_grp(sh->row, p) : G_NONE);
		pass += want == TPH_PASS;
	}
	return pass;
}

static void holds_no_verdict_column(void **state)
{
	pts_fast *x = *state;
	af_shape *sh = pick(x);
	assert_int_equal(sh->loc, TPH_SCORE_ANCHORED);
	assert_non_null(sh->pred);
	assert_true(af_shared_verdicts(sh));
	assert_non_null(sh->cell);
	assert_null(sh->code);
	assert_int_equal(sizeof(af_cell), 9);
	assert_int_equal(sh->bytes, af_shape_bytes(sh, N_NODES));
	af_shape own = *sh; /* the same shape with verdicts of its own: a column more */
	own.pred = NULL;
	assert_false(af_shared_verdicts(&own));
	assert_int_equal(af_shape_bytes(&own, N_NODES),
	                 sh->bytes + (N_NODES + 1) * sizeof(tph_reason_code));
}

/* Group g's scored set is its members when it was scored; none when not scored since the
 * build. Every position, the first and last of each 64 and the last word's included. */
static void known_is(const af_shape *sh, uint32_t g, bool scored)
{
	for (uint32_t p = 0; p < N_NODES; p++)
		if (af_shape_known(sh, g, p) != (scored && sh->cell[p].grp == g))
			fail_msg("group %u, position %u: known %d, in the group %d", g, p,
			         af_shape_known(sh, g, p), sh->cell[p].grp == g);
}

/* The first pick scores the first group alone (the others read none, whatever their words
 * hold); positions moved to another group, each group scored again knows exactly its members,
 * the first and last of each 64 among them; a whole build forgets every group's set until the
 * group is scored again. */
static void scored_sets_by_group(void **state)
{
	pts_fast *x = *state;
	tph_idx task = pts_task(&x->p, "ns/a");
	af_shape *sh = pick(x);
	uint32_t first = 0, other = G_FUTURE;
	while (!sh->cnt[first])
		first++;
	assert_true(first < other);
	for (uint32_t g = 0; g < G_NONE; g++) {
		if (g != first) /* stale words of a group not scored since the build */
			memset(sh->kset[g], 0xff, (N_NODES / 64 + 1) * sizeof(uint64_t));
		known_is(sh, g, g == first);
	}
	uint32_t moved = 0;
	for (uint32_t p = 0; p < N_NODES; p++)
		if (sh->cell[p].grp == first && (p % 7 == 0 || p % 64 == 63 || p == N_NODES - 1)) {
			sh->cell[p].grp = (uint8_t)other;
			sh->cnt[first]--;
			sh->cnt[other]++;
			moved++;
		}
	assert_true(moved > N_NODES / 16);
	assert_int_equal(af_rescore(x->f, sh, task, other), TPH_OK);
	assert_int_equal(af_rescore(x->f, sh, task, first), TPH_OK);
	for (uint32_t g = 0; g < G_NONE; g++)
		known_is(sh, g, g == first || g == other);
	sh->built = false; /* the next sync builds whole: the moved positions are back */
	sh = pick(x);
	for (uint32_t g = 0; g < G_NONE; g++)
		known_is(sh, g, g == first);
}

/* Nodes leave the row's fit and come back, each move logged; after each pick the shape's reads
 * agree with the row's and spec's, and the moves are seen. */
static void reads_follow_row_and_spec(void **state)
{
	pts_fast *x = *state;
	tph_session *s = x->p.s;
	uint32_t all = agree(pick(x)), moved = 0;
	assert_true(all > N_NODES / 2);
	int64_t was[N_NODES];
	for (int round = 0; round < 2; round++) {
		for (uint32_t p = 1; p < N_NODES; p += 5) {
			tph_idx node = s->ready_nodes[p];
			if (node % 3 == 0)
				continue; /* too small for a already */
			if (!round)
				was[p] = s->nodes.idle[node]; /* cpu, dimension 0 */
			s->nodes.idle[node] = round ? was[p] : 0;
			tph_eqc_touch(x->e, node);
			moved += !round;
		}
		af_shape *sh = pick(x);
		uint32_t pass = agree(sh);
		for (uint32_t p = 1; p < N_NODES; p += 5)
			if (s->ready_nodes[p] % 3)
				assert_int_equal(af_track_base(sh, p) == TPH_PASS, round == 1);
		assert_int_equal(pass, round ? all : all - moved);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(holds_no_verdict_column, setup, pts_fast_teardown),
	    cmocka_unit_test_setup_teardown(reads_follow_row_and_spec, setup, pts_fast_teardown),
	    cmocka_unit_test_setup_teardown(scored_sets_by_group, setup, pts_fast_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
