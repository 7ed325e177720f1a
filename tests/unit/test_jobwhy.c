/* Job-level pending reasons and the queue readout (session/jobwhy*.c, queue_rows.c): each kind
 * of reason with its exact text (a table of scenarios), the podgroup condition Volcano's gang
 * plugin writes, the enqueue plugins' reasons, a plugin's own reason through the public API,
 * and the per-queue readout and summary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "lib/why.h"

#include <stdio.h>
#include <string.h>

#define NODES2                                                               \
	"nodes:\n"                                                           \
	"  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n" \
	"  - {name: n2, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"

/* Actions, gang, then predicates and `plugins` in the second tier; one queue line; two nodes. */
#define SCN(actions, plugins, queues)  \
	"conf: |\n"                    \
	"  actions: \"" actions "\"\n" \
	"  tiers:\n"                   \
	"  - plugins:\n"               \
	"    - name: gang\n"           \
	"  - plugins:\n"               \
	"    - name: predicates\n" plugins "queues: " queues "\n" NODES2 "podGroups:\n"

#define PG(name, rest) "  - {name: " name ", namespace: ns, queue: q1" rest "}\n"
#define POD(name, pg, cpu) \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", requests: {cpu: '" cpu "'}}\n"

/* One scenario, the row of ns/pg it must give. */
typedef struct why_case {
	const char *name;
	const char *yaml;
	tph_job_why why;
	const char *plugin; /* NULL: none */
	const char *message;
} why_case;

