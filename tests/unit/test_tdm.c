/* Unit tests for plugins/tdm: revocable-zone windows on the session clock (UTC, the end on the
 * next day when it is not after the start, both ends included), the errors of bad windows and
 * unknown zones as predicate reasons, which tasks may use revocable nodes, the node score,
 * Preemptable and VictimTasks within the podgroup disruption budgets, the evict period, and the
 * job order, pipelined and starving rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

/* A scenario at clock `now` with tdm's `args` (YAML flow entries) and the given objects. */
static void open_tdm(pts *p, const char *now, const char *args, const char *objects)
{
	char yaml[8192];
	snprintf(yaml, sizeof yaml,
	         "now: '%s'\n"
	         "enableFlagsDefault: false\n"
	         "conf: |\n"
	         "  actions: \"\"\n"
	         "  tiers:\n"
	         "  - plugins:\n"
	         "    - name: tdm\n"
	         "      enablePredicate: true\n"
	         "      enableNodeOrder: true\n"
	         "      enablePreemptable: true\n"
	         "      enabledVictim: true\n"
	         "      enableJobOrder: true\n"
	         "      enableJobPipelined: true\n"
	         "      enableJobStarving: true\n"
	         "      arguments: {%s}\n"
	         "queues: [{name: q1}]\n"
	         "%s",
	         now, args, objects);
	pts_open(p, yaml);
}

#define NODE(name, zone)                                                          \
	"  - {name: " name ", allocatable: {cpu: '16', memory: 64Gi, pods: '20'}" \
	", labels: {volcano.sh/revocable-zone: " zone "}}\n"
#define PLAIN(name) "  - {name: " name ", allocatable: {cpu: '16', memory: 64Gi, pods: '20'}}\n"

/* One pending pod `p` that may use revocable nodes and one `q` that may not. */
static const char one_node_each[] = "nodes:\n" NODE("n-rz", "rz")
    PLAIN("n-plain") "pods:\n"
                     "  - {name: p, namespace: ns, requests: {cpu: '1'},"
                     " annotations: {volcano.sh/revocable-zone: '*'}}\n"
                     "  - {name: q, namespace: ns, requests: {cpu: '1'}}\n";

/* Whether p passes on n-rz, at clock `now` with rz's window `win`. */
static bool open_at(const char *now, const char *win)
{
	char args[256];
	snprintf(args, sizeof args, "tdm.revocable-zone.rz: '%s'", win);
	pts p;
	open_tdm(&p, now, args, one_node_each);
	tph_reason_code why[2];
	tph_idx feas[2];
	uint32_t k = tph_filter_nodes(p.s, pts_task(&p, "ns/p"), p.s->ready_nodes, 2, why, feas);
	pts_free(&p);
	return k == 2;
}

static void test_windows_on_the_session_clock(void **state)
{
	(void)state;
	assert_true(open_at("2026-01-01T12:00:00Z", "10:00-21:00"));
	assert_false(open_at("2026-01-01T09:59:59Z", "10:00-21:00"));
	/* Both ends are included, in whole seconds. */
	assert_true(open_at("2026-01-01T10:00:00Z", "10:00-21:00"));
	assert_true(open_at("2026-01-01T21:00:00.999Z", "10:00-21:00"));
	assert_false(open_at("2026-01-01T21:00:01Z", "10:00-21:00"));
	/* An end not after the start is tomorrow's: from 22:00 to midnight only, since the start
	 * is always today's (Volcano's parseRevocableZone). */
	assert_true(open_at("2026-01-01T23:00:00Z", "22:00-06:00"));
	assert_false(open_at("2026-01-01T03:00:00Z", "22:00-06:00"));
	assert_true(open_at("2026-01-01T00:00:00Z", "0:00-0:00"));
	assert_true(open_at("2026-01-01T23:59:59Z", "0:00-0:00"));
	assert_true(open_at("2026-01-01T12:00:00Z", "12:00-12:00"));
	assert_false(open_at("2026-01-01T11:59:59Z", "12:00-12:00"));
	/* Surrounding spaces go; the hour may have one digit. */
	assert_true(open_at("2026-01-01T12:00:00Z", "   1:00-23:00   "));
	/* Before the epoch the day still starts at midnight UTC. */
	assert_true(open_at("1969-12-31T12:00:00Z", "10:00-21:00"));
	assert_false(open_at("1969-12-31T22:00:00Z", "10:00-21:00"));
}

