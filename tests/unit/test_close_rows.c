/* Rows session close builds (session_close.c): a podgroup row and a job row name the job
 * "namespace/name", cut where the old fixed buffers cut (511 bytes for the podgroup rows,
 * 1,535 for the job rows), and a bare pod's own job gets its key made from its namespace and
 * name; Releasing tasks still on a node count toward a podgroup's phase. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

#define NEAR 600  /* a name past the podgroup rows' cut, inside the job rows' */
#define FAR  1600 /* past both */

static char near_name[NEAR + 1], far_name[FAR + 1];

/* Three podgroups (short, NEAR and FAR names) and a bare pod, each with one pod that fits no
 * node, so each job is pending and gets a job row. */
static char *scenario(void)
{
	memset(near_name, 'a', NEAR);
	memset(far_name, 'b', FAR);
	static const char head[] =
	    "conf: |\n  actions: \"enqueue, allocate\"\n  tiers:\n  - plugins:\n    - name: gang\n"
	    "  - plugins:\n    - name: predicates\n"
	    "queues: [{name: q1}, {name: default}]\n"
	    "nodes:\n  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n";
	size_t cap = sizeof head + 2 * (NEAR + FAR) + 1024;
	char *y = malloc(cap);
	assert_non_null(y);
	snprintf(y, cap,
	         "%spodGroups:\n"
	         "  - {name: pg, namespace: ns, queue: q1, minMember: 1}\n"
	         "  - {name: %s, namespace: ns, queue: q1, minMember: 1}\n"
	         "  - {name: %s, namespace: ns, queue: q1, minMember: 1}\n"
	         "pods:\n"
	         "  - {name: p1, namespace: ns, podGroup: pg, requests: {cpu: '9'}}\n"
	         "  - {name: p2, namespace: ns, podGroup: %s, requests: {cpu: '9'}}\n"
	         "  - {name: p3, namespace: ns, podGroup: %s, requests: {cpu: '9'}}\n"
	         "  - {name: bare, namespace: ns, requests: {cpu: '9'}}\n",
	         head, near_name, far_name, near_name, far_name);
	return y;
}

/* "ns/" + name, cut to its first cap - 1 bytes. */
static void key_cut(char *out, const char *name, size_t cap)
{
	size_t n = 3 + strlen(name);
	n = n < cap ? n : cap - 1;
	memcpy(out, "ns/", 3);
	memcpy(out + 3, name, n - 3);
	out[n] = '\0';
}

static bool has_phase(const tph_decision_log *l, const char *key)
{
	for (uint32_t i = 0; i < l->n_phases; i++)
		if (!strcmp(l->phases[i].podgroup, key))
			return true;
	return false;
}

static bool has_job(const tph_decision_log *l, const char *key)
{
	for (uint32_t i = 0; i < l->n_jobs; i++)
		if (!strcmp(l->jobs[i].podgroup, key))
			return true;
	return false;
}

static void test_keys_and_cuts(void **state)
{
	(void)state;
	char *y = scenario();
	pts p;
	pts_open(&p, y);
	pts_run(&p);
	char want[2048];
	assert_int_equal(p.log->n_phases, 3); /* the bare pod's job has no podgroup row */
	assert_true(has_phase(p.log, "ns/pg"));
	key_cut(want, near_name, 512);
	assert_int_equal(strlen(want), 511);
	assert_true(has_phase(p.log, want));
	key_cut(want, far_name, 512);
	assert_true(has_phase(p.log, want));

	assert_int_equal(p.log->n_jobs, 4);
	assert_true(has_job(p.log, "ns/pg"));
	assert_true(has_job(p.log, "ns/bare"));
	key_cut(want, near_name, 1536);
	assert_int_equal(strlen(want), NEAR + 3); /* whole */
	assert_true(has_job(p.log, want));
	key_cut(want, far_name, 1536);
	assert_int_equal(strlen(want), 1535);
	assert_true(has_job(p.log, want));
	pts_free(&p);
	free(y);
}

static const char *phase_of(const tph_decision_log *l, const char *key)
{
	for (uint32_t i = 0; i < l->n_phases; i++)
		if (!strcmp(l->phases[i].podgroup, key))
			return l->phases[i].phase;
	fail_msg("no podgroup row for %s", key);
	return NULL;
}

#define POD(name, pg, extra) \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", requests: {cpu: '1'}" extra "}\n"
#define RUNNING ", phase: Running, nodeName: n1"

/* getPodGroupPhase: a Releasing task on its node counts as scheduled, with a Running one
 * (leaving) or alone (gone). */
static void test_releasing_phase(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, "conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: gang\n"
	             "queues: [{name: q1}]\n"
	             "nodes:\n  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"
	             "podGroups:\n"
	             "  - {name: leaving, namespace: ns, queue: q1, minMember: 2, phase: Inqueue}\n"
	             "  - {name: gone, namespace: ns, queue: q1, minMember: 1, phase: Inqueue}\n"
	             "  - {name: plain, namespace: ns, queue: q1, minMember: 1, phase: Inqueue}\n"
	             "pods:\n" POD("leaving-0", "leaving", RUNNING)
	                 POD("leaving-1", "leaving", RUNNING ", deleting: true")
	                     POD("gone-0", "gone", RUNNING ", deleting: true")
	                         POD("plain-0", "plain", RUNNING));
	pts_run(&p);
	assert_string_equal(phase_of(p.log, "ns/leaving"), "Running");
	assert_string_equal(phase_of(p.log, "ns/gone"), "Running");
	assert_string_equal(phase_of(p.log, "ns/plain"), "Running");
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keys_and_cuts),
	    cmocka_unit_test(test_releasing_phase),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
