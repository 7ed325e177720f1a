/* Cluster cache tests: put/replace/remove semantics and snapshot order with tombstones,
 * validation (nothing changes on error), dimension growth, interning, allocation faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cluster_int.h"
#include "base/mem.h"

static tph_cluster *cache(void)
{
	tph_cluster *c = NULL;
	assert_int_equal(tph_cluster_create(&c), TPH_OK);
	return c;
}

static int put_node(tph_cluster *c, const char *name, int64_t cpu)
{
	tph_res_item al[] = {{"cpu", cpu}, {"memory", 8LL << 30}, {"pods", 110000}};
	tph_node_desc n = TPH_NODE_DESC_INIT;
	n.name = name;
	n.allocatable = (tph_res_list){al, 3};
	return tph_cluster_put_node(c, &n, NULL);
}

static int put_pod(tph_cluster *c, const char *name, int64_t cpu)
{
	tph_res_item rq[] = {{"cpu", cpu}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = name;
	p.namespace_ = "ns";
	p.requests = (tph_res_list){rq, 1};
	return tph_cluster_put_pod(c, &p, NULL);
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

/* The snapshot's node names joined with spaces. */
static const char *node_order(const tph_snapshot *s, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (uint32_t i = 0; i < s->nodes.n; i++) {
		strncat(buf, str(s, s->nodes.name[i]), cap - strlen(buf) - 2);
		strncat(buf, " ", cap - strlen(buf) - 1);
	}
	return buf;
}