/* The predicate's reason for p on n-rz when rz's window is `win` (or no zone is named). */
static void expect_reason(const char *args, const char *text)
{
	pts p;
	open_tdm(&p, "2026-01-01T12:00:00Z", args, one_node_each);
	tph_reason_code why[2];
	tph_idx feas[2];
	assert_int_equal(
	    tph_filter_nodes(p.s, pts_task(&p, "ns/p"), p.s->ready_nodes, 2, why, feas), 1);
	assert_int_equal(feas[0], pts_node(&p, "n-plain"));
	assert_string_equal(tph_reason_text(p.s, why[0]), text);
	assert_true(tph_reason_unresolvable(p.s, why[0]));
	pts_free(&p);
}

static void test_reasons(void **state)
{
	(void)state;
	expect_reason("tdm.revocable-zone.rz: '0:00-0:01'",
	              "current time beyond revocable zone rz:0:00-0:01");
	expect_reason("tdm.revocable-zone.rz: '00:00_01:00'",
	              "revocable zone 00:00_01:00 format error");
	expect_reason("tdm.revocable-zone.rz: '1:00-2:00-3:00'",
	              "revocable zone 1:00-2:00-3:00 format error");
	expect_reason("tdm.revocable-zone.rz: '1:0-0:0'",
	              "parsing time \"1:0\" as \"15:04\": cannot parse \"0\" as \"04\"");
	expect_reason("tdm.revocable-zone.rz: '63:59-23:59'",
	              "parsing time \"63:59\": hour out of range");
	expect_reason("tdm.revocable-zone.rz: '10:61-23:59'",
	              "parsing time \"10:61\": minute out of range");
	expect_reason("tdm.revocable-zone.rz: '10:00 - 11:00'",
	              "parsing time \"10:00 \": extra text: \" \"");
	expect_reason("tdm.revocable-zone.rz: 'a-11:00'",
	              "parsing time \"a\" as \"15:04\": cannot parse \"a\" as \"15\"");
	expect_reason("tdm.revocable-zone.rz: '10.00-11:00'",
	              "parsing time \"10.00\" as \"15:04\": cannot parse \".00\" as \":\"");
	/* A zone that no argument names; a value that is not a string names none either. */
	expect_reason("tdm.revocable-zone.other: '0:00-0:00'", "revocable zone rz not support");
	expect_reason("tdm.revocable-zone.rz: 5", "revocable zone rz not support");
}

static void test_key_contains_prefix(void **state)
{
	(void)state;
	/* Volcano takes every key containing the prefix and cuts its first occurrence. */
	pts p;
	open_tdm(
	    &p, "2026-01-01T12:00:00Z", "x.tdm.revocable-zone.rz: '0:00-0:00'",
	    "nodes:\n" NODE("n1", "x.rz") "pods: [{name: p, namespace: ns,"
	                                  " annotations: {volcano.sh/revocable-zone: '*'}}]\n");
	tph_reason_code why[1];
	tph_idx feas[1];
	assert_int_equal(
	    tph_filter_nodes(p.s, pts_task(&p, "ns/p"), p.s->ready_nodes, 1, why, feas), 1);
	pts_free(&p);
}

