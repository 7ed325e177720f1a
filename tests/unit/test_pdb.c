/* Unit tests for plugins/pdb: the budget spent in candidate order and afresh at every call, the
 * same answer from Preemptable, Reclaimable and VictimTasks, unlabelled pods never victims,
 * disrupted pods that spend nothing, namespaces, selectors that select no pod (absent, empty),
 * matchExpressions, a pod under several budgets, and the budgets of a session over a cache that
 * a host filled and changed through tph_cluster_put_pdb / remove_pdb. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

/* A scenario with pdb's three points on and the given budgets and pods (YAML list entries);
 * pod "pre" is the preemptor. */
static void open_pdb(pts *p, const char *pdbs, const char *pods)
{
	char yaml[8192];
	snprintf(yaml, sizeof yaml,
	         "enableFlagsDefault: false\n"
	         "conf: |\n"
	         "  actions: \"\"\n"
	         "  tiers:\n"
	         "  - plugins:\n"
	         "    - name: pdb\n"
	         "      enablePreemptable: true\n"
	         "      enableReclaimable: true\n"
	         "      enabledVictim: true\n"
	         "queues: [{name: default}]\n"
	         "podDisruptionBudgets:%s\n"
	         "pods:\n"
	         "  - {name: pre, namespace: ns}\n"
	         "%s",
	         pdbs, pods);
	pts_open(p, yaml);
}

#define POD(name, labels) \
	"  - {name: " name ", namespace: ns, phase: Running, labels: " labels "}\n"

enum {
	PREEMPT,
	RECLAIM,
	VICTIM_TASKS
};

/* The victims among the space-separated pod names `cands` (namespace ns), by one of the three
 * points, as names in candidate order. */
static const char *victims(pts *p, int point, const char *cands, char *got, size_t cap)
{
	tph_idx c[16], out[16], pre = pts_task(p, "ns/pre");
	uint8_t mark[16] = {0};
	uint32_t n = pts_tasks(p, "ns", cands, c, 16), k = 0;
	if (point == PREEMPT)
		k = tph_preemptable(p->s, pre, c, n, out);
	else if (point == RECLAIM)
		k = tph_reclaimable(p->s, pre, c, n, out);
	else
		for (uint32_t i = 0, m = tph_victim_tasks(p->s, c, n, mark); i < n && m; i++)
			if (mark[i])
				out[k++] = c[i];
	return pts_task_names(p, out, k, got, cap);
}

/* All three points give `want`. */
static void expect(pts *p, const char *cands, const char *want)
{
	char got[256];
	for (int point = PREEMPT; point <= VICTIM_TASKS; point++)
		if (strcmp(victims(p, point, cands, got, sizeof got), want))
			fail_msg("point %d over [%s]: got [%s], want [%s]", point, cands, got,
			         want);
}

static void test_no_budget_keeps_labelled_pods_only(void **state)
{
	(void)state;
	pts p;
	open_pdb(&p, " []", POD("a", "{app: web}") POD("b", "{x: y}") POD("bare", "{}"));
	/* Volcano skips a pod without labels before it looks at budgets, and never adds it. */
	expect(&p, "a bare b", "a b");
	expect(&p, "bare", "");
	pts_free(&p);
}

static const char one_budget[] = "\n"
                                 "  - {name: web, namespace: ns, disruptionsAllowed: 1,"
                                 " selector: {matchLabels: {app: web}}}";

static void test_budget_spent_in_candidate_order(void **state)
{
	(void)state;
	pts p;
	open_pdb(&p, one_budget,
	         POD("a", "{app: web}") POD("b", "{app: web}") POD("c", "{app: db}"));
	/* The first selected candidate takes the one disruption; unselected pods spend nothing. */
	expect(&p, "a b c", "a c");
	expect(&p, "b a c", "b c");
	expect(&p, "c b a", "c b");
	/* Every call starts afresh from disruptionsAllowed. */
	expect(&p, "a b", "a");
	expect(&p, "a b", "a");
	pts_free(&p);
}

static void test_no_disruption_allowed(void **state)
{
	(void)state;
	pts p;
	open_pdb(&p,
	         "\n  - {name: web, namespace: ns, selector: {matchLabels: {app: web}}}"
	         "\n  - {name: two, namespace: ns, disruptionsAllowed: 2,"
	         " selector: {matchLabels: {app: db}}}",
	         POD("a", "{app: web}") POD("b", "{app: web}") POD("c", "{app: db}")
	             POD("d", "{app: db}") POD("e", "{app: db}"));
	expect(&p, "a b", ""); /* disruptionsAllowed defaults to 0 */
	expect(&p, "c a d b e", "c d");
	pts_free(&p);
}

static void test_disrupted_pods_spend_nothing(void **state)
{
	(void)state;
	pts p;
	open_pdb(
	    &p,
	    "\n  - {name: web, namespace: ns, disruptionsAllowed: 1,"
	    " selector: {matchLabels: {app: web}}, disruptedPods: {a: '2026-01-01T00:00:00Z'}}",
	    POD("a", "{app: web}") POD("b", "{app: web}") POD("c", "{app: web}"));
	/* a is already being disrupted (the API server counted it): it stays a victim without
	 * taking the budget, which b then takes. */
	expect(&p, "a b c", "a b");
	expect(&p, "c a b", "c a");
	pts_free(&p);
}

