/* Unit tests for plugins/cdp: a Running pod is protected from Preemptable and Reclaimable while
 * its PodScheduled=True transition plus volcano.sh/cooldown-time (label first, then annotation)
 * falls after the session clock; the exact boundary, durations that do not parse, pods in other
 * phases (a deleting Running pod keeps its phase), conditions that are missing, not True or
 * without a time, negative durations, and no VictimTasks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

/* A scenario at 00:20:00 with cdp's two points on and the given pods (YAML list entries); pod
 * "pre" is the preemptor. */
static void open_cdp(pts *p, const char *pods)
{
	char yaml[8192];
	snprintf(yaml, sizeof yaml,
	         "now: '2026-01-01T00:20:00Z'\n"
	         "enableFlagsDefault: false\n"
	         "conf: |\n"
	         "  actions: \"\"\n"
	         "  tiers:\n"
	         "  - plugins:\n"
	         "    - name: cdp\n"
	         "      enablePreemptable: true\n"
	         "      enableReclaimable: true\n"
	         "      enabledVictim: true\n"
	         "queues: [{name: default}]\n"
	         "nodes: [{name: n1, allocatable: {cpu: '8', pods: '20'}}]\n"
	         "pods:\n"
	         "  - {name: pre, namespace: ns}\n"
	         "%s",
	         pods);
	pts_open(p, yaml);
}

/* A pod in `phase` on n1 with `meta` (YAML flow keys) and a PodScheduled condition `cond`. */
#define POD(name, phase, meta, cond)                                                     \
	"  - {name: " name ", namespace: ns, phase: " phase ", nodeName: n1, " meta ", " \
	"conditions: [" cond "]}\n"
#define COOL(v)        "annotations: {volcano.sh/cooldown-time: '" v "'}"
#define SCHED(at)      "{type: PodScheduled, status: 'True', lastTransitionTime: '" at "'}"
#define SCHED_NO(at)   "{type: PodScheduled, status: 'False', lastTransitionTime: '" at "'}"
#define READY_ONLY(at) "{type: Ready, status: 'True', lastTransitionTime: '" at "'}"

/* The victims among the space-separated pod names `cands`, by Preemptable (or Reclaimable), as
 * names in candidate order. */
static const char *victims(pts *p, bool reclaim, const char *cands, char *got, size_t cap)
{
	tph_idx c[16], out[16], pre = pts_task(p, "ns/pre");
	uint32_t n = pts_tasks(p, "ns", cands, c, 16);
	uint32_t k =
	    reclaim ? tph_reclaimable(p->s, pre, c, n, out) : tph_preemptable(p->s, pre, c, n, out);
	return pts_task_names(p, out, k, got, cap);
}

/* Preemptable and Reclaimable both give `want`. */
static void expect(pts *p, const char *cands, const char *want)
{
	char got[256];
	for (int reclaim = 0; reclaim < 2; reclaim++)
		if (strcmp(victims(p, reclaim, cands, got, sizeof got), want))
			fail_msg("%s over [%s]: got [%s], want [%s]",
			         reclaim ? "Reclaimable" : "Preemptable", cands, got, want);
}

static void test_cooldown_on_the_session_clock(void **state)
{
	(void)state;
	pts p;
	open_cdp(&p, POD("cool", "Running", COOL("600s"), SCHED("2026-01-01T00:18:20Z"))
	                 POD("done", "Running", COOL("600s"), SCHED("2026-01-01T00:06:40Z"))
	                     POD("bad", "Running", COOL("600abcde"), SCHED("2026-01-01T00:18:20Z"))
	                         POD("free", "Running", "labels: {app: a}",
	                             SCHED("2026-01-01T00:19:59Z")));
	expect(&p, "cool done bad free", "done bad free");
	expect(&p, "cool", "");
	pts_free(&p);
}

static void test_boundary_is_strict(void **state)
{
	(void)state;
	pts p;
	/* 00:10:00 + 10m is exactly now: not after it, so no protection; a millisecond later is;
	 * durations count to the nanosecond. */
	open_cdp(&p, POD("equal", "Running", COOL("10m"), SCHED("2026-01-01T00:10:00Z"))
	                 POD("later", "Running", COOL("10m"), SCHED("2026-01-01T00:10:00.001Z"))
	                     POD("ns1", "Running", COOL("10m1ns"), SCHED("2026-01-01T00:10:00Z"))
	                         POD("mixed", "Running", COOL("9m59.999s"),
	                             SCHED("2026-01-01T00:10:00.002Z")));
	expect(&p, "equal later ns1 mixed", "equal");
	pts_free(&p);
}