static void test_who_may_use_revocable_nodes(void **state)
{
	(void)state;
	pts p;
	open_tdm(&p, "2026-01-01T12:00:00Z", "tdm.revocable-zone.rz: '0:00-0:00'",
	         "nodes:\n" NODE("n-rz", "rz")
	             PLAIN("n-plain") "pods:\n"
	                              "  - {name: star, namespace: ns, annotations: "
	                              "{volcano.sh/revocable-zone: '*'}}\n"
	                              "  - {name: pre, namespace: ns, annotations: "
	                              "{volcano.sh/preemptable: 'True'}}\n"
	                              "  - {name: named, namespace: ns, annotations: "
	                              "{volcano.sh/revocable-zone: rz,"
	                              " volcano.sh/preemptable: 'true'}}\n"
	                              "  - {name: label, namespace: ns, labels: "
	                              "{volcano.sh/preemptable: 'true'}}\n"
	                              "  - {name: plain, namespace: ns}\n");
	static const struct {
		const char *pod;
		bool may;
	} cases[] = {{"ns/star", true},
	             {"ns/pre", true},
	             {"ns/named", false},
	             {"ns/label", false},
	             {"ns/plain", false}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		tph_reason_code why[2];
		tph_idx feas[2];
		tph_idx t = pts_task(&p, cases[i].pod);
		uint32_t k = tph_filter_nodes(p.s, t, p.s->ready_nodes, 2, why, feas);
		assert_int_equal(k, cases[i].may ? 2 : 1);
		if (!cases[i].may)
			assert_string_equal(tph_reason_text(p.s, why[0]),
			                    "not allow to dispatch to revocable node");
		double sc[2];
		tph_score_nodes(p.s, t, p.s->ready_nodes, 2, sc);
		assert_true(sc[0] == (cases[i].may ? 100.0 : 0.0) && sc[1] == 0.0);
		/* Only tasks that read their zone on an open node are not node-local. */
		assert_int_equal(tph_score_locality(p.s, t),
		                 cases[i].may ? TPH_SCORE_GLOBAL : TPH_SCORE_LOCAL);
	}
	pts_free(&p);
}

/* ---- victims ---- */

#define RUN(name, pg, node, pre)                                                                \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", phase: Running, nodeName: " node \
	", requests: {cpu: '1'}, annotations: {volcano.sh/preemptable: '" pre "'}}\n"

/* Two jobs on plain n1 and on rz node n2 (window closed at noon). */
static const char victims_objects[] = "nodes:\n" PLAIN("n1")
    NODE("n2", "rz") "podGroups:\n"
                     "  - {name: a, namespace: ns, queue: q1, minMember: 0,"
                     " annotations: {volcano.sh/jdb-max-unavailable: '50%'}}\n"
                     "  - {name: b, namespace: ns, queue: q1, minMember: 0,"
                     " annotations: {volcano.sh/jdb-min-available: '1'}}\n"
                     "pods:\n" RUN("a1", "a", "n1", "true") RUN("a2", "a", "n1", "true")
                         RUN("a3", "a", "n1", "false") RUN("a4", "a", "n2", "true")
                             RUN("a5", "a", "n2", "true") RUN("a6", "a", "n2", "true")
                                 RUN("b1", "b", "n1", "true") RUN("b2", "b", "n2", "true") RUN(
                                     "b3", "b", "n2",
                                     "true") "  - {name: idle, namespace: ns, podGroup: b, phase: "
                                             "Pending, requests: {cpu: '1'}}\n"
                                             "  - {name: rz, namespace: ns, podGroup: b, phase: "
                                             "Pending, requests: {cpu: '1'},"
                                             " annotations: {volcano.sh/revocable-zone: '*', "
                                             "volcano.sh/preemptable: 'false'}}\n"
                                             "  - {name: hog, namespace: ns, podGroup: b, phase: "
                                             "Pending, requests: {cpu: '1'},"
                                             " annotations: {volcano.sh/preemptable: 'false'}}\n";

static void expect_keep(pts *p, const char *preemptor, const char *const *cands, uint32_t n,
                        const char *want)
{
	tph_idx c[16], out[16];
	for (uint32_t i = 0; i < n; i++)
		c[i] = pts_task(p, cands[i]);
	uint32_t k = tph_preemptable(p->s, pts_task(p, preemptor), c, n, out);
	char got[256] = "";
	for (uint32_t i = 0; i < k; i++) {
		strcat(got, i ? " " : "");
		strcat(got, pts_str(p->s, p->s->tasks.name[out[i]]));
	}
	assert_string_equal(got, want);
}

