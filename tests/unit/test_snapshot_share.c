/* Pod columns a snapshot reads in place from the cache (cluster_share.c): every kind of cache
 * write after the snapshot (a put over a pod, a put into a slot freed by a trailing removal,
 * removal, compaction, growth, a new resource name, destroying the cache) leaves the snapshot's
 * task columns as they were taken; two snapshots share one set and are released in either order; a
 * cache with tombstones is copied, not shared; once no snapshot holds the set, a write copies
 * nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/mem.h"
#include "cache/cluster_int.h"

static tph_cluster *cache(void)
{
	tph_cluster *c = NULL;
	assert_int_equal(tph_cluster_create(&c), TPH_OK);
	tph_queue_desc q = TPH_QUEUE_DESC_INIT;
	q.name = "default";
	q.weight = 1;
	assert_int_equal(tph_cluster_put_queue(c, &q, NULL), TPH_OK);
	tph_node_desc n = TPH_NODE_DESC_INIT;
	n.name = "n0";
	assert_int_equal(tph_cluster_put_node(c, &n, NULL), TPH_OK);
	for (int v = 0; v < 6; v++) { /* the classes pods of version v name */
		char name[16];
		snprintf(name, sizeof name, "class%d", v);
		tph_priority_class_desc pc = TPH_PRIORITY_CLASS_DESC_INIT;
		pc.name = name;
		pc.value = 10 * v;
		assert_int_equal(tph_cluster_put_priority_class(c, &pc, NULL), TPH_OK);
	}
	return c;
}

