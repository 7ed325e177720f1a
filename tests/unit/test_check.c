/* The checker's v1.1 parts: expect.bindAnnotations against the annotations a bind carries (none
 * until a plugin sets some), probe.victimTasks against the VictimTasks vote (evtest's), and
 * limits, conditions, PDBs and extender answers leaving every decision as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "session/check_core.h"
#include "evict_test.h"

/* One allocate session over `body` (pods, expect, probe) with evtest's VictimTasks. */
static void run_checked(const char *body, tph_check_report *r, ev_run *p)
{
	char yaml[4096];
	snprintf(yaml, sizeof yaml,
	         "conf: |\n"
	         "  actions: allocate\n"
	         "  tiers:\n"
	         "  - plugins:\n"
	         "    - {name: evtest, arguments: {victimBelow: 50}}\n"
	         "queues: [{name: q1}]\n"
	         "nodes: [{name: n1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}]\n"
	         "podGroups: [{name: pg, namespace: c1, queue: q1, phase: Inqueue}]\n"
	         "%s",
	         body);
	memset(r, 0, sizeof *r);
	ev_open(p, yaml);
	tph_check_probe(p->scn, p->s, r);
	pts_run(p);
	tph_check_expect(p->scn, p->s, r);
}

static const char pods[] =
    "pods:\n"
    "  - {name: a, namespace: c1, podGroup: pg, phase: Running, nodeName: n1, priority: 10}\n"
    "  - {name: b, namespace: c1, podGroup: pg, phase: Running, nodeName: n1, priority: 100}\n"
    "  - {name: p1, namespace: c1, podGroup: pg, requests: {cpu: '1'}}\n"
    "  - {name: p2, namespace: c1, podGroup: pg, requests: {cpu: '3'}}\n";

static void expect_report(const tph_check_report *r, uint32_t failures, const char *const *lines)
{
	if (r->failures != failures)
		fail_msg("%u failures, want %u:\n%s", r->failures, failures, r->buf ? r->buf : "");
	for (; *lines; lines++)
		if (!r->buf || !strstr(r->buf, *lines))
			fail_msg("no \"%s\" in:\n%s", *lines, r->buf ? r->buf : "");
}

static void test_bind_annotations(void **state)
{
	(void)state;
	char body[2048];
	snprintf(body, sizeof body,
	         "%sexpect:\n"
	         "  binds: {c1/p1: n1}\n"
	         "  bindAnnotations:\n"
	         "    c1/p1: {volcano.sh/gpu-index: \"0\"}\n"
	         "    c1/p2: {}\n",
	         pods);
	tph_check_report r;
	ev_run p;
	run_checked(body, &r, &p);
	const char *want[] = {
	    "bindAnnotations: c1/p1: bind annotation volcano.sh/gpu-index missing",
	    "bindAnnotations: c1/p2 expected bound, not bound", NULL};
	expect_report(&r, 2, want);
	/* As a plugin would have set them on the bind: a wrong value, then the right one. */
	tph_kv set[] = {{"volcano.sh/bind-phase", "allocating"}, {"volcano.sh/gpu-index", "1"}};
	tph_decision *row = (tph_decision *)&p.log->binds[0];
	row->annotations = (tph_kv_list){set, 2};
	tph_report_free(&r);
	tph_check_expect(p.scn, p.s, &r);
	const char *differs[] = {
	    "bindAnnotations: c1/p1: bind annotation volcano.sh/gpu-index is \"1\", expected \"0\"",
	    NULL};
	expect_report(&r, 2, differs);
	set[1].value = "0";
	tph_report_free(&r);
	tph_check_expect(p.scn, p.s, &r);
	const char *bound[] = {"c1/p2 expected bound", NULL};
	expect_report(&r, 1, bound); /* keys not listed (bind-phase) are not checked */
	tph_report_free(&r);
	pts_free(&p);
}

