/* A kai session over a scenario written in the test, and lookups by pod name: shared by the kai
 * unit tests. Every step fails the test on an error, printing the loader's message. Include
 * after cmocka.h. */
#ifndef TPH_TEST_KAI_FIXTURE_H
#define TPH_TEST_KAI_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "session/check_core.h"
#include "session/kai/kai_int.h"
#include "tephra/tephra.h"

typedef struct kf {
	tph_scenario *sc;
	tph_kai_snapshot *snap;
	tph_kai_session *s;
	tph_check_report r; /* for probe tests */
} kf;

/* Load the scenario text, build its snapshot and open a session over its conf. */
static inline void kai_load(kf *f, const char *text)
{
	tph_diag d = {0};
	memset(f, 0, sizeof *f);
	int rc = tph_scenario_load_buffer(text, strlen(text), "t.yaml", &f->sc, &d);
	if (rc)
		fprintf(stderr, "%s\n", d.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(tph_kai_snapshot_build(tph_scenario_kai_cluster(f->sc),
	                                        tph_scenario_now(f->sc), &f->snap, &d),
	                 0);
	assert_int_equal(tph_kai_session_open(f->snap, tph_scenario_conf(f->sc), &f->s, &d), 0);
}

/* kai_load over a scenario with actions, one tier of `plugins` (a YAML flow list), an
 * unlimited queue `q` and the rest as given. */
static inline void kai_open_tier(kf *f, const char *actions, const char *plugins, const char *rest)
{
	char text[8192];
	snprintf(text, sizeof text,
	         "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"%s\"\n"
	         "  tiers:\n  - plugins: %s\n"
	         "queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, "
	         "limit: -1}, memory: {quota: -1, limit: -1}}}]\n%s",
	         actions, plugins, rest);
	kai_load(f, text);
}

static inline void run_ok(kf *f)
{
	tph_diag d = {0};
	assert_int_equal(tph_kai_session_run(f->s, &d), 0);
}

static inline void close_kai(kf *f)
{
	tph_report_free(&f->r);
	tph_kai_session_free(f->s);
	tph_kai_snapshot_free(f->snap);
	tph_scenario_free(f->sc);
}

static inline uint32_t task_of(const kf *f, const char *name)
{
	const tph_kai_view *v = tph_kai_session_view(f->s);
	for (uint32_t t = 0; t < v->tasks.n; t++)
		if (strcmp(v->tasks.name[t], name) == 0)
			return t;
	fail_msg("no task %s", name);
	return 0;
}

/* The pool's nodes (in_pool), in index order; how many. */
static inline uint32_t kai_pool_of(const kf *f, uint32_t *pool)
{
	const tph_kai_view *v = tph_kai_session_view(f->s);
	uint32_t n = 0;
	for (uint32_t i = 0; i < v->nodes.n; i++)
		if (v->nodes.in_pool[i])
			pool[n++] = i;
	return n;
}

static inline uint32_t kai_node_named(const kf *f, const char *name)
{
	const tph_kai_view *v = tph_kai_session_view(f->s);
	for (uint32_t n = 0; n < v->nodes.n; n++)
		if (strcmp(v->nodes.name[n], name) == 0)
			return n;
	fail_msg("no node %s", name);
	return 0;
}

static inline uint32_t job_of(const kf *f, const char *name)
{
	const tph_kai_view *v = tph_kai_session_view(f->s);
	for (uint32_t j = 0; j < v->jobs.n; j++)
		if (strcmp(v->jobs.name[j], name) == 0)
			return j;
	fail_msg("no job %s", name);
	return 0;
}

static inline const char *node_of(const kf *f, const char *task)
{
	int32_t n = tph_kai_session_node(f->s)[task_of(f, task)];
	return n < 0 ? "" : tph_kai_session_view(f->s)->nodes.name[n];
}

static inline uint8_t status_of(const kf *f, const char *task)
{
	return tph_kai_session_status(f->s)[task_of(f, task)];
}

#endif