static void test_preemptable(void **state)
{
	(void)state;
	pts p;
	open_tdm(&p, "2026-01-01T12:00:00Z", "tdm.revocable-zone.rz: '0:00-0:01'", victims_objects);
	static const char *const all[] = {"ns/a1", "ns/a2", "ns/a3", "ns/a4", "ns/a5",
	                                  "ns/a6", "ns/b1", "ns/b2", "ns/b3"};
	/* Preemptable tasks and tasks that may use revocable nodes preempt nobody. */
	expect_keep(&p, "ns/idle", all, 9, "");
	expect_keep(&p, "ns/rz", all, 9, "");
	/* Preemptable Running tasks on nodes without a zone, within each job's budget: a may lose
	 * ceil(50% of 6) = 3 minus none unavailable; b keeps min-available 1 of its 3 running. */
	expect_keep(&p, "ns/hog", all, 9, "a1 a2 b1");
	/* The budget counts in candidate order. */
	static const char *const rev[] = {"ns/a2", "ns/a1"};
	expect_keep(&p, "ns/hog", rev, 2, "a2 a1");
	/* A task already going counts against the max-unavailable budget. */
	pts_set_status(&p, pts_task(&p, "ns/a4"), TPH_TS_RELEASING);
	pts_set_status(&p, pts_task(&p, "ns/a5"), TPH_TS_RELEASING);
	expect_keep(&p, "ns/hog", all, 9, "a1 b1");
	pts_set_status(&p, pts_task(&p, "ns/a6"), TPH_TS_RELEASING);
	expect_keep(&p, "ns/hog", all, 9, "b1");
	pts_free(&p);
}

static uint32_t victim_tasks(pts *p, char *got, size_t cap)
{
	tph_idx t[32] = {0};
	uint8_t v[32] = {0};
	uint32_t n = 0;
	for (tph_idx i = 0; i < p->s->tasks.n && n < 32; i++)
		if (p->s->tasks.status[i] == TPH_TS_RUNNING)
			t[n++] = i;
	uint32_t k = tph_victim_tasks(p->s, t, n, v);
	got[0] = 0;
	for (uint32_t i = 0; i < n; i++)
		if (v[i]) {
			strncat(got, got[0] ? " " : "", cap - strlen(got) - 1);
			strncat(got, pts_str(p->s, p->s->tasks.name[t[i]]), cap - strlen(got) - 1);
		}
	return k;
}

static void test_victim_tasks_and_period(void **state)
{
	(void)state;
	char got[256];
	pts p;
	/* rz is closed at noon: its preemptable tasks go, within each job's budget. */
	open_tdm(&p, "2026-01-01T12:00:00Z", "tdm.revocable-zone.rz: '0:00-0:01'", victims_objects);
	assert_int_equal(victim_tasks(&p, got, sizeof got), 5);
	assert_string_equal(got, "a4 a5 a6 b2 b3");
	/* Within the evict period (1m by default, and the clock stands still): nothing. */
	assert_int_equal(victim_tasks(&p, got, sizeof got), 0);
	pts_free(&p);
	/* Open: nothing; a zero period evicts at every call. */
	open_tdm(&p, "2026-01-01T00:00:30Z", "tdm.revocable-zone.rz: '0:00-0:01'", victims_objects);
	assert_int_equal(victim_tasks(&p, got, sizeof got), 0);
	pts_free(&p);
	open_tdm(&p, "2026-01-01T12:00:00Z",
	         "tdm.revocable-zone.rz: '0:00-0:01', tdm.evict.period: 0s", victims_objects);
	assert_int_equal(victim_tasks(&p, got, sizeof got), 5);
	assert_int_equal(victim_tasks(&p, got, sizeof got), 5);
	pts_free(&p);
	/* An invalid period is the default minute. */
	open_tdm(&p, "2026-01-01T12:00:00Z",
	         "tdm.revocable-zone.rz: '0:00-0:01', tdm.evict.period: soon", victims_objects);
	assert_int_equal(victim_tasks(&p, got, sizeof got), 5);
	assert_int_equal(victim_tasks(&p, got, sizeof got), 0);
	pts_free(&p);
	/* A zone no argument names is never walked. */
	open_tdm(&p, "2026-01-01T12:00:00Z", "tdm.revocable-zone.other: '0:00-0:01'",
	         victims_objects);
	assert_int_equal(victim_tasks(&p, got, sizeof got), 0);
	pts_free(&p);
}

