/* Unit tests for plugins/binpack.c: the weighted fullness score, extra resources and their
 * weights, a weighted resource that would overflow, one of weight 0, and the argument
 * fallbacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "harness.h"

#define HEAD(args)                                                                                 \
	"conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: binpack\n"                  \
	"      arguments: " args "\n"                                                              \
	"queues: [{name: q1}]\n"                                                                   \
	"nodes:\n"                                                                                 \
	"  - {name: n1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"                       \
	"  - {name: n2, allocatable: {cpu: '4', memory: 16Gi, pods: '10', nvidia.com/gpu: '4'}}\n" \
	"pods:\n"                                                                                  \
	"  - {name: run, namespace: ns, phase: Running, nodeName: n1, requests: {cpu: '1',"        \
	" memory: 1Gi}}\n"                                                                         \
	"  - {name: a, namespace: ns, requests: {cpu: '1', memory: 1Gi}}\n"                        \
	"  - {name: g, namespace: ns, requests: {cpu: '2', memory: 4Gi, nvidia.com/gpu: '2'}}\n"

static void test_weighted_fullness(void **state)
{
	(void)state;
	pts p;
	pts_open(
	    &p,
	    HEAD("{binpack.weight: 10, binpack.cpu: 2, binpack.memory: 3,"
	         " binpack.resources: 'nvidia.com/gpu, example.com/foo',"
	         " binpack.resources.nvidia.com/gpu: 7, binpack.resources.example.com/foo: 8}"));
	/* a on n1: cpu (1+1)/2*2 + memory (1+1)/4*3 = 3.5, over weights 5, times 100 * 10. */
	pts_expect_scores(&p, "ns/a", 700, 137.5);
	/* g: 3 cpu on n1 would overflow (0); n2: (1 + 0.75 + 3.5) / 12 * 1000. */
	pts_expect_scores(&p, "ns/g", 0, 5.25 / 12 * 1000);
	pts_free(&p);
}

static void test_argument_fallbacks(void **state)
{
	(void)state;
	pts p;
	/* Negative resource weights fall back to 1; a list is not the string Volcano reads. */
	pts_open(&p,
	         HEAD("{binpack.cpu: -3, binpack.memory: 1, binpack.resources: [nvidia.com/gpu],"
	              " binpack.resources.nvidia.com/gpu: 50}"));
	pts_expect_scores(&p, "ns/a", (1.0 + 0.5) / 2 * 100, (0.25 + 1.0 / 16) / 2 * 100);
	pts_expect_scores(&p, "ns/g", 0, (0.5 + 0.25) / 2 * 100);
	pts_free(&p);
	/* binpack.weight 0: no node order at all. */
	pts_open(&p, HEAD("{binpack.weight: 0}"));
	pts_expect_scores(&p, "ns/a", 0, 0);
	assert_int_equal(p.s->ep[TPH_EP_NODE_ORDER].n, 0);
	pts_free(&p);
}

/* c asks for more cpu than n1 has left. */
#define POD_C "  - {name: c, namespace: ns, requests: {cpu: '2', memory: 1Gi}}\n"

static void test_zero_weight(void **state)
{
	(void)state;
	pts p;
	/* cpu of weight 0 adds nothing to the sum or the weights and never overflows. */
	pts_open(&p, HEAD("{binpack.cpu: 0, binpack.memory: 1}") POD_C);
	pts_expect_scores(&p, "ns/c", (1.0 + 1.0) / 4 * 100, 1.0 / 16 * 100);
	pts_free(&p);
	/* of weight 1, its overflow on n1 scores 0 */
	pts_open(&p, HEAD("{binpack.cpu: 1, binpack.memory: 1}") POD_C);
	pts_expect_scores(&p, "ns/c", 0, (2.0 / 4 + 1.0 / 16) / 2 * 100);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_weighted_fullness),
	    cmocka_unit_test(test_argument_fallbacks),
	    cmocka_unit_test(test_zero_weight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