static const why_case cases[] = {
    /* one of five tasks fits, for a minMember of 3: the unfit ones by their main reason */
    {"gang_aggregates_reasons",
     SCN("enqueue, allocate", "", "[{name: q1}]")
         PG("pg", ", minMember: 3") "pods:\n" POD("a", "pg", "1") POD("b", "pg", "9")
             POD("c", "pg", "9") "  - {name: d, namespace: ns, podGroup: pg, requests: {cpu: '1'}, "
                                 "nodeSelector: {z: x}}\n" POD("e", "pg", "9"),
     TPH_WHY_GANG, NULL,
     "needs 3, 1 placeable: 4 tasks fit no node — 3 Insufficient cpu, 1 node(s) didn't match "
     "Pod's node affinity/selector"},
    /* minMember met, one task left that fits nowhere */
    {"unplaceable",
     SCN("enqueue, allocate", "", "[{name: q1}]")
         PG("pg", ", minMember: 1") "pods:\n" POD("a", "pg", "1") POD("b", "pg", "9"),
     TPH_WHY_UNPLACED, NULL, "1 of 1 pending tasks fit no node — 1 Insufficient cpu"},
    /* fewer pods than minMember: gang's JobValid */
    {"invalid",
     SCN("enqueue, allocate", "", "[{name: q1}]")
         PG("pg", ", minMember: 3") "pods:\n" POD("a", "pg", "1"),
     TPH_WHY_INVALID, "gang",
     "job invalid: NotEnoughTasks: Not enough valid tasks for gang-scheduling, valid: 1, min: 3"},
    /* proportion's vote: minResources over the queue's real capability */
    {"not_enqueued_proportion",
     SCN("enqueue, allocate", "    - name: proportion\n", "[{name: q1, capability: {cpu: '2'}}]")
         PG("pg", ", minMember: 1, minResources: {cpu: '3'}") "pods:\n" POD("a", "pg", "3"),
     TPH_WHY_NOT_ENQUEUED, "proportion",
     "not enqueued: proportion: queue resource quota insufficient: insufficient cpu (queue q1: "
     "cpu 0 allocated+inqueue-elastic + 3 requested > capability 2)"},
    /* resourcequota's vote names the quota and its figures */
    {"not_enqueued_quota",
     SCN("enqueue, allocate", "    - name: resourcequota\n", "[{name: q1}]")
         PG("pg", ", minMember: 1, minResources: {cpu: '2'}") "pods:\n" POD(
             "a", "pg", "2") "resourceQuotas:\n  - {name: rq, namespace: ns, hard: {cpu: '4'}, "
                             "used: {cpu: '3'}}\n",
     TPH_WHY_NOT_ENQUEUED, "resourcequota",
     "not enqueued: resourcequota: resource quota insufficient: insufficient cpu (resource "
     "quota ns/rq: cpu 3 used + 2 requested > hard 4)"},
    /* overcommit's vote: the idle resource times the factor */
    {"not_enqueued_overcommit",
     SCN("enqueue, allocate", "    - name: overcommit\n", "[{name: q1}]")
         PG("pg", ", minMember: 1, minResources: {cpu: '10'}") "pods:\n" POD("a", "pg", "10"),
     TPH_WHY_NOT_ENQUEUED, "overcommit",
     "not enqueued: overcommit: resource in cluster is overused: overused cpu (cluster, "
     "overcommit-factor 1.2: cpu 0 inqueue + 10 requested > idle 9600m)"},
    /* a queue at its capability: allocate skips it as overused */
    {"queue_overused",
     SCN("enqueue, allocate", "    - name: proportion\n", "[{name: q1, capability: {cpu: '1'}}]")
         PG("run", ", minMember: 1, phase: Running")
             PG("pg", ", minMember: 1") "pods:\n  - {name: r1, namespace: ns, podGroup: run, "
                                        "requests: {cpu: '1'}, phase: Running,"
                                        " nodeName: n2}\n" POD("m1", "pg", "1"),
     TPH_WHY_QUEUE, "proportion",
     "queue q1 overused: cpu allocated 1 of deserved 1; needs 1, 0 placeable"},
    /* preempt evicts the low-priority task and pipelines the job onto its node */
    {"pipelined",
     "conf: |\n  actions: \"enqueue, allocate, preempt\"\n  tiers:\n  - plugins:\n"
     "    - name: priority\n    - name: gang\n    - name: conformance\n  - plugins:\n"
     "    - name: predicates\n"
     "priorityClasses: [{name: high, value: 1000}, {name: low, value: 1}]\n"
     "queues: [{name: q1}]\n" NODES2
     "podGroups:\n" PG("lo", ", minMember: 0, phase: Running, priorityClassName: low") PG(
         "pg",
         ", minMember: 1, phase: Inqueue, priorityClassName: high") "pods:\n"
                                                                    "  - {name: l1, namespace: ns, "
                                                                    "podGroup: lo, requests: {cpu: "
                                                                    "'4'}, phase: Running,"
                                                                    " nodeName: n1, "
                                                                    "priorityClassName: low}\n"
                                                                    "  - {name: l2, namespace: ns, "
                                                                    "podGroup: lo, requests: {cpu: "
                                                                    "'4'}, phase: Running,"
                                                                    " nodeName: n2, "
                                                                    "priorityClassName: low}\n"
                                                                    "  - {name: h1, namespace: ns, "
                                                                    "podGroup: pg, requests: {cpu: "
                                                                    "'4'},"
                                                                    " priorityClassName: high}\n",
     TPH_WHY_PIPELINED, NULL,
     "1 task pipelined, waiting for resources being released; needs 1, 0 placeable"},
    /* a closed queue */
    {"queue_closed",
     SCN("allocate", "    - name: proportion\n", "[{name: q1, state: Closed}]")
         PG("pg", ", minMember: 1, phase: Inqueue") "pods:\n" POD("a", "pg", "1"),
     TPH_WHY_QUEUE, "proportion", "queue q1 is Closed; needs 1, 0 placeable"},
    /* no action tries the job */
    {"not_tried",
     SCN("enqueue", "", "[{name: q1}]")
         PG("pg", ", minMember: 0, phase: Inqueue") "pods:\n" POD("a", "pg", "1"),
     TPH_WHY_NOT_TRIED, NULL,
     "1 task pending, none tried this session: the conf runs no allocate or backfill action"},
    /* hard topology at tier 1: two racks of 4 cpu cannot hold 6 */
    {"topology",
     "conf: |\n  actions: \"allocate\"\n  tiers:\n  - plugins:\n    - name: gang\n"
     "    - name: predicates\n    - name: network-topology-aware\n"
     "queues: [{name: q1}]\n"
     "nodes:\n"
     "  - {name: a1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"
     "  - {name: a2, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"
     "  - {name: b1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"
     "  - {name: b2, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"
     "hyperNodes:\n"
     "  - {name: ra, tier: 1, members: [a1, a2]}\n"
     "  - {name: rb, tier: 1, members: [b1, b2]}\n"
     "  - {name: top, tier: 2, members: [ra, rb]}\n"
     "podGroups:\n" PG("pg", ", minMember: 3, phase: Inqueue, networkTopology: {mode: hard,"
                             " highestTierAllowed: 1}") "pods:\n" POD("p1", "pg", "2")
         POD("p2", "pg", "2") POD("p3", "pg", "2"),
     TPH_WHY_TOPOLOGY, NULL,
     "hard network topology (highest tier 1): its pending tasks (cpu 6) found no place within "
     "one hypernode of tier 1 or below; the roomiest of 2, ra (tier 1, 2 nodes), has cpu 4 idle; "
     "needs 3, 0 placeable"},
};