static void test_put_replace_remove_order(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	char buf[256];
	assert_int_equal(put_node(c, "a", 1000), 0);
	assert_int_equal(put_node(c, "b", 2000), 0);
	assert_int_equal(put_node(c, "c", 3000), 0);
	assert_int_equal(put_node(c, "b", 2500), 0); /* replace keeps its place */
	assert_int_equal(tph_cluster_node_count(c), 3);
	assert_int_equal(tph_cluster_remove_node(c, "a", NULL), 0);
	assert_int_equal(tph_cluster_remove_node(c, "a", NULL), TPH_ENOENT);
	assert_int_equal(tph_cluster_remove_node(c, "zz", NULL), TPH_ENOENT);
	assert_int_equal(put_node(c, "d", 4000), 0);
	assert_int_equal(put_node(c, "a", 5000), 0); /* re-added: goes last */
	assert_int_equal(tph_cluster_node_count(c), 4);
	tph_snapshot *s = snap(c);
	assert_string_equal(node_order(s, buf, sizeof buf), "b c d a ");
	assert_int_equal(s->nodes.alloc[TPH_RES_CPU * s->nodes.stride + 0], 2500);
	assert_int_equal(s->nodes.alloc[TPH_RES_CPU * s->nodes.stride + 3], 5000);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

/* Sums over a kind stay at most TPH_RES_TOTAL_MAX: at 2^53 each, 128 nodes fit and a 129th
 * fails the snapshot; replaced and removed nodes no longer count. */
static void test_cluster_totals_bounded(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	char name[16];
	for (int i = 0; i < 128; i++) {
		snprintf(name, sizeof name, "n%d", i);
		assert_int_equal(put_node(c, name, TPH_RES_VALUE_MAX), 0);
	}
	assert_int_equal(put_node(c, "n0", TPH_RES_VALUE_MAX), 0); /* a replacement */
	tph_snapshot_release(snap(c));
	assert_int_equal(put_node(c, "n128", TPH_RES_VALUE_MAX), 0);
	tph_snapshot *s = (tph_snapshot *)0x1;
	tph_diag d = {0};
	assert_int_equal(tph_cluster_snapshot(c, 0, &s, &d), TPH_ERANGE);
	assert_null(s);
	assert_non_null(strstr(d.msg, "node n128: allocatable: cpu summed over every node passes"));
	assert_int_equal(tph_cluster_remove_node(c, "n5", NULL), 0);
	tph_snapshot_release(snap(c));
	tph_cluster_destroy(c);
}

static void test_pod_churn_keeps_order(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	char name[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "p%d", i);
		assert_int_equal(put_pod(c, name, i), 0);
	}
	for (int i = 0; i < 5000; i++) { /* every odd pod goes: tombstones, then compaction */
		snprintf(name, sizeof name, "p%d", i);
		if (i % 2)
			assert_int_equal(tph_cluster_remove_pod(c, "ns", name, NULL), 0);
	}
	for (int i = 5000; i < 9000; i++) {
		snprintf(name, sizeof name, "p%d", i);
		assert_int_equal(put_pod(c, name, i), 0);
	}
	assert_int_equal(tph_cluster_pod_count(c), 6500);
	tph_snapshot *s = snap(c);
	assert_int_equal(s->tasks.n, 6500);
	for (uint32_t t = 0; t < s->tasks.n; t++) {
		int want = t < 2500 ? (int)t * 2 : (int)t - 2500 + 5000;
		snprintf(name, sizeof name, "p%d", want);
		assert_string_equal(str(s, s->tasks.name[t]), name);
		assert_int_equal(s->tasks.req[t * s->dims.n + TPH_RES_CPU], want);
	}
	assert_int_equal(tph_cluster_remove_pod(c, "ns", "p1", NULL), TPH_ENOENT);
	assert_int_equal(tph_cluster_remove_pod(c, "other", "p0", NULL), TPH_ENOENT);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_validation_changes_nothing(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_diag d = {0};
	assert_int_equal(put_pod(c, "keep", 100), 0);
	tph_res_item neg[] = {{"cpu", -1}};
	tph_res_item dup[] = {{"cpu", 1}, {"cpu", 2}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "keep";
	p.namespace_ = "ns";
	p.requests = (tph_res_list){neg, 1};
	assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_EINVAL);
	p.requests = (tph_res_list){dup, 2};
	assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "pod ns/keep"));
	p.name = "";
	assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_EINVAL);
	tph_podgroup_desc g = TPH_PODGROUP_DESC_INIT;
	g.name = "g";
	g.namespace_ = "ns";
	g.min_member = -1;
	assert_int_equal(tph_cluster_put_podgroup(c, &g, &d), TPH_EINVAL);
	tph_queue_desc q = TPH_QUEUE_DESC_INIT;
	q.name = "q";
	q.weight = -1;
	assert_int_equal(tph_cluster_put_queue(c, &q, &d), TPH_EINVAL);
	tph_hypernode_desc h = TPH_HYPERNODE_DESC_INIT;
	h.name = "h";
	h.tier = INT32_MAX; /* the top would be INT32_MAX+1 */
	assert_int_equal(tph_cluster_put_hypernode(c, &h, &d), TPH_EINVAL);
	assert_non_null(
	    strstr(d.msg, "hypernode h: tier: 2147483647 is out of range [0, 1000000]"));
	tph_snapshot *s = snap(c);
	assert_int_equal(s->tasks.n, 1);
	assert_int_equal(s->jobs.n, 0);
	assert_int_equal(s->queues.n, 0);
	assert_int_equal(s->hypernodes.n, 0);
	assert_int_equal(s->tasks.req[TPH_RES_CPU], 100);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_gt_lt_must_be_integers(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_diag d = {0};
	const char *bad[] = {"12x"}, *good[] = {"-42"};
	tph_sel_expr e = {"rank", TPH_SEL_GT, {bad, 1}};
	tph_sel_term term = {&e, 1};
	tph_affinity a = {.node_required = &term, .n_node_required = 1};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "p";
	p.namespace_ = "ns";
	p.affinity = &a;
	assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "pod ns/p"));
	assert_non_null(strstr(d.msg, "nodeAffinity"));
	assert_int_equal(tph_cluster_pod_count(c), 0);
	e.values = (tph_str_list){good, 1};
	assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_OK);
	tph_snapshot *s = snap(c);
	const tph_pod_spec *sp = s->tasks.spec[0];
	assert_int_equal(sp->n_node_required, 1);
	assert_int_equal(sp->node_required[0].exprs[0].op, TPH_SEL_GT);
	assert_int_equal(sp->node_required[0].exprs[0].numbers[0], -42);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_dimension_growth(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	assert_int_equal(put_node(c, "n1", 4000), 0);
	assert_int_equal(put_pod(c, "old", 500), 0);
	tph_res_item rq[] = {{"nvidia.com/gpu", 2000}, {"cpu", 100}, {"example.com/foo", 3000}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "new";
	p.namespace_ = "ns";
	p.requests = (tph_res_list){rq, 3};
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), 0);
	tph_snapshot *s = snap(c);
	uint32_t nd = s->dims.n;
	assert_int_equal(nd, 6);
	assert_string_equal(str(s, s->dims.name[4]), "nvidia.com/gpu");
	assert_string_equal(str(s, s->dims.name[5]), "example.com/foo");
	assert_int_equal(s->dims.unit[TPH_RES_MEMORY], TPH_UNIT_BYTES);
	assert_int_equal(s->dims.unit[4], TPH_UNIT_MILLI);
	assert_int_equal(s->tasks.req[0 * nd + TPH_RES_CPU], 500); /* relaid out, kept */
	assert_int_equal(s->tasks.req[0 * nd + 4], 0);
	assert_int_equal(s->tasks.req[0 * nd + TPH_RES_PODS], 1000);
	assert_int_equal(s->tasks.req[1 * nd + 4], 2000);
	assert_int_equal(s->tasks.req[1 * nd + 5], 3000);
	assert_int_equal(s->nodes.alloc[TPH_RES_CPU * s->nodes.stride], 4000);
	assert_int_equal(s->nodes.alloc[4 * s->nodes.stride], 0);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_too_many_dimensions(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	char names[TPH_RES_MAX][16];
	tph_res_item rq[TPH_RES_MAX];
	for (int i = 0; i < TPH_RES_MAX; i++) {
		snprintf(names[i], sizeof names[i], "x.io/r%d", i);
		rq[i] = (tph_res_item){names[i], 1};
	}
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "p";
	p.namespace_ = "ns";
	p.requests = (tph_res_list){rq, TPH_RES_MAX - TPH_RES_FIXED};
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK); /* exactly full */
	p.name = "q";
	p.requests = (tph_res_list){rq, TPH_RES_MAX - TPH_RES_FIXED + 1};
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_ERANGE);
	assert_int_equal(tph_cluster_pod_count(c), 1);
	tph_snapshot *s = snap(c);
	assert_int_equal(s->dims.n, TPH_RES_MAX);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static int put_uid_pod(tph_cluster *c, const char *ns, const char *name, const char *uid,
                       tph_diag *d)
{
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = name;
	p.namespace_ = ns;
	p.uid = uid;
	return tph_cluster_put_pod(c, &p, d);
}

