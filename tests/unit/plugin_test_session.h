/* Test helper for plugin unit tests: open a real session from a scenario string (loader,
 * cache, snapshot at the scenario's clock, the scenario's conf) and find its objects by
 * "namespace/name". Include after <cmocka.h>. */
#ifndef TPH_PLUGIN_TEST_SESSION_H
#define TPH_PLUGIN_TEST_SESSION_H

#include <stdio.h>
#include <string.h>

#include "ep.h"
#include "session.h"
#include "statement.h"
#include "subjob.h"
#include "tephra/tephra.h"

typedef struct pts {
	tph_scenario *scn;
	tph_snapshot *snap;
	tph_session *s;
	tph_diag d;
} pts;

static inline void pts_open(pts *p, const char *yaml)
{
	memset(p, 0, sizeof *p);
	int rc = tph_scenario_load_buffer(yaml, strlen(yaml), "test.yaml", &p->scn, &p->d);
	if (rc)
		fprintf(stderr, "scenario: %s\n", p->d.msg);
	assert_int_equal(rc, TPH_OK);
	rc = tph_cluster_snapshot(tph_scenario_cluster(p->scn), tph_scenario_now(p->scn), &p->snap,
	                          &p->d);
	assert_int_equal(rc, TPH_OK);
	rc = tph_session_open(p->snap, tph_scenario_conf(p->scn), NULL, &p->s, &p->d);
	if (rc)
		fprintf(stderr, "session: %s\n", p->d.msg);
	assert_int_equal(rc, TPH_OK);
}

static inline void pts_free(pts *p)
{
	tph_session_free(p->s);
	tph_snapshot_release(p->snap);
	tph_scenario_free(p->scn);
}

static inline bool pts_key_is(const tph_session *s, tph_sid ns, tph_sid name, const char *key)
{
	const char *a = tph_strtab_str(s->snap->strs, ns), *b = tph_strtab_str(s->snap->strs, name);
	size_t la = strlen(a);
	return !strncmp(key, a, la) && key[la] == '/' && !strcmp(key + la + 1, b);
}

static inline tph_idx pts_job(const pts *p, const char *key)
{
	for (tph_idx j = 0; j < p->s->jobs->n; j++)
		if (pts_key_is(p->s, p->s->jobs->ns[j], p->s->jobs->name[j], key))
			return j;
	fail_msg("no job %s", key);
	return TPH_NOIDX;
}

static inline tph_idx pts_task(const pts *p, const char *key)
{
	for (tph_idx t = 0; t < p->s->tasks.n; t++)
		if (pts_key_is(p->s, p->s->tasks.ns[t], p->s->tasks.name[t], key))
			return t;
	fail_msg("no task %s", key);
	return TPH_NOIDX;
}

/* Move a task to another status through the framework (job, node and subjob accounting).
 * A task that leaves Pending without a node goes to the first node; Pending has none. */
static inline void pts_set_status(pts *p, tph_idx t, tph_task_status st)
{
	tph_idx node = p->s->tasks.node[t];
	if (st == TPH_TS_PENDING)
		node = TPH_NOIDX;
	else if (node == TPH_NOIDX)
		node = 0;
	tph_task_move(p->s, t, (uint8_t)st, node);
}

#endif