/* Rows by value: a missing one fails the test. */
static tph_job_row row(const pts *p, const char *key)
{
	for (uint32_t i = 0; i < p->log->n_jobs; i++)
		if (!strcmp(p->log->jobs[i].podgroup, key))
			return p->log->jobs[i];
	fail_msg("no job row for %s", key);
	return (tph_job_row){0};
}

/* A row's cpu value; a missing row fails the test. */
static int64_t cpu(const int64_t *res)
{
	assert_non_null(res);
	return res ? res[TPH_RES_CPU] : -1;
}

static tph_queue_row qrow(const pts *p, const char *name)
{
	for (uint32_t i = 0; i < p->log->n_queues; i++)
		if (!strcmp(p->log->queues[i].name, name))
			return p->log->queues[i];
	fail_msg("no queue row for %s", name);
	return (tph_queue_row){0};
}

static void run_yaml(pts *p, const char *yaml)
{
	pts_open(p, yaml);
	pts_run(p);
}

static void test_case(void **state)
{
	const why_case *c = *state;
	pts p;
	run_yaml(&p, c->yaml);
	const tph_job_row r = row(&p, "ns/pg");
	assert_string_equal(tph_job_why_name(r.why), tph_job_why_name(c->why));
	assert_string_equal(r.message, c->message);
	if (c->plugin)
		assert_string_equal(r.plugin, c->plugin);
	else
		assert_null(r.plugin);
	pts_free(&p);
}

/* Two of three tasks fit: the counts, and the condition Volcano's gang plugin writes. */
static void test_gang_condition(void **state)
{
	(void)state;
	pts p;
	run_yaml(&p, SCN("enqueue, allocate", "", "[{name: q1}]")
	                 PG("pg", ", minMember: 3") "pods:\n" POD("p1", "pg", "3")
	                     POD("p2", "pg", "3") POD("p3", "pg", "3"));
	const tph_job_row r = row(&p, "ns/pg");
	assert_int_equal(r.why, TPH_WHY_GANG);
	assert_string_equal(r.message,
	                    "needs 3, 2 placeable: 1 task fit no node — 1 Insufficient cpu");
	assert_int_equal(r.placeable, 2);
	assert_int_equal(r.ready, 0);
	assert_int_equal(r.pending, 3);
	assert_int_equal(r.unfit, 1);
	assert_int_equal(r.tasks, 3);
	assert_int_equal(r.min_member, 3);
	assert_string_equal(r.cond_type, "Unschedulable");
	assert_string_equal(r.cond_reason, "NotEnoughResources");
	assert_string_equal(
	    r.cond_message,
	    "1/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, 3 "
	    "minAvailable; Pending: 1 Unschedulable, 2 Schedulable. Origin reason is "
	    "p3: 0/2 nodes are unavailable: 2 Insufficient cpu.");
	assert_string_equal(qrow(&p, "q1").summary, "q1: 1 job pending, 1 gang short");
	pts_free(&p);
}

/* A satisfied gang gets no Unschedulable condition even with a task left over. */
static void test_no_condition_when_ready(void **state)
{
	(void)state;
	pts p;
	run_yaml(&p, SCN("enqueue, allocate", "", "[{name: q1}]") PG(
	                 "pg", ", minMember: 1") "pods:\n" POD("a", "pg", "1") POD("b", "pg", "9"));
	assert_null(row(&p, "ns/pg").cond_type);
	pts_free(&p);
}

/* A plugin's own reason through the public API, and the plugin named as the refuser. */
static int deny_vote(void *st, const tph_session *s, tph_idx j)
{
	(void)st;
	tph_job_reason(s, j, "only %d jobs a day", 0);
	return TPH_REJECT;
}

static int deny_open(tph_session *s, void *st, const tph_args *args)
{
	(void)st;
	(void)args;
	return tph_on_job_enqueueable(s, deny_vote);
}