static void test_label_before_annotation(void **state)
{
	(void)state;
	pts p;
	open_cdp(&p, POD("lab", "Running", "labels: {volcano.sh/cooldown-time: 1s}, " COOL("1h"),
	                 SCHED("2026-01-01T00:19:00Z"))
	                 POD("ann", "Running", "labels: {app: a}, " COOL("1h"),
	                     SCHED("2026-01-01T00:19:00Z"))
	                     POD("badlab", "Running",
	                         "labels: {volcano.sh/cooldown-time: soon}, " COOL("1h"),
	                         SCHED("2026-01-01T00:19:00Z")));
	/* The label decides when present, even when it does not parse. */
	expect(&p, "lab ann badlab", "lab badlab");
	pts_free(&p);
}

/* Pods in phases other than Running, and deleting ones (Releasing) in both phases. */
static const char phases[] = POD("run", "Running", COOL("1h"), SCHED("2026-01-01T00:19:00Z"))
    POD("bound", "Pending", COOL("1h"), SCHED("2026-01-01T00:19:00Z"))
        POD("unknown", "Unknown", COOL("1h"), SCHED("2026-01-01T00:19:00Z")) POD(
            "leaving", "Running", "deleting: true, " COOL("1h"), SCHED("2026-01-01T00:19:00Z"))
            POD("gone", "Pending", "deleting: true, " COOL("1h"), SCHED("2026-01-01T00:19:00Z"));

static void test_only_running_pods(void **state)
{
	(void)state;
	pts p;
	open_cdp(&p, phases);
	/* A deleting Running pod is Releasing but still in phase Running, which Volcano reads; a
	 * deleting Pending pod is Releasing too, and not protected. */
	expect(&p, "run bound unknown leaving gone", "bound unknown gone");
	/* Protection follows the pod, not the task's status in the session. */
	pts_set_status(&p, pts_task(&p, "ns/run"), TPH_TS_RELEASING);
	expect(&p, "run bound", "bound");
	pts_free(&p);
}

static const char conditions[] =
    POD("false", "Running", COOL("1h"), SCHED_NO("2026-01-01T00:19:00Z"))
        POD("ready", "Running", COOL("1h"), READY_ONLY("2026-01-01T00:19:00Z"))
            POD("both", "Running", COOL("1h"),
                READY_ONLY("2025-01-01T00:00:00Z") ", " SCHED("2026-01-01T00:19:00Z"))
                POD("notime", "Running", COOL("1000000h"), "{type: PodScheduled, status: 'True'}");

static void test_conditions(void **state)
{
	(void)state;
	pts p;
	open_cdp(&p, conditions);
	/* Without a transition time the condition holds Go's zero time, far in the past. */
	expect(&p, "false ready both notime", "false ready notime");
	pts_free(&p);
}

static void test_negative_and_zero_durations(void **state)
{
	(void)state;
	pts p;
	open_cdp(&p, POD("neg", "Running", COOL("-1h"), SCHED("2026-01-01T02:00:00Z"))
	                 POD("negpast", "Running", COOL("-1h"), SCHED("2026-01-01T00:30:00Z"))
	                     POD("zero", "Running", COOL("0"), SCHED("2026-01-01T00:20:00.001Z")));
	/* A transition in the future (a clock skew) plus a negative cooldown may still be after
	 * now; "0" protects until the transition itself. */
	expect(&p, "neg negpast zero", "negpast");
	pts_free(&p);
}

static void test_no_pod_names_a_cooldown(void **state)
{
	(void)state;
	pts p;
	open_cdp(&p, POD("a", "Running", "labels: {app: a}", SCHED("2026-01-01T00:19:00Z"))
	                 POD("b", "Running", "labels: {app: b}", SCHED("2026-01-01T00:19:00Z")));
	expect(&p, "a b", "a b");
	/* cdp has no VictimTasks: with no other plugin, nothing is a victim there. */
	tph_idx c[] = {pts_task(&p, "ns/a")};
	uint8_t v[1];
	assert_int_equal(tph_victim_tasks(p.s, c, 1, v), 0);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cooldown_on_the_session_clock),
	    cmocka_unit_test(test_boundary_is_strict),
	    cmocka_unit_test(test_label_before_annotation),
	    cmocka_unit_test(test_only_running_pods),
	    cmocka_unit_test(test_conditions),
	    cmocka_unit_test(test_negative_and_zero_durations),
	    cmocka_unit_test(test_no_pod_names_a_cooldown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