/* Put pod `name` in its version `v`: every shared column differs between versions. */
static int put_pod(tph_cluster *c, const char *name, int v)
{
	char uid[32], role[32], pg[32], cls[32], val[32];
	snprintf(uid, sizeof uid, "%s-uid-%d", name, v);
	snprintf(role, sizeof role, "role%d", v);
	snprintf(pg, sizeof pg, "pg%d", v);
	snprintf(cls, sizeof cls, "class%d", v);
	snprintf(val, sizeof val, "v%d", v);
	tph_kv lab[] = {{"app", val}};
	tph_res_item rq[] = {{"cpu", 100 * (v + 1)}, {"memory", 1000 * (v + 1)}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = name;
	p.namespace_ = "ns";
	p.uid = uid;
	p.task_spec = role;
	p.pod_group = pg;
	p.priority_class = cls;
	p.labels = (tph_kv_list){lab, 1};
	p.node_selector = (tph_kv_list){lab, 1};
	p.requests = (tph_res_list){v % 2 ? rq : rq + 1, v % 2 ? 2u : 1u}; /* nonzero cpu too */
	p.creation = 1000 + v;
	p.node_name = v % 3 ? "n0" : NULL;
	p.phase = v % 3 ? TPH_POD_RUNNING : TPH_POD_PENDING;
	return tph_cluster_put_pod(c, &p, NULL);
}

static void pod(tph_cluster *c, const char *name, int v)
{
	assert_int_equal(put_pod(c, name, v), TPH_OK);
}

static void unpod(tph_cluster *c, const char *name)
{
	assert_int_equal(tph_cluster_remove_pod(c, "ns", name, NULL), TPH_OK);
}

static void pods(tph_cluster *c, int from, int to, int v)
{
	for (int i = from; i < to; i++) {
		char name[16];
		snprintf(name, sizeof name, "p%d", i);
		pod(c, name, v);
	}
}

static tph_snapshot *snap(tph_cluster *c)
{
	tph_snapshot *s = NULL;
	assert_int_equal(tph_cluster_snapshot(c, 42, &s, NULL), TPH_OK);
	return s;
}

/* Every task column of a snapshot, as bytes. */
#define NCOLS 18
typedef struct colv {
	const void *p;
	size_t elem;
} colv;

static void task_cols(const tph_snapshot *s, colv *o)
{
	const tph_task_store *t = &s->tasks;
	const colv v[NCOLS] = {{t->req, s->dims.n * 8},
	                       {t->job, 4},
	                       {t->status, 1},
	                       {t->node, 4},
	                       {t->nominated, 4},
	                       {t->priority, 4},
	                       {t->flags, 1},
	                       {t->creation, 8},
	                       {t->name, 4},
	                       {t->ns, 4},
	                       {t->uid, 4},
	                       {t->role, 4},
	                       {t->key, 4},
	                       {t->pclass, 4},
	                       {t->spec, 8},
	                       {t->meta, 8},
	                       {t->group, 4},
	                       {t->nonzero, 16}};
	memcpy(o, v, sizeof v);
}

typedef struct kept {
	uint32_t n;
	void *col[NCOLS];
} kept;

static kept keep(const tph_snapshot *s)
{
	kept k = {s->tasks.n, {0}};
	colv v[NCOLS];
	task_cols(s, v);
	for (int i = 0; i < NCOLS; i++) {
		k.col[i] = malloc(k.n * v[i].elem + 1);
		memcpy(k.col[i], v[i].p, k.n * v[i].elem);
	}
	return k;
}

/* The snapshot still holds what it held when `k` was kept; frees `k`. */
static void expect_kept(const tph_snapshot *s, kept *k)
{
	colv v[NCOLS];
	task_cols(s, v);
	assert_int_equal(s->tasks.n, k->n);
	for (int i = 0; i < NCOLS; i++) {
		assert_memory_equal(v[i].p, k->col[i], k->n * v[i].elem);
		free(k->col[i]);
	}
}

static uint32_t task_of(const tph_snapshot *s, const char *name)
{
	for (uint32_t t = 0; t < s->tasks.n; t++)
		if (!strcmp(tph_strtab_str(s->strs, s->tasks.name[t]), name))
			return t;
	return TPH_NOIDX;
}

/* Pod `name` reads the same in a and b (the cache's own copy kept what it did not write). */
static void expect_same_pod(const tph_snapshot *a, const tph_snapshot *b, const char *name)
{
	uint32_t i = task_of(a, name), j = task_of(b, name);
	assert_true(i != TPH_NOIDX && j != TPH_NOIDX);
	const tph_task_store *x = &a->tasks, *y = &b->tasks;
	assert_int_equal(x->key[i], y->key[j]);
	assert_int_equal(x->ns[i], y->ns[j]);
	assert_int_equal(x->uid[i], y->uid[j]);
	assert_int_equal(x->role[i], y->role[j]);
	assert_int_equal(x->pclass[i], y->pclass[j]);
	assert_int_equal(x->group[i], y->group[j]);
	assert_int_equal(x->creation[i], y->creation[j]);
	assert_ptr_equal(x->spec[i], y->spec[j]);
	assert_ptr_equal(x->meta[i], y->meta[j]);
	assert_memory_equal(x->nonzero + 2 * i, y->nonzero + 2 * j, 16);
	for (uint32_t d = 0; d < b->dims.n; d++) /* b may have more dimensions, zero in a's rows */
		assert_int_equal(d < a->dims.n ? x->req[(size_t)i * a->dims.n + d] : 0,
		                 y->req[(size_t)j * b->dims.n + d]);
}

static bool reads_cache(const tph_snapshot *s, const tph_cluster *c)
{
	return s->pod_share && (const void *)s->tasks.name == c->pods.col[P_NAME];
}

/* Every pod of `a` but those named in `changed` (",p3,": replaced or removed) reads the same
 * in `b`. */
static void expect_same_pods(const tph_snapshot *a, const tph_snapshot *b, const char *changed)
{
	for (uint32_t t = 0; t < a->tasks.n; t++) {
		const char *name = tph_strtab_str(a->strs, a->tasks.name[t]);
		char quoted[32];
		snprintf(quoted, sizeof quoted, ",%s,", name);
		if (!strstr(changed, quoted))
			expect_same_pod(a, b, name);
	}
}

/* A snapshot sharing the columns of ten pods, kept, then `write` done to the cache, which
 * changes the pods named in `changed`. */
static void after_write(void (*write)(tph_cluster *c), const char *changed)
{
	tph_cluster *c = cache();
	pods(c, 0, 10, 1);
	tph_snapshot *s = snap(c);
	assert_true(reads_cache(s, c));
	kept k = keep(s);
	write(c);
	assert_false(reads_cache(s, c)); /* the cache copied before it wrote */
	tph_snapshot *after = snap(c);
	expect_same_pods(s, after, changed);
	expect_kept(s, &k);
	tph_snapshot_release(after);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void put_over(tph_cluster *c)
{
	pod(c, "p3", 2);
}

static void put_over_last(tph_cluster *c)
{
	pod(c, "p9", 4);
}

static void refill_after_trailing_removal(tph_cluster *c)
{
	unpod(c, "p9");
	unpod(c, "p8");
	pod(c, "late", 5); /* lands in p8's old slot */
}

static void compact(tph_cluster *c)
{
	unpod(c, "p0");
	unpod(c, "p4");
	assert_int_equal(tph_kind_compact(c, &c->pods), TPH_OK);
}

static void grow(tph_cluster *c)
{
	uint32_t cap = c->pods.cap;
	pods(c, 10, (int)cap + 1, 3);
	assert_true(c->pods.cap > cap);
}

/* A new pod naming a new resource: every row column is laid out again. */
static void new_resource(tph_cluster *c)
{
	tph_res_item rq[] = {{"nvidia.com/gpu", 1000}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "gpu";
	p.namespace_ = "ns";
	p.requests = (tph_res_list){rq, 1};
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK);
	assert_int_equal(c->dims.n, 5);
}

static void test_put_over_pod(void **state)
{
	(void)state;
	after_write(put_over, ",p3,");
	after_write(put_over_last, ",p9,");
}

static void test_put_after_trailing_removal(void **state)
{
	(void)state;
	after_write(refill_after_trailing_removal, ",p8,p9,");
}

static void test_compaction(void **state)
{
	(void)state;
	after_write(compact, ",p0,p4,");
}

static void test_growth(void **state)
{
	(void)state;
	after_write(grow, "");
}

static void test_new_resource_name(void **state)
{
	(void)state;
	after_write(new_resource, "");
}

/* Removals and puts of new pods past the snapshot's slots write nothing it reads. */
static void test_writes_past_the_snapshot(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	pods(c, 0, 6, 1);
	tph_snapshot *s = snap(c);
	kept k = keep(s);
	unpod(c, "p2");
	pod(c, "new", 2);
	pod(c, "new", 3); /* over a slot no snapshot reads */
	assert_true(reads_cache(s, c));
	expect_kept(s, &k);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_cache_destroyed_first(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	pods(c, 0, 5, 1);
	tph_snapshot *s = snap(c);
	kept k = keep(s);
	tph_cluster_destroy(c);
	expect_kept(s, &k);
	tph_snapshot_release(s); /* frees the cache, and the set with it */
}

static void two_alive(bool first_released_first)
{
	tph_cluster *c = cache();
	pods(c, 0, 8, 1);
	tph_snapshot *a = snap(c);
	pod(c, "p8", 1); /* a fresh slot: no copy, the set grows to cover it */
	tph_snapshot *b = snap(c);
	assert_ptr_equal(a->pod_share, b->pod_share);
	assert_int_equal(atomic_load(&c->pods.share->refs), 3);
	kept ka = keep(a), kb = keep(b);
	tph_snapshot *gone = first_released_first ? a : b, *left = first_released_first ? b : a;
	kept *kl = first_released_first ? &kb : &ka;
	expect_kept(gone, first_released_first ? &ka : &kb);
	tph_snapshot_release(gone);
	pod(c, "p8", 2); /* read by b only */
	pod(c, "p1", 2);
	assert_false(reads_cache(left, c));
	expect_kept(left, kl);
	tph_snapshot_release(left);
	tph_cluster_destroy(c);
}

static void test_two_snapshots_one_set(void **state)
{
	(void)state;
	two_alive(true);
	two_alive(false);
}

/* With a tombstone among the slots, task t is not slot t: the columns are copied, and hold
 * each live pod in order. */
static void test_holes_are_copied(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	pods(c, 0, 6, 1);
	unpod(c, "p2");
	tph_snapshot *s = snap(c);
	assert_null(s->pod_share);
	assert_int_equal(s->tasks.n, 5);
	const char *want[] = {"p0", "p1", "p3", "p4", "p5"};
	for (uint32_t t = 0; t < 5; t++) {
		uint32_t slot = tph_kind_find(&c->pods, s->tasks.key[t]);
		assert_string_equal(tph_strtab_str(s->strs, s->tasks.name[t]), want[t]);
		assert_int_equal(s->tasks.uid[t], KCOL(&c->pods, P_UID, tph_sid)[slot]);
		assert_int_equal(s->tasks.creation[t], 1001);
		assert_ptr_equal(s->tasks.spec[t], KCOL(&c->pods, P_SPEC, void *)[slot]);
		assert_int_equal(s->tasks.nonzero[2 * t], 200);
		assert_int_equal(s->tasks.req[(size_t)t * s->dims.n + TPH_RES_CPU], 200);
		assert_int_equal(s->tasks.req[(size_t)t * s->dims.n + TPH_RES_MEMORY], 2000);
	}
	assert_int_equal(tph_snapshot_bytes(s), s->arena.allocated);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

/* A released snapshot lets go of the set: the next write takes the columns back uncopied,
 * and a later snapshot over the parked arena shares them again. */
static void test_write_after_release_copies_nothing(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	pods(c, 0, 4, 1);
	tph_snapshot *s = snap(c);
	size_t bytes = tph_snapshot_bytes(s);
	assert_true(bytes > s->arena.allocated);
	tph_snapshot_release(s);
	void *name = c->pods.col[P_NAME];
	pod(c, "p1", 2);
	assert_null(c->pods.share);
	assert_ptr_equal(c->pods.col[P_NAME], name);
	s = snap(c); /* over the parked arena */
	assert_true(reads_cache(s, c));
	assert_int_equal(s->tasks.creation[1], 1002);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

/* A copy that fails leaves the put undone and the snapshot as it was. */
static void test_copy_out_of_memory(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	pods(c, 0, 10, 1);
	tph_snapshot *s = snap(c);
	kept k = keep(s);
	int rc;
	long n = 1;
	do {
		tph_mem_fail_after(n++, 1);
		rc = put_pod(c, "p3", 2);
		tph_mem_fail_after(0, 0);
		if (rc == TPH_ENOMEM)
			assert_int_equal(s->tasks.creation[3], 1001);
	} while (rc == TPH_ENOMEM);
	assert_int_equal(rc, TPH_OK);
	assert_false(reads_cache(s, c));
	expect_kept(s, &k);
	tph_snapshot *after = snap(c);
	assert_int_equal(after->tasks.creation[3], 1002);
	expect_same_pods(s, after, ",p3,");
	tph_snapshot_release(after);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_put_over_pod),
	    cmocka_unit_test(test_put_after_trailing_removal),
	    cmocka_unit_test(test_compaction),
	    cmocka_unit_test(test_growth),
	    cmocka_unit_test(test_new_resource_name),
	    cmocka_unit_test(test_writes_past_the_snapshot),
	    cmocka_unit_test(test_cache_destroyed_first),
	    cmocka_unit_test(test_two_snapshots_one_set),
	    cmocka_unit_test(test_holes_are_copied),
	    cmocka_unit_test(test_write_after_release_copies_nothing),
	    cmocka_unit_test(test_copy_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
