/* Unit tests for bind annotations (kernel/src/session/annotations.c, tph_task_annotate): set,
 * replace and remove outside statements; set by an allocate handler inside a statement and
 * undone by its discard (also after a merge, and when a later handler refuses the
 * allocation); listed on binds only, keys sorted; backfill's Session.Allocate binds even when
 * a handler refuses. A plugin "annotator" sets "zz" to "z", then key `key` to the task's node
 * name on allocate;
 * "refuser" refuses every allocation when its `refuse` argument says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

typedef struct ann_st {
	const char *key;
	bool refuse;
} ann_st;

static const tph_arg_spec ann_args[] = {
    {"key", TPH_ARG_STRING, "k", 0, 0, offsetof(ann_st, key), NULL},
    {"refuse", TPH_ARG_BOOL, "false", 0, 0, offsetof(ann_st, refuse), NULL},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL},
};

static int annotate(void *stv, tph_session *s, tph_idx task)
{
	ann_st *st = stv;
	tph_idx node = tph_session_task_node(s, task);
	int rc = tph_task_annotate(s, task, "zz", "z");
	return rc ? rc : tph_task_annotate(s, task, st->key, tph_session_node_name(s, node));
}

static int refuse(void *stv, tph_session *s, tph_idx task)
{
	(void)s, (void)task;
	return ((ann_st *)stv)->refuse ? TPH_ENOENT : TPH_OK;
}

static int annotator_open(tph_session *s, void *st, const tph_args *a)
{
	(void)st, (void)a;
	return tph_on_task_events(s, annotate, NULL);
}

static int refuser_open(tph_session *s, void *st, const tph_args *a)
{
	(void)st, (void)a;
	return tph_on_task_events(s, refuse, NULL);
}

static const tph_plugin annotator = {
    .abi = TPH_PLUGIN_ABI,
    .name = "annotator",
    .args = ann_args,
    .state_size = sizeof(ann_st),
    .on_session_open = annotator_open,
};
static const tph_plugin refuser = {
    .abi = TPH_PLUGIN_ABI,
    .name = "refuser",
    .args = ann_args,
    .state_size = sizeof(ann_st),
    .on_session_open = refuser_open,
};

#define SCENARIO(actions, plugins)                                                   \
	"conf: |\n  actions: \"" actions "\"\n  tiers:\n  - plugins:\n" plugins      \
	"queues: [{name: default}]\n"                                                \
	"nodes:\n  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n" \
	"  - {name: n2, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"         \
	"podGroups: [{name: pg, namespace: ns, minMember: 1}]\n"                     \
	"pods:\n  - {name: a, namespace: ns, podGroup: pg, requests: {cpu: '1'}}\n"  \
	"  - {name: b, namespace: ns, podGroup: pg, requests: {cpu: '1'}}\n"         \
	"  - {name: r, namespace: ns, podGroup: pg, phase: Running, nodeName: n2, "  \
	"requests: {cpu: '1'}}\n"

#define ANNOTATOR "    - name: annotator\n"

static int setup(void **state)
{
	static bool registered;
	tph_diag d = {0};
	if (!registered) {
		assert_int_equal(tph_plugins_register(&annotator, &d), TPH_OK);
		assert_int_equal(tph_plugins_register(&refuser, &d), TPH_OK);
		registered = true;
	}
	*state = NULL;
	return 0;
}

static void test_set_replace_remove(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, SCENARIO("", ANNOTATOR));
	tph_session *s = p.s;
	tph_idx a = pts_task(&p, "ns/a");
	assert_null(tph_task_annotation(s, a, "x"));
	assert_int_equal(tph_task_annotate(s, a, "x", "1"), TPH_OK);
	assert_string_equal(tph_task_annotation(s, a, "x"), "1");
	char buf[4] = "2";
	assert_int_equal(tph_task_annotate(s, a, "x", buf), TPH_OK);
	buf[0] = '9'; /* the value was copied */
	assert_string_equal(tph_task_annotation(s, a, "x"), "2");
	assert_int_equal(tph_task_annotate(s, a, "x", NULL), TPH_OK);
	assert_null(tph_task_annotation(s, a, "x"));
	assert_int_equal(tph_task_annotate(s, a, "never", NULL), TPH_OK);
	assert_int_equal(tph_task_annotate(s, a, "", "v"), TPH_EINVAL);
	assert_int_equal(tph_task_annotate(s, a, NULL, "v"), TPH_EINVAL);
	assert_int_equal(tph_task_annotate(s, s->tasks.n, "x", "v"), TPH_EINVAL);
	assert_null(tph_task_annotation(s, s->tasks.n, "x"));
	pts_free(&p);
}

