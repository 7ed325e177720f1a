/* Unit tests for the session cache (tph_session_cache_*: freed sessions' memory kept for the
 * next open, bounded, trimmable) and session-shared objects (tph_session_shared). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "harness.h"

static const char scn[] =
    "conf: |\n  actions: \"enqueue, allocate\"\n  tiers:\n  - plugins:\n    - name: gang\n"
    "    - name: predicates\n    - name: nodeorder\n    - name: binpack\n"
    "queues: [{name: q1}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"
    "  - {name: n2, allocatable: {cpu: '8', memory: 8Gi, pods: '10'}}\n"
    "podGroups: [{name: pg, namespace: c1, queue: q1, minMember: 2}]\n"
    "pods:\n"
    "  - {name: r, namespace: c1, podGroup: pg, phase: Running, nodeName: n1,"
    " requests: {cpu: '2'}}\n"
    "  - {name: a, namespace: c1, podGroup: pg, requests: {cpu: '3'}}\n"
    "  - {name: b, namespace: c1, podGroup: pg, requests: {cpu: '2'}}\n";

/* The decisions of one run of scn (pts_log_text, malloc'd). */
static char *run_once(void)
{
	pts p;
	pts_open(&p, scn);
	pts_run(&p);
	char *log = pts_log_text(p.log);
	pts_free(&p);
	return log;
}

static void test_cache_keeps_memory(void **state)
{
	(void)state;
	tph_session_cache_trim();
	assert_int_equal(tph_session_cache_count(NULL), 0);
	char *first = run_once();
	size_t bytes = 0;
	assert_int_equal(tph_session_cache_count(&bytes), 1);
	/* TPH_ARENA_MALLOC frees every arena block when a session is cached */
	assert_true(TPH_ARENA_MALLOC ? bytes == 0 : bytes > 0);
	pts p;
	pts_open(&p, scn); /* takes the cached memory */
	assert_int_equal(tph_session_cache_count(NULL), 0);
	pts_free(&p);
	assert_int_equal(tph_session_cache_count(NULL), 1);
	/* a session on reused memory decides as one on fresh memory */
	for (int i = 0; i < 3; i++) {
		char *again = run_once();
		assert_string_equal(first, again);
		free(again);
	}
	assert_true(strlen(first) > 0);
	free(first);
	assert_int_equal(tph_session_cache_trim(), bytes);
	assert_int_equal(tph_session_cache_count(&bytes), 0);
	assert_int_equal(bytes, 0);
}

static void test_cache_limit(void **state)
{
	(void)state;
	pts p[3];
	for (int i = 0; i < 3; i++)
		pts_open(&p[i], scn);
	for (int i = 0; i < 3; i++)
		pts_free(&p[i]);
	assert_int_equal(tph_session_cache_count(NULL), 2); /* the default bound */
	assert_int_equal(tph_session_cache_limit(0), 2);
	assert_int_equal(tph_session_cache_count(NULL), 0);
	free(run_once());
	assert_int_equal(tph_session_cache_count(NULL), 0); /* off: free gives it all back */
	assert_int_equal(tph_session_cache_limit(2), 0);
}

/* ---- session-shared objects ---- */

static int inits;

static int init_ok(void *obj, tph_session *s)
{
	(void)s;
	const unsigned char *b = obj;
	for (int i = 0; i < 64; i++)
		if (b[i])
			return TPH_EINVAL; /* handed over zeroed */
	inits++;
	*(int *)obj = 42;
	return TPH_OK;
}

static int init_fail(void *obj, tph_session *s)
{
	(void)obj, (void)s;
	return TPH_EINVAL;
}

static void test_shared_objects(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, scn);
	void *a = NULL, *b = NULL, *c = (void *)1;
	inits = 0;
	assert_int_equal(tph_session_shared(p.s, "test.a", 64, init_ok, &a), TPH_OK);
	assert_non_null(a);
	assert_int_equal(*(int *)a, 42);
	assert_int_equal(tph_session_shared(p.s, "test.a", 999, init_fail, &b), TPH_OK);
	assert_ptr_equal(a, b); /* built once: size and init are ignored */
	assert_int_equal(inits, 1);
	assert_int_equal(tph_session_shared(p.s, "test.b", 64, init_ok, &b), TPH_OK);
	assert_ptr_not_equal(a, b);
	assert_int_equal(inits, 2);
	/* a failed init keeps nothing: the next call tries again */
	assert_int_equal(tph_session_shared(p.s, "test.c", 64, init_fail, &c), TPH_EINVAL);
	assert_null(c);
	assert_int_equal(tph_session_shared(p.s, "test.c", 64, init_ok, &c), TPH_OK);
	assert_non_null(c);
	assert_int_equal(inits, 3);
	/* plugins that opened with the session already made theirs (the k8s view) */
	void *v = NULL;
	assert_int_equal(tph_session_shared(p.s, "k8s.nodeinfo", 8, init_fail, &v), TPH_OK);
	assert_non_null(v);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cache_keeps_memory),
	    cmocka_unit_test(test_cache_limit),
	    cmocka_unit_test(test_shared_objects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