/* Job b with these annotations: three preemptable tasks on the closed zone's node n2, b0 on
 * n1 Succeeded, b4 Pending. */
static void budget_open(pts *p, const char *anno)
{
	char objects[2048];
	snprintf(
	    objects, sizeof objects,
	    "nodes:\n" PLAIN("n1") NODE(
	        "n2",
	        "rz") "podGroups:\n"
	              "  - {name: b, namespace: ns, queue: q1, minMember: 0, annotations: {%s}}\n"
	              "pods:\n" RUN("b1", "b", "n2", "true") RUN("b2", "b", "n2", "true") RUN(
	                  "b3", "b", "n2",
	                  "true") "  - {name: b0, namespace: ns, podGroup: b, phase: Succeeded, "
	                          "nodeName: n1}\n"
	                          "  - {name: b4, namespace: ns, podGroup: b, phase: Pending}\n",
	    anno);
	open_tdm(p, "2026-01-01T12:00:00Z", "tdm.revocable-zone.rz: '0:00-0:01'", objects);
}

/* How many of b's tasks on n2 go under the annotations. */
static uint32_t budget_victims(const char *anno)
{
	pts p;
	budget_open(&p, anno);
	char got[256];
	uint32_t k = victim_tasks(&p, got, sizeof got);
	pts_free(&p);
	return k;
}

/* Like Volcano, VictimTasks ignores the tasks it is given: within the budget the session's
 * first tasks go (Volcano: map order), and only those among the tasks given are named. */
static void test_victims_ignore_the_tasks_given(void **state)
{
	(void)state;
	pts p;
	budget_open(&p, "volcano.sh/jdb-max-unavailable: '3'"); /* 2 go: b1, b2 */
	tph_idx some[2] = {pts_task(&p, "ns/b3"), pts_task(&p, "ns/b2")};
	uint8_t v[2] = {0, 0};
	assert_int_equal(tph_victim_tasks(p.s, some, 2, v), 1);
	assert_true(!v[0] && v[1]);
	pts_free(&p);
}

static void test_budgets(void **state)
{
	(void)state;
	/* No budget: one per job. */
	assert_int_equal(budget_victims(""), 1);
	/* max-unavailable: the value less the tasks neither running nor finished (b4). */
	assert_int_equal(budget_victims("volcano.sh/jdb-max-unavailable: '3'"), 2);
	assert_int_equal(budget_victims("volcano.sh/jdb-max-unavailable: '1'"), 0);
	/* A percentage of all five tasks, rounded up: 50% is 3; '%' anywhere reads as one. */
	assert_int_equal(budget_victims("volcano.sh/jdb-max-unavailable: '50%'"), 2);
	assert_int_equal(budget_victims("volcano.sh/jdb-max-unavailable: '%50'"), 2);
	assert_int_equal(budget_victims("volcano.sh/jdb-max-unavailable: '41%'"), 2);
	assert_int_equal(budget_victims("volcano.sh/jdb-max-unavailable: '40%'"), 1);
	/* Too big for an int32: a percentage (of 5 tasks, all of them). */
	assert_int_equal(budget_victims("volcano.sh/jdb-max-unavailable: '5000000000'"), 3);
	/* Invalid: 0. */
	assert_int_equal(budget_victims("volcano.sh/jdb-max-unavailable: 'x'"), 0);
	/* min-available: running less the minimum; below it, the default one. */
	assert_int_equal(budget_victims("volcano.sh/jdb-min-available: '1'"), 2);
	assert_int_equal(budget_victims("volcano.sh/jdb-min-available: '3'"), 0);
	assert_int_equal(budget_victims("volcano.sh/jdb-min-available: '4'"), 1);
	assert_int_equal(budget_victims("volcano.sh/jdb-min-available: '20%'"), 2);
	/* min-available wins over max-unavailable, even empty (then no budget). */
	assert_int_equal(budget_victims("volcano.sh/jdb-min-available: '3',"
	                                " volcano.sh/jdb-max-unavailable: '3'"),
	                 0);
	assert_int_equal(budget_victims("volcano.sh/jdb-min-available: '',"
	                                " volcano.sh/jdb-max-unavailable: '3'"),
	                 1);
}