static void test_namespaces(void **state)
{
	(void)state;
	pts p;
	open_pdb(&p,
	         "\n  - {name: web, namespace: other, selector: {matchLabels: {app: web}}}"
	         "\n  - {name: web, namespace: zz, selector: {matchLabels: {app: web}}}",
	         POD("a", "{app: web}")
	             POD("b", "{app: web}") "  - {name: o, namespace: other, phase: Running, "
	                                    "labels: {app: web}}\n");
	expect(&p, "a b", "a b");
	tph_idx c[] = {pts_task(&p, "other/o")}, out[1];
	assert_int_equal(tph_preemptable(p.s, pts_task(&p, "ns/pre"), c, 1, out), 0);
	pts_free(&p);
}

static void test_selectors_that_select_nothing(void **state)
{
	(void)state;
	pts p;
	/* Absent and empty selectors select no pod in Volcano (LabelSelectorAsSelector gives
	 * Nothing or an empty selector, which the plugin skips), unlike policy/v1. */
	open_pdb(
	    &p,
	    "\n  - {name: absent, namespace: ns}"
	    "\n  - {name: empty, namespace: ns, selector: {}}"
	    "\n  - {name: lists, namespace: ns, selector: {matchLabels: {}, matchExpressions: []}}",
	    POD("a", "{app: web}") POD("b", "{app: web}"));
	expect(&p, "a b", "a b");
	pts_free(&p);
}

static void test_match_expressions(void **state)
{
	(void)state;
	pts p;
	open_pdb(&p,
	         "\n  - name: not-db\n"
	         "    namespace: ns\n"
	         "    disruptionsAllowed: 1\n"
	         "    selector:\n"
	         "      matchExpressions:\n"
	         "      - {key: app, operator: NotIn, values: [db]}\n"
	         "      - {key: tier, operator: Exists}",
	         POD("a", "{app: web, tier: f}") POD("b", "{tier: b}")
	             POD("c", "{app: db, tier: b}") POD("d", "{app: web}"));
	/* a and b are selected (NotIn holds where the key is absent), c and d are not. */
	expect(&p, "a b c d", "a c d");
	expect(&p, "b a c d", "b c d");
	pts_free(&p);
}

static void test_several_budgets(void **state)
{
	(void)state;
	pts p;
	open_pdb(&p,
	         "\n  - {name: web, namespace: ns, disruptionsAllowed: 2,"
	         " selector: {matchLabels: {app: web}}}"
	         "\n  - {name: zone, namespace: ns, disruptionsAllowed: 1,"
	         " selector: {matchLabels: {zone: a}}}",
	         POD("a", "{app: web, zone: a}") POD("b", "{app: web, zone: a}")
	             POD("c", "{app: web}") POD("d", "{zone: a}"));
	/* a spends both budgets; b takes zone below zero, so it stays, yet it has spent web's
	 * last disruption: c is kept from being a victim too. */
	expect(&p, "a b c d", "a");
	expect(&p, "c d a b", "c d");
	pts_free(&p);
}

/* A host fills the cache itself: budgets put, replaced (keeping their place) and removed. */
static void test_cache_budgets(void **state)
{
	(void)state;
	pts p;
	open_pdb(&p, " []", POD("a", "{app: web}") POD("b", "{app: web}"));
	tph_cluster *c = tph_scenario_cluster(p.scn);
	tph_kv web[] = {{"app", "web"}};
	tph_pdb_desc d = {.size = sizeof(tph_pdb_desc),
	                  .name = "web",
	                  .namespace_ = "ns",
	                  .selector = {.present = true, .match_labels = {web, 1}},
	                  .disruptions_allowed = 1};
	assert_int_equal(tph_cluster_put_pdb(c, &d, NULL), TPH_OK);
	tph_session_free(p.s);
	tph_snapshot_release(p.snap);
	struct {
		int allowed;
		bool remove;
		const char *want;
	} steps[] = {{1, false, "a"}, {2, false, "a b"}, {0, false, ""}, {0, true, "a b"}};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		d.disruptions_allowed = steps[i].allowed;
		assert_int_equal(steps[i].remove ? tph_cluster_remove_pdb(c, "ns", "web", NULL)
		                                 : tph_cluster_put_pdb(c, &d, NULL),
		                 TPH_OK);
		assert_int_equal(tph_cluster_snapshot(c, 0, &p.snap, NULL), TPH_OK);
		assert_int_equal(
		    tph_session_open(p.snap, tph_scenario_conf(p.scn), NULL, &p.s, NULL), TPH_OK);
		assert_int_equal(p.s->view.pdbs->n, steps[i].remove ? 0 : 1);
		expect(&p, "a b", steps[i].want);
		tph_session_free(p.s);
		tph_snapshot_release(p.snap);
	}
	p.s = NULL;
	p.snap = NULL;
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_budget_keeps_labelled_pods_only),
	    cmocka_unit_test(test_budget_spent_in_candidate_order),
	    cmocka_unit_test(test_no_disruption_allowed),
	    cmocka_unit_test(test_disrupted_pods_spend_nothing),
	    cmocka_unit_test(test_namespaces),
	    cmocka_unit_test(test_selectors_that_select_nothing),
	    cmocka_unit_test(test_match_expressions),
	    cmocka_unit_test(test_several_budgets),
	    cmocka_unit_test(test_cache_budgets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