static void test_victim_tasks(void **state)
{
	(void)state;
	char body[2048];
	snprintf(body, sizeof body,
	         "%sprobe:\n"
	         "  victimTasks:\n"
	         "    - {candidates: [c1/b, c1/a], victims: [c1/a]}\n"
	         "    - {candidates: [c1/b], victims: []}\n"
	         "    - {candidates: [], victims: []}\n"
	         "    - {candidates: [c1/a, c1/b], victims: [c1/b]}\n",
	         pods);
	tph_check_report r;
	ev_run p;
	run_checked(body, &r, &p);
	const char *want[] = {"victimTasks: c1/a expected not a victim, got a victim",
	                      "victimTasks: c1/b expected a victim, got not", NULL};
	expect_report(&r, 2, want);
	tph_report_free(&r);
	pts_free(&p);
}

/* enabledVictim off: evtest's VictimTasks is not called, nobody is a victim. */
static void test_victim_tasks_flag_off(void **state)
{
	(void)state;
	char yaml[2048];
	snprintf(yaml, sizeof yaml,
	         "conf: |\n"
	         "  actions: \"\"\n"
	         "  tiers:\n"
	         "  - plugins:\n"
	         "    - {name: evtest, enabledVictim: false, arguments: {victimBelow: 50}}\n"
	         "queues: [{name: q1}]\n"
	         "nodes: [{name: n1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}]\n"
	         "podGroups: [{name: pg, namespace: c1, queue: q1, phase: Inqueue}]\n"
	         "%sprobe:\n"
	         "  victimTasks: [{candidates: [c1/a, c1/b], victims: [c1/a]}]\n",
	         pods);
	ev_run p;
	ev_open(&p, yaml);
	tph_check_report r = {0};
	tph_check_probe(p.scn, p.s, &r);
	const char *want[] = {"victimTasks: c1/a expected a victim, got not", NULL};
	expect_report(&r, 1, want);
	tph_report_free(&r);
	pts_free(&p);
}

/* The same session with and without limits, conditions, PDBs and extender answers: the same
 * binds (a limit far above the node is no request). */
static void test_v11_keys_change_no_decision(void **state)
{
	(void)state;
	static const char extra[] =
	    "  - {name: p3, namespace: c1, podGroup: pg, requests: {cpu: '1'}, limits: {cpu: '64',"
	    " nvidia.com/gpu: '8'},\n"
	    "     conditions: [{type: PodScheduled, status: \"False\", reason: Unschedulable}]}\n"
	    "podDisruptionBudgets: [{name: b, namespace: c1, selector: {matchLabels: {}},"
	    " disruptionsAllowed: 0}]\n"
	    "extenderResponses: {predicate: {status: 500, body: {status: no}}}\n";
	const char *plain = "  - {name: p3, namespace: c1, podGroup: pg, requests: {cpu: '1'}}\n";
	char body[2][2048];
	snprintf(body[0], sizeof body[0], "%s%s", pods, plain);
	snprintf(body[1], sizeof body[1], "%s%s", pods, extra);
	char binds[2][256] = {"", ""};
	for (int k = 0; k < 2; k++) {
		tph_check_report r;
		ev_run p;
		run_checked(body[k], &r, &p);
		for (uint32_t i = 0; i < p.log->n_binds; i++) {
			size_t l = strlen(binds[k]);
			snprintf(binds[k] + l, sizeof binds[k] - l, "%s@%s;", p.log->binds[i].pod,
			         p.log->binds[i].node);
			assert_int_equal(p.log->binds[i].annotations.n, 0);
		}
		tph_report_free(&r);
		pts_free(&p);
	}
	assert_string_equal(binds[0], "c1/p1@n1;c1/p3@n1;");
	assert_string_equal(binds[1], binds[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bind_annotations),
	    cmocka_unit_test(test_victim_tasks),
	    cmocka_unit_test(test_victim_tasks_flag_off),
	    cmocka_unit_test(test_v11_keys_change_no_decision),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