/* ---- jobs ---- */

static void test_jobs(void **state)
{
	(void)state;
	pts p;
	open_tdm(
	    &p, "2026-01-01T12:00:00Z", "",
	    "nodes:\n" PLAIN(
	        "n1") "podGroups:\n"
	              "  - {name: pre, namespace: ns, queue: q1, minMember: 2,"
	              " annotations: {volcano.sh/preemptable: 'true'}}\n"
	              "  - {name: std, namespace: ns, queue: q1, minMember: 2}\n"
	              "  - {name: bad, namespace: ns, queue: q1, minMember: 1,"
	              " annotations: {volcano.sh/preemptable: 'maybe'}}\n"
	              "pods:\n"
	              "  - {name: p1, namespace: ns, podGroup: pre, requests: {cpu: '1'}}\n"
	              "  - {name: p2, namespace: ns, podGroup: pre}\n"
	              "  - {name: s1, namespace: ns, podGroup: std, requests: {cpu: '1'}}\n"
	              "  - {name: s2, namespace: ns, podGroup: std, phase: Running, nodeName: n1,"
	              " requests: {cpu: '1'}}\n"
	              "  - {name: b1, namespace: ns, podGroup: bad, phase: Running, nodeName: n1,"
	              " requests: {cpu: '1'}}\n");
	tph_idx pre = pts_job(&p, "ns/pre"), std = pts_job(&p, "ns/std"),
	        bad = pts_job(&p, "ns/bad");
	/* Preemptable jobs last; an invalid value is not preemptable. */
	assert_true(tph_job_order_cmp_plugins(p.s, std, pre) < 0);
	assert_true(tph_job_order_cmp_plugins(p.s, pre, std) > 0);
	assert_int_equal(tph_job_order_cmp_plugins(p.s, std, bad), 0);
	/* Starving: a job that is not preemptable while it has Pending tasks. */
	assert_false(tph_job_starving(p.s, pre));
	assert_true(tph_job_starving(p.s, std));
	assert_false(tph_job_starving(p.s, bad));
	/* Pipelined: pipelined + ready + Pending best-effort tasks reach minMember. */
	assert_false(tph_job_pipelined(p.s, std));
	assert_false(tph_job_pipelined(p.s, pre)); /* p2 is best-effort: 1 of 2 */
	pts_set_status(&p, pts_task(&p, "ns/s1"), TPH_TS_PIPELINED);
	assert_true(tph_job_pipelined(p.s, std));
	pts_set_status(&p, pts_task(&p, "ns/p1"), TPH_TS_ALLOCATED);
	assert_true(tph_job_pipelined(p.s, pre));
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_windows_on_the_session_clock),
	    cmocka_unit_test(test_reasons),
	    cmocka_unit_test(test_key_contains_prefix),
	    cmocka_unit_test(test_who_may_use_revocable_nodes),
	    cmocka_unit_test(test_preemptable),
	    cmocka_unit_test(test_victim_tasks_and_period),
	    cmocka_unit_test(test_budgets),
	    cmocka_unit_test(test_victims_ignore_the_tasks_given),
	    cmocka_unit_test(test_jobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