static void test_discard_restores(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, SCENARIO("", ANNOTATOR));
	tph_session *s = p.s;
	tph_idx a = pts_task(&p, "ns/a"), b = pts_task(&p, "ns/b");
	assert_int_equal(tph_task_annotate(s, b, "k", "before"), TPH_OK);
	tph_statement st, st2;
	tph_stmt_init(&st, s);
	tph_stmt_init(&st2, s);
	assert_int_equal(tph_stmt_allocate(&st, a, pts_node(&p, "n1")), TPH_OK);
	assert_int_equal(tph_stmt_allocate(&st2, b, pts_node(&p, "n2")), TPH_OK);
	assert_string_equal(tph_task_annotation(s, a, "k"), "n1");
	assert_string_equal(tph_task_annotation(s, b, "k"), "n2");
	assert_int_equal(tph_stmt_merge(&st, &st2), TPH_OK);
	tph_stmt_discard(&st);
	assert_null(tph_task_annotation(s, a, "k"));
	assert_string_equal(tph_task_annotation(s, b, "k"), "before");
	/* Outside a statement a handler's annotation stands. */
	tph_ssn_allocate(s, a, pts_node(&p, "n2"));
	assert_string_equal(tph_task_annotation(s, a, "k"), "n2");
	pts_free(&p);
}

static void test_refused_allocation_restores(void **state)
{
	(void)state;
	pts p;
	pts_open(&p,
	         SCENARIO("", ANNOTATOR "    - name: refuser\n      arguments: {refuse: true}\n"));
	tph_session *s = p.s;
	tph_idx a = pts_task(&p, "ns/a");
	tph_statement st;
	tph_stmt_init(&st, s);
	assert_int_equal(tph_stmt_allocate(&st, a, pts_node(&p, "n1")), TPH_ENOENT);
	assert_int_equal(st.n, 0);
	assert_int_equal(st.n_ann, 0);
	assert_null(tph_task_annotation(s, a, "k"));
	assert_int_equal(s->tasks.status[a], TPH_TS_PENDING);
	tph_stmt_free(&st);
	pts_free(&p);
}

/* Binds list the annotations, keys sorted; evictions and pipelined rows none. */
static void test_binds_carry_annotations(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, SCENARIO("allocate", ANNOTATOR));
	pts_run(&p);
	assert_int_equal(p.log->n_binds, 2);
	for (uint32_t i = 0; i < p.log->n_binds; i++) {
		const tph_decision *d = &p.log->binds[i];
		assert_int_equal(d->annotations.n, 2);
		assert_string_equal(d->annotations.items[0].key, "k");
		assert_string_equal(d->annotations.items[0].value, d->node);
		assert_string_equal(d->annotations.items[1].key, "zz");
		assert_string_equal(d->annotations.items[1].value, "z");
	}
	pts_free(&p);
}

/* Session.Allocate ignores event.Err: backfill binds what a statement would roll back. */
static void test_backfill_ignores_refusal(void **state)
{
	(void)state;
	pts p;
	pts_open(&p,
	         SCENARIO("allocate", "    - name: refuser\n      arguments: {refuse: true}\n"));
	pts_run(&p);
	assert_int_equal(p.log->n_binds, 0);
	pts_free(&p);
	/* a best-effort pod goes to backfill */
	pts_open(&p, "conf: |\n  actions: \"allocate, backfill\"\n  tiers:\n  - plugins:\n"
	             "    - name: refuser\n      arguments: {refuse: true}\n" ANNOTATOR
	             "queues: [{name: default}]\n"
	             "nodes:\n  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"
	             "pods:\n  - {name: be, namespace: ns}\n");
	pts_run(&p);
	assert_int_equal(p.log->n_binds, 1);
	assert_int_equal(p.log->binds[0].annotations.n, 2);
	assert_string_equal(p.log->binds[0].annotations.items[0].value, "n1");
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_set_replace_remove, setup),
	    cmocka_unit_test_setup(test_discard_restores, setup),
	    cmocka_unit_test_setup(test_refused_allocation_restores, setup),
	    cmocka_unit_test_setup(test_binds_carry_annotations, setup),
	    cmocka_unit_test_setup(test_backfill_ignores_refusal, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