/* Volcano keys tasks by UID: a uid held by another pod is refused, naming both; a replaced or
 * removed pod gives its uid back; default uids ("<namespace>-<name>") count too. */
static void test_duplicate_uid(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_diag d = {0};
	assert_int_equal(put_uid_pod(c, "ns", "p1", "u", &d), TPH_OK);
	assert_int_equal(put_uid_pod(c, "ns", "p1", "u", &d), TPH_OK); /* its own */
	assert_int_equal(put_uid_pod(c, "ns", "p2", "u", &d), TPH_EEXIST);
	assert_string_equal(d.msg, "pod ns/p2: uid: \"u\" is also pod ns/p1's (Volcano keys "
	                           "tasks by UID)");
	assert_int_equal(tph_cluster_pod_count(c), 1);
	assert_int_equal(put_uid_pod(c, "ns", "p1", "v", &d), TPH_OK); /* gives "u" back */
	assert_int_equal(put_uid_pod(c, "ns", "p2", "u", &d), TPH_OK);
	assert_int_equal(put_uid_pod(c, "ns", "p3", "v", &d), TPH_EEXIST);
	assert_int_equal(tph_cluster_remove_pod(c, "ns", "p1", &d), TPH_OK);
	assert_int_equal(put_uid_pod(c, "ns", "p3", "v", &d), TPH_OK);
	assert_int_equal(put_uid_pod(c, "a-b", "c", NULL, &d), TPH_OK);
	assert_int_equal(put_uid_pod(c, "a", "b-c", NULL, &d), TPH_EEXIST);
	assert_non_null(strstr(d.msg, "\"a-b-c\" is also pod a-b/c's"));
	char long_name[300]; /* names in messages are cut at 128 bytes */
	memset(long_name, 'x', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = '\0';
	assert_int_equal(put_uid_pod(c, "ns", long_name, "u", &d), TPH_EEXIST);
	assert_int_equal(strlen(d.msg), strlen("pod ns/") + 128 +
	                                    strlen("...: uid: \"u\" is also "
	                                           "pod ns/p2's (Volcano "
	                                           "keys tasks by UID)"));
	tph_cluster_destroy(c);
}

static void put_spec_pod(tph_cluster *c, const char *name, const tph_kv *sel, uint32_t n)
{
	tph_toleration tol = {"dedicated", TPH_TOL_EQUAL, "gpu", -1};
	tph_kv lab[] = {{"app", "web"}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = name;
	p.namespace_ = "ns";
	p.node_selector = (tph_kv_list){sel, n};
	p.tolerations = &tol;
	p.n_tolerations = 1;
	p.labels = (tph_kv_list){lab, 1};
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK);
}

static void test_spec_interning(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_kv ab[] = {{"zone", "a"}, {"disk", "ssd"}}, ba[] = {{"disk", "ssd"}, {"zone", "a"}};
	tph_kv other[] = {{"zone", "b"}, {"disk", "ssd"}};
	put_spec_pod(c, "p1", ab, 2);
	put_spec_pod(c, "p2", ba, 2);
	put_spec_pod(c, "p3", other, 2);
	assert_int_equal(put_pod(c, "bare1", 1), 0);
	assert_int_equal(put_pod(c, "bare2", 1), 0);
	tph_snapshot *s = snap(c);
	const tph_pod_spec *const *sp = s->tasks.spec;
	assert_ptr_equal(sp[0], sp[1]); /* label order does not matter */
	assert_ptr_not_equal(sp[0], sp[2]);
	assert_ptr_equal(sp[3], sp[4]); /* the empty spec is shared */
	assert_int_equal(sp[3]->id, 0);
	assert_int_not_equal(sp[0]->id, sp[2]->id);
	assert_true(sp[0]->id < s->n_specs && sp[2]->id < s->n_specs);
	assert_ptr_equal(s->tasks.meta[0], s->tasks.meta[2]);
	assert_ptr_equal(s->tasks.meta[3], s->tasks.meta[4]);
	assert_ptr_not_equal(s->tasks.meta[0], s->tasks.meta[3]);
	const tph_labels *ns = &sp[0]->node_selector; /* sorted by key id */
	assert_int_equal(ns->n, 2);
	assert_true(ns->items[0].key < ns->items[1].key);
	tph_sid zone = tph_strtab_find(s->strs, "zone", 4);
	assert_string_equal(str(s, tph_labels_get(*ns, zone)), "a");
	assert_int_equal(tph_labels_get(*ns, TPH_SID_EMPTY), TPH_SID_NONE);
	assert_int_equal(sp[0]->tolerations[0].effect, -1);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_duplicate_label_key(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_diag d = {0};
	tph_kv lab[] = {{"app", "a"}, {"app", "b"}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "p";
	p.namespace_ = "ns";
	p.labels = (tph_kv_list){lab, 2};
	assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "labels"));
	tph_cluster_destroy(c);
}

/* Limits and conditions ride on the pod's meta: no resource dimension, no request, no effect on
 * best effort; limits sorted by name id, conditions as given. */
static void test_limits_and_conditions(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_res_item lim[] = {{"volcano.sh/vgpu-number", 1000}, {"cpu", 2000}};
	tph_pod_condition cond[] = {
	    {"PodScheduled", TPH_COND_TRUE, 1767225600000LL, 0, "Scheduled", NULL},
	    {"Ready", TPH_COND_UNKNOWN, 0, 5, NULL, "warming up"}};
	tph_pod_desc p = {.size = sizeof(tph_pod_desc),
	                  .name = "p",
	                  .namespace_ = "ns",
	                  .limits = {lim, 2},
	                  .conditions = cond,
	                  .n_conditions = 2,
	                  .preemptable = TPH_PREEMPTABLE_UNSET};
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK);
	assert_int_equal(put_pod(c, "bare", 10), TPH_OK);
	tph_snapshot *s = snap(c);
	assert_int_equal(s->dims.n, TPH_RES_FIXED); /* the limit names are no dimensions */
	assert_int_equal(s->tasks.req[TPH_RES_CPU], 0);
	assert_true(s->tasks.flags[0] & TPH_TASK_BEST_EFFORT);
	const tph_pod_meta *m = s->tasks.meta[0];
	assert_int_equal(m->n_limits, 2);
	assert_true(m->limits[0].name < m->limits[1].name);
	for (uint32_t i = 0; i < 2; i++) {
		const char *name = str(s, m->limits[i].name);
		assert_int_equal(m->limits[i].value, !strcmp(name, "cpu") ? 2000 : 1000);
	}
	assert_int_equal(m->n_conditions, 2);
	assert_true(m->conditions[0].type < m->conditions[1].type);
	bool first = !strcmp(str(s, m->conditions[0].type), "PodScheduled");
	const tph_cond_row *sched = &m->conditions[first ? 0 : 1],
	                   *ready = &m->conditions[first ? 1 : 0];
	assert_string_equal(str(s, sched->type), "PodScheduled");
	assert_int_equal(sched->status, TPH_COND_TRUE);
	assert_int_equal(sched->last_transition, 1767225600000LL);
	assert_string_equal(str(s, sched->reason), "Scheduled");
	assert_int_equal(sched->message, TPH_SID_EMPTY);
	assert_string_equal(str(s, ready->type), "Ready");
	assert_int_equal(ready->status, TPH_COND_UNKNOWN);
	assert_int_equal(ready->last_probe, 5);
	assert_string_equal(str(s, ready->message), "warming up");
	const tph_pod_meta *bare = s->tasks.meta[1];
	assert_null(bare->limits);
	assert_null(bare->conditions);
	assert_int_equal(bare->n_limits + bare->n_conditions, 0);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_limits_and_conditions_validated(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_res_item twice[] = {{"cpu", 1}, {"cpu", 2}}, neg[] = {{"cpu", -1}};
	tph_pod_condition dup[] = {{"Ready", TPH_COND_TRUE, 0, 0, NULL, NULL},
	                           {"Ready", TPH_COND_FALSE, 0, 0, NULL, NULL}};
	tph_pod_condition bad[] = {{"Ready", (tph_cond_status)7, 0, 0, NULL, NULL}};
	const struct {
		tph_res_list limits;
		const tph_pod_condition *cond;
		uint32_t n_cond;
		const char *want;
	} cases[] = {
	    {{twice, 2}, NULL, 0, "limits: resource \"cpu\" given twice"},
	    {{neg, 1}, NULL, 0, "limits: cpu is negative"},
	    {{NULL, 0}, dup, 2, "conditions: type \"Ready\" given twice"},
	    {{NULL, 0}, bad, 1, "conditions: item 0: empty type or bad status"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tph_diag d = {0};
		tph_pod_desc p = {.size = sizeof(tph_pod_desc),
		                  .name = "p",
		                  .namespace_ = "ns",
		                  .limits = cases[i].limits,
		                  .conditions = cases[i].cond,
		                  .n_conditions = cases[i].n_cond,
		                  .preemptable = TPH_PREEMPTABLE_UNSET};
		assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_EINVAL);
		if (!strstr(d.msg, cases[i].want))
			fail_msg("got \"%s\", want \"%s\"", d.msg, cases[i].want);
	}
	assert_int_equal(tph_cluster_pod_count(c), 0);
	tph_cluster_destroy(c);
}

/* Puts every kind, then snapshots; returns the first failure. */
static int sequence(tph_cluster *c, tph_snapshot **out)
{
	tph_res_item cap[] = {{"cpu", 8000}, {"example.com/fpga", 1000}};
	tph_queue_desc q = TPH_QUEUE_DESC_INIT;
	q.name = "default";
	q.capability = (tph_res_list){cap, 2};
	tph_podgroup_desc g = TPH_PODGROUP_DESC_INIT;
	g.name = "g";
	g.namespace_ = "ns";
	g.min_member = 2;
	tph_priority_class_desc pc = TPH_PRIORITY_CLASS_DESC_INIT;
	pc.name = "high";
	pc.value = 100;
	pc.global_default = true;
	tph_hypernode_member mem = {TPH_MEMBER_REGEX, "^n[0-9]+$", {NULL, 0}};
	tph_hypernode_desc h = TPH_HYPERNODE_DESC_INIT;
	h.name = "rack";
	h.tier = 1;
	h.members = &mem;
	h.n_members = 1;
	tph_quota_desc qu = TPH_QUOTA_DESC_INIT;
	qu.name = "q";
	qu.namespace_ = "ns";
	qu.hard = (tph_res_list){cap, 1};
	tph_kv sel[] = {{"zone", "a"}};
	tph_res_item rq[] = {{"cpu", 1000}, {"example.com/fpga", 1000}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "p";
	p.namespace_ = "ns";
	p.pod_group = "g";
	p.node_name = "n1";
	p.requests = (tph_res_list){rq, 2};
	p.node_selector = (tph_kv_list){sel, 1};
	p.phase = TPH_POD_RUNNING;
	tph_res_item lim[] = {{"example.com/fpga", 1000}};
	tph_pod_condition cond = {"PodScheduled", TPH_COND_TRUE, 1, 0, "r", "m"};
	p.limits = (tph_res_list){lim, 1};
	p.conditions = &cond;
	p.n_conditions = 1;
	tph_disrupted_pod dp = {"p0", 1};
	tph_pdb_desc pdb = TPH_PDB_DESC_INIT;
	pdb.name = "b";
	pdb.namespace_ = "ns";
	pdb.selector = (tph_label_selector){.present = true, .match_labels = {sel, 1}};
	pdb.disruptions_allowed = 1;
	pdb.disrupted_pods = &dp;
	pdb.n_disrupted_pods = 1;
	const char *shard[] = {"n1"};
	int rc;
	if ((rc = put_node(c, "n1", 4000)) || (rc = tph_cluster_put_queue(c, &q, NULL)) ||
	    (rc = tph_cluster_put_podgroup(c, &g, NULL)) ||
	    (rc = tph_cluster_put_priority_class(c, &pc, NULL)) ||
	    (rc = tph_cluster_put_hypernode(c, &h, NULL)) ||
	    (rc = tph_cluster_put_quota(c, &qu, NULL)) ||
	    (rc = tph_cluster_put_pdb(c, &pdb, NULL)) || (rc = tph_cluster_put_pod(c, &p, NULL)) ||
	    (rc = put_pod(c, "solo", 10)) ||
	    (rc = tph_cluster_set_shard(c, TPH_SHARD_HARD, "s", (tph_str_list){shard, 1}, NULL)))
		return rc;
	return tph_cluster_snapshot(c, 0, out, NULL);
}

static void check_sequence(const tph_snapshot *s)
{
	assert_int_equal(s->nodes.n, 1);
	assert_int_equal(s->tasks.n, 2);
	assert_int_equal(s->jobs.n, 2);
	assert_int_equal(s->dims.n, 5);
	assert_int_equal(s->nodes.used[TPH_RES_CPU * s->nodes.stride], 1000);
	assert_int_equal(s->nodes.used[4 * s->nodes.stride], 1000);
	assert_true(s->nodes.flags[0] & TPH_NODE_IN_SHARD);
	assert_int_equal(s->tasks.job[0], 0);
	assert_int_equal(s->tasks.priority[1], 100);
	assert_int_equal(s->hypernodes.n, 1);
	assert_int_equal(s->quotas.n, 1);
	assert_int_equal(s->pdbs.n, 1);
	assert_int_equal(s->pdbs.meta[0]->n_disrupted, 1);
}

static void run_faults(int sticky)
{
	for (long n = 1;; n++) {
		tph_cluster *c = cache();
		tph_snapshot *s = NULL;
		tph_mem_fail_after(n, sticky);
		int rc = sequence(c, &s);
		long attempts = tph_mem_attempts();
		tph_mem_fail_after(0, 0);
		if (rc == TPH_OK) { /* some failures are absorbed (best-effort prefault) */
			check_sequence(s);
			tph_snapshot_release(s);
			tph_cluster_destroy(c);
			if (attempts < n) /* no failure was injected: every point was covered */
				return;
			continue;
		}
		assert_int_equal(rc, TPH_ENOMEM);
		assert_int_equal(sequence(c, &s), TPH_OK); /* a retry after the fault works */
		check_sequence(s);
		tph_snapshot_release(s);
		tph_cluster_destroy(c);
	}
}

static void test_fault_injection(void **state)
{
	(void)state;
	run_faults(0);
	run_faults(1);
}

static void test_set_shard_and_remove_kinds(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_queue_desc q = TPH_QUEUE_DESC_INIT;
	q.name = "q1";
	tph_podgroup_desc g = TPH_PODGROUP_DESC_INIT;
	g.name = "g";
	g.namespace_ = "ns";
	g.queue = "q1";
	assert_int_equal(tph_cluster_put_queue(c, &q, NULL), 0);
	assert_int_equal(tph_cluster_put_podgroup(c, &g, NULL), 0);
	assert_int_equal(tph_cluster_remove_podgroup(c, "ns", "g", NULL), 0);
	assert_int_equal(tph_cluster_remove_queue(c, "q1", NULL), 0);
	assert_int_equal(tph_cluster_remove_queue(c, "q1", NULL), TPH_ENOENT);
	assert_int_equal(tph_cluster_set_shard(c, (tph_shard_mode)7, "x", (tph_str_list){0}, NULL),
	                 TPH_EINVAL);
	tph_snapshot *s = snap(c);
	assert_int_equal(s->jobs.n, 0);
	assert_int_equal(s->queues.n, 0);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

/* A zero-initialised descriptor did not come from its INIT macro: every put refuses it and names
 * the macro, and one from other headers (another size) is refused too. */
static void test_descriptors_need_init(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_diag d = {0};
	tph_node_desc n = {.name = "n"};
	tph_pod_desc p = {.name = "p", .namespace_ = "ns"};
	tph_podgroup_desc g = {.name = "g", .namespace_ = "ns"};
	tph_queue_desc q = {.name = "q", .weight = 1};
	tph_priority_class_desc pc = {.name = "pc"};
	tph_hypernode_desc h = {.name = "h"};
	tph_quota_desc qu = {.name = "qu", .namespace_ = "ns"};
	assert_int_equal(tph_cluster_put_node(c, &n, &d), TPH_EINVAL);
	assert_string_equal(d.msg, "tph_node_desc not initialised: start from TPH_NODE_DESC_INIT");
	assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_EINVAL);
	assert_string_equal(d.msg, "tph_pod_desc not initialised: start from TPH_POD_DESC_INIT");
	assert_int_equal(tph_cluster_put_podgroup(c, &g, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "TPH_PODGROUP_DESC_INIT"));
	assert_int_equal(tph_cluster_put_queue(c, &q, &d), TPH_EINVAL);
	assert_string_equal(d.msg,
	                    "tph_queue_desc not initialised: start from TPH_QUEUE_DESC_INIT");
	assert_int_equal(tph_cluster_put_priority_class(c, &pc, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "TPH_PRIORITY_CLASS_DESC_INIT"));
	assert_int_equal(tph_cluster_put_hypernode(c, &h, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "TPH_HYPERNODE_DESC_INIT"));
	assert_int_equal(tph_cluster_put_quota(c, &qu, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "TPH_QUOTA_DESC_INIT"));
	n.size = sizeof n - 8; /* a struct from older headers */
	assert_int_equal(tph_cluster_put_node(c, &n, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "other headers"));
	tph_subgroup_policy sg = {.name = "sg"}; /* subgroup size 0: not from its macro */
	g = (tph_podgroup_desc)TPH_PODGROUP_DESC_INIT;
	g.name = "g";
	g.namespace_ = "ns";
	g.subgroups = &sg;
	g.n_subgroups = 1;
	assert_int_equal(tph_cluster_put_podgroup(c, &g, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "TPH_SUBGROUP_POLICY_INIT"));
	sg = (tph_subgroup_policy)TPH_SUBGROUP_POLICY_INIT;
	sg.name = "sg";
	assert_int_equal(tph_cluster_put_podgroup(c, &g, &d), TPH_OK);
	assert_string_equal(d.msg, ""); /* a success leaves no stale message */
	tph_snapshot *s = snap(c);
	assert_int_equal(s->nodes.n + s->tasks.n + s->queues.n + s->pclasses.n, 0);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

/* What the INIT macros leave is Kubernetes' and Volcano's default: a ready node, a queue of
 * weight 1 that is open and reclaimable, a preemptable pod, a podgroup of minMember 1. */
static void test_init_means_defaults(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_node_desc n = TPH_NODE_DESC_INIT;
	n.name = "n1";
	tph_queue_desc q = TPH_QUEUE_DESC_INIT;
	q.name = "default";
	tph_podgroup_desc g = TPH_PODGROUP_DESC_INIT;
	g.name = "g";
	g.namespace_ = "ns";
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "p";
	p.namespace_ = "ns";
	p.pod_group = "g";
	assert_int_equal(tph_cluster_put_node(c, &n, NULL), TPH_OK);
	assert_int_equal(tph_cluster_put_queue(c, &q, NULL), TPH_OK);
	assert_int_equal(tph_cluster_put_podgroup(c, &g, NULL), TPH_OK);
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK);
	tph_snapshot *s = snap(c);
	assert_int_equal(s->nodes.flags[0], TPH_NODE_READY);
	assert_int_equal(s->queues.weight[0], 1);
	assert_int_equal(s->queues.reclaimable[0], 1);
	assert_int_equal(s->queues.state[0], TPH_QUEUE_OPEN);
	assert_int_equal(s->jobs.min_member[0], 1);
	assert_int_equal(s->jobs.topo_tier[0], -1);
	assert_int_equal(s->tasks.status[0], TPH_TS_PENDING);
	assert_true(s->tasks.flags[0] & TPH_TASK_PREEMPTABLE);
	tph_snapshot_release(s);
	/* the zero-named fields say the opposite when set */
	n.not_ready = true;
	q.not_reclaimable = true;
	q.weight = 0; /* a valid weight of its own */
	p.preemptable = TPH_PREEMPTABLE_NO;
	assert_int_equal(tph_cluster_put_node(c, &n, NULL), TPH_OK);
	assert_int_equal(tph_cluster_put_queue(c, &q, NULL), TPH_OK);
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK);
	s = snap(c);
	assert_int_equal(s->nodes.flags[0], 0);
	assert_int_equal(s->queues.weight[0], 0);
	assert_int_equal(s->queues.reclaimable[0], 0);
	assert_false(s->tasks.flags[0] & TPH_TASK_PREEMPTABLE);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_put_replace_remove_order),
	    cmocka_unit_test(test_pod_churn_keeps_order),
	    cmocka_unit_test(test_validation_changes_nothing),
	    cmocka_unit_test(test_gt_lt_must_be_integers),
	    cmocka_unit_test(test_dimension_growth),
	    cmocka_unit_test(test_too_many_dimensions),
	    cmocka_unit_test(test_duplicate_uid),
	    cmocka_unit_test(test_spec_interning),
	    cmocka_unit_test(test_duplicate_label_key),
	    cmocka_unit_test(test_limits_and_conditions),
	    cmocka_unit_test(test_limits_and_conditions_validated),
	    cmocka_unit_test(test_fault_injection),
	    cmocka_unit_test(test_set_shard_and_remove_kinds),
	    cmocka_unit_test(test_descriptors_need_init),
	    cmocka_unit_test(test_init_means_defaults),
	    cmocka_unit_test(test_cluster_totals_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
