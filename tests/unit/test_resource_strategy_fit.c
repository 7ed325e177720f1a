/* Unit tests for plugins/resource_strategy_fit/resource_strategy_fit.c and its arguments: the
 * default strategy, exact names over wildcards and the longest wildcard, pod-level annotations, sra
 * and the proportional predicate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "session/ep_predicate.h"
#include "harness.h"

#define HEAD(args)                                                                              \
	"conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: resource-strategy-fit\n" \
	"      arguments: " args "\n"                                                           \
	"queues: [{name: q1}]\n"

#define NODES                                                                                  \
	"nodes:\n"                                                                             \
	"  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"                   \
	"  - {name: n2, allocatable: {cpu: '8', memory: 8Gi, pods: '10', nvidia.com/gpu: '4'," \
	" nvidia.com/mig: '8'}}\n"                                                             \
	"pods:\n"                                                                              \
	"  - {name: run, namespace: ns, phase: Running, nodeName: n1, requests: {cpu: '1',"    \
	" memory: 2Gi}}\n"                                                                     \
	"  - {name: t, namespace: ns, requests: {cpu: '1', memory: 2Gi}}\n"                    \
	"  - {name: g, namespace: ns, requests: {cpu: '1', nvidia.com/gpu: '1',"               \
	" nvidia.com/mig: '2'}}\n"

static void test_default_least_allocated(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HEAD("{}") NODES);
	/* cpu and memory, LeastAllocated, weight 1 each, plugin weight 10:
	 * n1: cpu (4-2)/4, memory (8-4)/8 -> 0.5 * 1000; n2: 7/8 and 6/8. */
	pts_expect_scores(&p, "ns/t", 500, (0.875 + 0.75) / 2 * 1000);
	pts_free(&p);
}

static void test_exact_before_wildcard(void **state)
{
	(void)state;
	pts p;
	pts_open(&p,
	         HEAD("{resourceStrategyFitWeight: 1, resources: {'nvidia.com/*': {type: "
	              "MostAllocated, weight: 3}, nvidia.com/gpu: {Type: LeastAllocated,"
	              " Weight: 0}, 'nvidia.*': {type: LeastAllocated, weight: 5}, '*': {weight:"
	              " 9}, 'a*b*': {weight: 9}}}") NODES);
	/* gpu: exact, LeastAllocated, weight 0 -> 1: (4-1)/4. mig: the longest wildcard,
	 * MostAllocated 3: 2/8 * 3. cpu has no strategy. n1 lacks both: scores 0, weights count. */
	pts_expect_scores(&p, "ns/g", 0, (0.75 + 0.75) / 4 * 100);
	pts_free(&p);
}

#define ANNOTATED(type, weights)                                                       \
	"  - {name: a, namespace: ns, requests: {cpu: '1', memory: 2Gi}, annotations:" \
	" {volcano.sh/resource-strategy-scoring-type: " type ","                       \
	" volcano.sh/resource-strategy-weight: '" weights "'}}\n"

static void test_pod_annotations(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HEAD("{resourceStrategyFitWeight: 1}")
	                 NODES ANNOTATED("MostAllocated", "{\"cpu\": 2}"));
	/* Only cpu, MostAllocated: n1 2/4, n2 1/8. */
	pts_expect_scores(&p, "ns/a", 50, 12.5);
	pts_free(&p);
	pts_open(&p, HEAD("{resourceStrategyFitWeight: 1}")
	                 NODES ANNOTATED("MostAllocated", "{\"cpu\": 2.5}"));
	pts_expect_scores(&p, "ns/a", 0, 0);
	pts_free(&p);
	/* An unknown strategy scores 0 per resource but keeps the weights. */
	pts_open(&p,
	         HEAD("{resourceStrategyFitWeight: 1}") NODES ANNOTATED("Other", "{\"cpu\": 1}"));
	pts_expect_scores(&p, "ns/a", 0, 0);
	pts_free(&p);
}

static void test_sra(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HEAD("{resourceStrategyFitWeight: 0, sra: {enable: true, resources:"
	                  " 'nvidia.com/gpu, example.com/x', weight: 5, resourceWeight:"
	                  " {nvidia.com/gpu: 3}}}") NODES);
	/* Weights 3 (gpu) + 1 (x): n1 has neither: (1 - 0) * 500; n2 has the gpu: 1 - 3/4. */
	pts_expect_scores(&p, "ns/t", 500, 125);
	/* g needs a gpu that n1 lacks: 0 there. */
	pts_expect_scores(&p, "ns/g", 0, 125);
	pts_free(&p);
}

static void test_proportional(void **state)
{
	(void)state;
	pts p;
	pts_open(&p,
	         HEAD("{proportional: {enable: true, resources: nvidia.com/gpu,"
	              " resourceProportion: {nvidia.com/gpu.cpu: 2, nvidia.com/gpu.memory: 1}}}")
	             NODES);
	tph_idx t = pts_task(&p, "ns/t"), g = pts_task(&p, "ns/g");
	/* n2 keeps 4 gpus * 2 = 8 cpu: 8 - 1 < 8 refuses t; n1 has no gpu. */
	assert_int_equal(tph_predicate_node(p.s, t, 0), TPH_PASS);
	tph_reason_code c = tph_predicate_node(p.s, t, 1);
	assert_string_equal(tph_reason_text(p.s, c),
	                    "proportional of resource nvidia.com/gpu check failed");
	assert_true(tph_reason_unresolvable(p.s, c));
	/* A task that asks for the resource itself is not held back. */
	assert_int_equal(tph_predicate_node(p.s, g, 1), TPH_PASS);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_least_allocated),
	    cmocka_unit_test(test_exact_before_wildcard),
	    cmocka_unit_test(test_pod_annotations),
	    cmocka_unit_test(test_sra),
	    cmocka_unit_test(test_proportional),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