static const tph_plugin deny_plugin = {
    .abi = TPH_PLUGIN_ABI, .name = "jobwhy-deny", .on_session_open = deny_open};

static void test_plugin_reason(void **state)
{
	(void)state;
	tph_diag d = {0};
	assert_int_equal(tph_plugins_register(&deny_plugin, &d), TPH_OK);
	pts p;
	run_yaml(&p, "conf: |\n  actions: \"enqueue, allocate\"\n  tiers:\n  - plugins:\n"
	             "    - name: jobwhy-deny\n"
	             "queues: [{name: q1}]\n" NODES2
	             "podGroups:\n  - {name: pg, namespace: ns, queue: q1, minMember: 1,"
	             " minResources: {cpu: '1'}}\n"
	             "pods:\n" POD("a", "pg", "1"));
	const tph_job_row r = row(&p, "ns/pg");
	assert_string_equal(r.plugin, "jobwhy-deny");
	assert_string_equal(r.message, "not enqueued: jobwhy-deny: only 0 jobs a day");
	pts_free(&p);
}

/* Every queue gets a row, with allocated from its jobs' allocated tasks. */
static void test_queue_readout(void **state)
{
	(void)state;
	pts p;
	run_yaml(&p,
	         SCN("enqueue, allocate", "    - name: proportion\n",
	             "[{name: q1, weight: 3}, {name: idle}]")
	             PG("pg", ", minMember: 2") "pods:\n" POD("a", "pg", "2") POD("b", "pg", "2"));
	assert_int_equal(p.log->n_jobs, 0);
	const tph_queue_row q = qrow(&p, "q1");
	assert_int_equal(q.weight, 3);
	assert_int_equal(cpu(q.allocated), 4000);
	assert_int_equal(cpu(q.request), 4000);
	assert_int_equal(cpu(q.deserved), 4000);
	assert_true(q.share > 0.99 && q.share < 1.01);
	assert_string_equal(q.summary, "q1: no job pending");
	assert_int_equal(q.podgroups[TPH_PG_INQUEUE], 1); /* bound this session: not yet Running */
	assert_int_equal(q.podgroups[TPH_PG_PENDING] + q.podgroups[TPH_PG_RUNNING], 0);
	const tph_queue_row idle = qrow(&p, "idle");
	assert_null(idle.deserved); /* proportion reports only queues that have jobs */
	assert_true(idle.share < 0);
	assert_int_equal(cpu(idle.allocated), 0);
	assert_true(p.log->n_dims >= 2);
	assert_string_equal(p.log->dims[TPH_RES_CPU], "cpu");
	pts_free(&p);
}

static void test_why_names(void **state)
{
	(void)state;
	static const char *const want[] = {"Invalid",  "NotEnqueued", "QueueShare",  "Pipelined",
	                                   "Topology", "GangShort",   "Unplaceable", "NotTried"};
	for (int k = 0; k < TPH_WHY_COUNT; k++)
		assert_string_equal(tph_job_why_name((tph_job_why)k), want[k]);
	assert_null(tph_job_why_name(TPH_WHY_COUNT));
	assert_int_equal(tph_queue_report_set(NULL, 0, NULL), TPH_EINVAL);
}

/* The rows are the same with 1 and 4 threads. */
static void test_threads(void **state)
{
	(void)state;
	pts a, b;
	tph_session_opts one = {.threads = 1}, four = {.threads = 4};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		pts_open_with(&a, cases[i].yaml, &one);
		pts_run(&a);
		pts_open_with(&b, cases[i].yaml, &four);
		pts_run(&b);
		assert_int_equal(a.log->n_jobs, b.log->n_jobs);
		for (uint32_t k = 0; k < a.log->n_jobs; k++) {
			assert_string_equal(a.log->jobs[k].message, b.log->jobs[k].message);
			assert_true((a.log->jobs[k].cond_message == NULL) ==
			            (b.log->jobs[k].cond_message == NULL));
		}
		for (uint32_t k = 0; k < a.log->n_queues; k++)
			assert_string_equal(a.log->queues[k].summary, b.log->queues[k].summary);
		pts_free(&a);
		pts_free(&b);
	}
}

/* why_over's text, its names and figures cut where snprintf would cut them: a verb long
 * enough that three dimensions pass the names' 256 bytes. The expectation is made with
 * snprintf as why_over once made it. */
