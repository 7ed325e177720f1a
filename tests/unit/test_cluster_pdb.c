/* Cluster cache tests for PodDisruptionBudgets: put, replace (keeping the place), remove, what a
 * snapshot holds (interned selector and status, disrupted pods sorted by name id), the errors
 * that name the budget and the field (and change nothing), repeated disrupted pods and
 * matchLabels keys; and the pod phase the pod's meta carries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cluster_int.h"

static tph_cluster *cache(void)
{
	tph_cluster *c = NULL;
	assert_int_equal(tph_cluster_create(&c), TPH_OK);
	return c;
}

static tph_snapshot *snap(tph_cluster *c)
{
	tph_snapshot *s = NULL;
	assert_int_equal(tph_cluster_snapshot(c, 0, &s, NULL), TPH_OK);
	return s;
}

static const char *str(const tph_snapshot *s, tph_sid id)
{
	return tph_strtab_str(s->strs, id);
}

static tph_kv web[] = {{"app", "web"}};

static tph_pdb_desc budget(const char *ns, const char *name, int32_t allowed)
{
	return (tph_pdb_desc){.size = sizeof(tph_pdb_desc),
	                      .name = name,
	                      .namespace_ = ns,
	                      .selector = {.present = true, .match_labels = {web, 1}},
	                      .disruptions_allowed = allowed};
}

/* The snapshot's budgets as "ns/name:allowed" joined with spaces. */
static const char *listing(const tph_snapshot *s, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (uint32_t i = 0; i < s->pdbs.n; i++) {
		char one[128];
		snprintf(one, sizeof one, "%s%s/%s:%d", i ? " " : "", str(s, s->pdbs.ns[i]),
		         str(s, s->pdbs.name[i]), (int)s->pdbs.disruptions_allowed[i]);
		strncat(buf, one, cap - strlen(buf) - 1);
	}
	return buf;
}