#define LONG_VERB                                                                            \
	"exceeds-its-limit-by-a-long-way-on-every-single-one-of-the-resources-it-asked-for-" \
	"in-this-queue"
static char over_want[512];

static void over_text(const tph_session *s, const why_over_args *a, char *out, size_t cap)
{
	char names[256] = "", nums[512] = "", x[48], y[48], z[48];
	size_t nn = 0, nm = 0;
	for (uint32_t d = 0; d < tph_view_of(s)->ndim; d++) {
		if (a->req[d] <= 0)
			continue;
		const char *dn = tph_session_dim_name(s, d);
		why_qty(s, d, a->base[d], x, sizeof x);
		why_qty(s, d, a->req[d], y, sizeof y);
		why_qty(s, d, a->limit[d], z, sizeof z);
		if (nn < sizeof names)
			nn += (size_t)snprintf(names + nn, sizeof names - nn, "%s%s %s",
			                       nn ? ", " : "", a->verb, dn);
		if (nm < sizeof nums)
			nm += (size_t)snprintf(nums + nm, sizeof nums - nm,
			                       "%s%s %s %s + %s requested > %s %s", nm ? ", " : "",
			                       dn, x, a->base_name, y, a->limit_name, z);
	}
	snprintf(out, cap, "%s: %s (%s: %s)", a->prefix, names, a->scope, nums);
}

static int over_vote(void *st, const tph_session *s, tph_idx j)
{
	(void)st;
	int64_t base[TPH_RES_MAX] = {0}, req[TPH_RES_MAX] = {0}, lim[TPH_RES_MAX] = {0};
	req[TPH_RES_CPU] = 1500, req[TPH_RES_MEMORY] = 1 << 20, req[TPH_RES_PODS] = 1000;
	why_over_args a = {"over", LONG_VERB, "scope", "used", "limit", base, req, lim};
	over_text(s, &a, over_want, sizeof over_want);
	why_over(s, j, &a);
	return TPH_REJECT;
}

static int over_open(tph_session *s, void *st, const tph_args *args)
{
	(void)st;
	(void)args;
	return tph_on_job_enqueueable(s, over_vote);
}

static const tph_plugin over_plugin = {
    .abi = TPH_PLUGIN_ABI, .name = "jobwhy-over", .on_session_open = over_open};

static void test_why_over_cut(void **state)
{
	(void)state;
	tph_diag d = {0};
	assert_int_equal(tph_plugins_register(&over_plugin, &d), TPH_OK);
	pts p;
	run_yaml(&p, "conf: |\n  actions: \"enqueue, allocate\"\n  tiers:\n  - plugins:\n"
	             "    - name: jobwhy-over\n"
	             "queues: [{name: q1}]\n" NODES2
	             "podGroups:\n  - {name: pg, namespace: ns, queue: q1, minMember: 1,"
	             " minResources: {cpu: '1'}}\n"
	             "pods:\n" POD("a", "pg", "1"));
	const tph_job_row r = row(&p, "ns/pg");
	const char *lead = "not enqueued: jobwhy-over: ";
	assert_true(strlen(over_want) > 300); /* the names were cut at 255 bytes */
	assert_int_equal(strncmp(r.message, lead, strlen(lead)), 0);
	size_t n = strlen(r.message + strlen(lead));
	assert_true(n > 300);
	assert_int_equal(strncmp(r.message + strlen(lead), over_want, n), 0);
	pts_free(&p);
}

int main(void)
{
	enum {
		N = sizeof cases / sizeof *cases
	};
	struct CMUnitTest tests[N + 7];
	for (int i = 0; i < N; i++) {
		tests[i] =
		    (struct CMUnitTest)cmocka_unit_test_prestate(test_case, (void *)&cases[i]);
		tests[i].name = cases[i].name;
	}
	const struct CMUnitTest more[] = {
	    cmocka_unit_test(test_gang_condition), cmocka_unit_test(test_no_condition_when_ready),
	    cmocka_unit_test(test_plugin_reason),  cmocka_unit_test(test_why_over_cut),
	    cmocka_unit_test(test_queue_readout),  cmocka_unit_test(test_why_names),
	    cmocka_unit_test(test_threads),
	};
	memcpy(tests + N, more, sizeof more);
	return _cmocka_run_group_tests("test_jobwhy", tests, N + 7, NULL, NULL);
}