static void test_put_replace_remove(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_pdb_desc a = budget("ns", "a", 1), b = budget("ns", "b", 2),
	             o = budget("other", "a", 3);
	assert_int_equal(tph_cluster_put_pdb(c, &a, NULL), TPH_OK);
	assert_int_equal(tph_cluster_put_pdb(c, &b, NULL), TPH_OK);
	assert_int_equal(tph_cluster_put_pdb(c, &o, NULL), TPH_OK); /* another namespace */
	a.disruptions_allowed = 5;
	assert_int_equal(tph_cluster_put_pdb(c, &a, NULL), TPH_OK); /* replaced in place */
	char buf[256];
	tph_snapshot *s = snap(c);
	assert_string_equal(listing(s, buf, sizeof buf), "ns/a:5 ns/b:2 other/a:3");
	tph_snapshot_release(s);
	tph_diag d = {0};
	assert_int_equal(tph_cluster_remove_pdb(c, "ns", "a", &d), TPH_OK);
	assert_int_equal(tph_cluster_remove_pdb(c, "ns", "a", &d), TPH_ENOENT);
	assert_non_null(strstr(d.msg, "pod disruption budget ns/a: not found"));
	assert_int_equal(tph_cluster_remove_pdb(c, "", "b", &d), TPH_EINVAL);
	assert_int_equal(tph_cluster_put_pdb(c, &a, NULL), TPH_OK); /* back, at the end */
	s = snap(c);
	assert_string_equal(listing(s, buf, sizeof buf), "ns/b:2 other/a:3 ns/a:5");
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_snapshot_rows(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	const char *vals[] = {"db", "cache"};
	tph_sel_expr ex[] = {{"tier", TPH_SEL_NOT_IN, {vals, 2}}, {"app", TPH_SEL_EXISTS, {0}}};
	tph_disrupted_pod dp[] = {{"p9", 2000}, {"p1", 1000}, {"p5", 0}};
	tph_pdb_desc p = budget("ns", "full", 1);
	p.selector.match_exprs = (tph_sel_term){ex, 2};
	p.disrupted_pods = dp;
	p.n_disrupted_pods = 3;
	p.max_unavailable = (tph_int_or_percent){true, true, 50};
	tph_pdb_desc none = {.size = sizeof none, .name = "none", .namespace_ = "ns"},
	             twin = budget("ns", "twin", 0), twin2 = budget("ns", "twin2", 7);
	assert_int_equal(tph_cluster_put_pdb(c, &p, NULL), TPH_OK);
	assert_int_equal(tph_cluster_put_pdb(c, &none, NULL), TPH_OK);
	assert_int_equal(tph_cluster_put_pdb(c, &twin, NULL), TPH_OK);
	assert_int_equal(tph_cluster_put_pdb(c, &twin2, NULL), TPH_OK);
	tph_snapshot *s = snap(c);
	assert_int_equal(s->pdbs.n, 4);
	const tph_pdb_meta *m = s->pdbs.meta[0];
	assert_true(m->selector.present);
	assert_int_equal(m->selector.match_labels.n, 1);
	assert_int_equal(m->selector.match_exprs.n, 2);
	assert_string_equal(str(s, m->selector.match_exprs.exprs[0].key), "tier");
	assert_int_equal(m->selector.match_exprs.exprs[0].n_values, 2);
	assert_int_equal(m->n_disrupted, 3);
	for (uint32_t i = 1; i < 3; i++)
		assert_true(m->disrupted[i - 1].pod < m->disrupted[i].pod);
	for (uint32_t i = 0; i < 3; i++) {
		const char *name = str(s, m->disrupted[i].pod);
		assert_int_equal(m->disrupted[i].time, !strcmp(name, "p9")   ? 2000
		                                       : !strcmp(name, "p1") ? 1000
		                                                             : 0);
	}
	assert_false(m->min_available.present);
	assert_true(m->max_unavailable.present && m->max_unavailable.percent);
	assert_int_equal(m->max_unavailable.value, 50);
	/* An absent selector stays absent (the plugin then selects no pod). */
	assert_false(s->pdbs.meta[1]->selector.present);
	assert_null(s->pdbs.meta[1]->disrupted);
	/* Equal cold parts share one interned meta; the status is a column of its own. */
	assert_ptr_equal(s->pdbs.meta[2], s->pdbs.meta[3]);
	assert_int_equal(s->pdbs.disruptions_allowed[3], 7);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

/* Each bad budget is refused with a message that names it and the field; nothing changes. */
static void test_bad_budgets(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_pdb_desc keep = budget("ns", "keep", 1);
	assert_int_equal(tph_cluster_put_pdb(c, &keep, NULL), TPH_OK);
	const char *one[] = {"x"};
	tph_sel_expr gt[] = {{"n", TPH_SEL_GT, {one, 1}}}, in0[] = {{"app", TPH_SEL_IN, {0}}},
	             ex1[] = {{"app", TPH_SEL_EXISTS, {one, 1}}},
	             nokey[] = {{"", TPH_SEL_EXISTS, {0}}};
	tph_disrupted_pod twice[] = {{"p1", 1}, {"p2", 2}, {"p1", 3}}, noname[] = {{"", 0}};
	tph_kv dupkey[] = {{"app", "a"}, {"app", "b"}};
	struct {
		tph_pdb_desc p;
		const char *want;
	} cases[] = {
	    {{.name = "keep", .namespace_ = "ns", .disruptions_allowed = -1},
	     "pod disruption budget ns/keep: disruptionsAllowed: negative"},
	    {{.name = "keep",
	      .namespace_ = "ns",
	      .min_available = {true, false, 1},
	      .max_unavailable = {true, true, 10}},
	     "pod disruption budget ns/keep: maxUnavailable: minAvailable and maxUnavailable are "
	     "mutually exclusive"},
	    {{.name = "keep", .namespace_ = "ns", .min_available = {true, true, 101}},
	     "pod disruption budget ns/keep: minAvailable: 101% is above 100%"},
	    {{.name = "keep", .namespace_ = "ns", .max_unavailable = {true, false, -2}},
	     "maxUnavailable: -2 is negative"},
	    {{.name = "keep", .namespace_ = "ns", .selector = {true, {0}, {gt, 1}}},
	     "selector: key n: operator 4 is not a label selector operator"},
	    {{.name = "keep", .namespace_ = "ns", .selector = {true, {0}, {in0, 1}}},
	     "selector: key app: In and NotIn need at least one value"},
	    {{.name = "keep", .namespace_ = "ns", .selector = {true, {0}, {ex1, 1}}},
	     "selector: key app: Exists and DoesNotExist take no values"},
	    {{.name = "keep", .namespace_ = "ns", .selector = {true, {0}, {nokey, 1}}},
	     "selector: empty key"},
	    {{.name = "keep", .namespace_ = "ns", .selector = {true, {dupkey, 2}, {0}}},
	     "selector: key \"app\" given twice"},
	    {{.name = "keep", .namespace_ = "ns", .disrupted_pods = twice, .n_disrupted_pods = 3},
	     "pod disruption budget ns/keep: disruptedPods: pod \"p1\" given twice"},
	    {{.name = "keep", .namespace_ = "ns", .disrupted_pods = noname, .n_disrupted_pods = 1},
	     "disruptedPods: item 0: empty pod name"},
	    {{.name = "keep", .namespace_ = "ns", .n_disrupted_pods = 1},
	     "disruptedPods: no items"},
	    {{.name = "keep", .namespace_ = ""}, "pod disruption budget: empty name or namespace"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tph_diag d = {0};
		tph_pdb_desc bad = cases[i].p;
		bad.size = sizeof bad; /* the cases name only what makes them bad */
		assert_int_equal(tph_cluster_put_pdb(c, &bad, &d), TPH_EINVAL);
		if (!strstr(d.msg, cases[i].want))
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, d.msg, cases[i].want);
	}
	assert_int_equal(tph_cluster_put_pdb(NULL, &keep, NULL), TPH_EINVAL);
	assert_int_equal(tph_cluster_put_pdb(c, NULL, NULL), TPH_EINVAL);
	char buf[128];
	tph_snapshot *s = snap(c);
	assert_string_equal(listing(s, buf, sizeof buf), "ns/keep:1");
	assert_true(s->pdbs.meta[0]->selector.present);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

/* The pod's phase rides on its meta (cdp reads Running there): a deleting pod is Releasing in
 * either phase, and only the meta tells them apart. */
static void test_pod_phase_on_meta(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	const tph_pod_phase ph[] = {TPH_POD_RUNNING, TPH_POD_PENDING, TPH_POD_FAILED};
	const char *names[] = {"run", "pend", "fail"};
	for (int i = 0; i < 3; i++) {
		tph_pod_desc p = {.size = sizeof(tph_pod_desc),
		                  .name = names[i],
		                  .namespace_ = "ns",
		                  .phase = ph[i],
		                  .node_name = "n1",
		                  .deleting = i < 2,
		                  .preemptable = TPH_PREEMPTABLE_UNSET};
		assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK);
	}
	tph_snapshot *s = snap(c);
	for (int i = 0; i < 3; i++)
		assert_int_equal(s->tasks.meta[i]->phase, ph[i]);
	assert_int_equal(s->tasks.status[0], TPH_TS_RELEASING);
	assert_int_equal(s->tasks.status[1], TPH_TS_RELEASING);
	assert_ptr_not_equal(s->tasks.meta[0], s->tasks.meta[1]);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_put_replace_remove),
	    cmocka_unit_test(test_snapshot_rows),
	    cmocka_unit_test(test_bad_budgets),
	    cmocka_unit_test(test_pod_phase_on_meta),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
