/* Test helper for the action tests: a spy plugin ("spy") whose behaviour the scenario's conf
 * chooses through its arguments, and a runner (harness.h) that loads a scenario, runs its
 * actions and closes the session. Include after <cmocka.h>.
 *
 * spy arguments: ready (bool) registers a mini gang (JobReady: allocated + succeeded tasks >=
 * minMember; JobPipelined also counting pipelined ones); deny (string) rejects JobEnqueueable
 * for podgroups whose name starts with it; overused (string) names an overused queue;
 * predicate (bool) rejects a node whose label "deny" equals the task's role and counts calls
 * per node; score (bool) scores a node by its label "score"; fair (bool) orders queues by their
 * Inqueue jobs, fewest first (an order that changes as enqueue admits); prefail (string)
 * names a role whose tasks PrePredicate refuses, UnschedulableAndUnresolvable. JobEnqueued
 * calls are recorded. */
#ifndef TPH_ACTION_SPY_H
#define TPH_ACTION_SPY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct spy_st {
	bool ready, predicate, score, fair;
	const char *deny, *overused, *prefail;
	tph_sid deny_key, score_key, prefail_role;
	tph_reason_code code, unres;
} spy_st;

static struct {
	tph_idx enqueued[256];
	uint32_t n_enqueued;
	long pred_calls[64]; /* per node; tests run with one thread */
} spy_log;

static const tph_arg_spec spy_args[] = {
    {"ready", TPH_ARG_BOOL, "false", 0, 0, offsetof(spy_st, ready), NULL},
    {"predicate", TPH_ARG_BOOL, "false", 0, 0, offsetof(spy_st, predicate), NULL},
    {"score", TPH_ARG_BOOL, "false", 0, 0, offsetof(spy_st, score), NULL},
    {"fair", TPH_ARG_BOOL, "false", 0, 0, offsetof(spy_st, fair), NULL},
    {"deny", TPH_ARG_STRING, NULL, 0, 0, offsetof(spy_st, deny), NULL},
    {"overused", TPH_ARG_STRING, NULL, 0, 0, offsetof(spy_st, overused), NULL},
    {"prefail", TPH_ARG_STRING, NULL, 0, 0, offsetof(spy_st, prefail), NULL},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static inline int64_t spy_count(const tph_session *s, tph_idx j, bool pipelined)
{
	const uint32_t *c = s->js.count + (size_t)j * TPH_TS_COUNT;
	return (int64_t)c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] + c[TPH_TS_BOUND] +
	       c[TPH_TS_RUNNING] + c[TPH_TS_SUCCEEDED] + (pipelined ? c[TPH_TS_PIPELINED] : 0);
}

static inline bool spy_ready(void *st, const tph_session *s, tph_idx j)
{
	(void)st;
	return spy_count(s, j, false) >= s->jobs->min_member[j];
}

static inline int spy_pipelined(void *st, const tph_session *s, tph_idx j)
{
	(void)st;
	return spy_count(s, j, true) >= s->jobs->min_member[j] ? TPH_PERMIT : TPH_REJECT;
}

static inline int spy_enqueueable(void *stv, const tph_session *s, tph_idx j)
{
	spy_st *st = stv;
	const char *name = pts_str(s, s->jobs->name[j]);
	return strncmp(name, st->deny, strlen(st->deny)) ? TPH_ABSTAIN : TPH_REJECT;
}

static inline void spy_enqueued(void *st, tph_session *s, tph_idx j)
{
	(void)st;
	(void)s;
	if (spy_log.n_enqueued < 256)
		spy_log.enqueued[spy_log.n_enqueued++] = j;
}

static inline bool spy_overused(void *stv, const tph_session *s, tph_idx q)
{
	spy_st *st = stv;
	return !strcmp(pts_str(s, s->queues->name[q]), st->overused);
}

static inline void spy_predicate(void *stv, const tph_session *s, tph_idx task,
                                 const tph_idx *nodes, uint32_t n, tph_reason_code *out)
{
	spy_st *st = stv;
	for (uint32_t i = 0; i < n; i++) {
		if (nodes[i] < 64)
			spy_log.pred_calls[nodes[i]]++;
		tph_sid v = tph_labels_get(s->nodes.meta[nodes[i]]->labels, st->deny_key);
		out[i] = v != TPH_SID_NONE && v == s->tasks.role[task] ? st->code : TPH_PASS;
	}
}

static inline void spy_score(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                             uint32_t n, double *out)
{
	spy_st *st = stv;
	(void)task;
	for (uint32_t i = 0; i < n; i++) {
		tph_sid v = tph_labels_get(s->nodes.meta[nodes[i]]->labels, st->score_key);
		out[i] = v == TPH_SID_NONE ? 0.0 : atof(pts_str(s, v));
	}
}

static inline tph_reason_code spy_prepredicate(void *stv, const tph_session *s, tph_idx task)
{
	const spy_st *st = stv;
	return s->tasks.role[task] == st->prefail_role ? st->unres : TPH_PASS;
}

/* Queues with fewer Inqueue jobs first: an order that changes as enqueue admits. */
static inline int spy_fair(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	(void)st;
	int na = 0, nb = 0;
	for (tph_idx j = 0; j < s->jobs->n; j++) {
		na += s->jobs->queue[j] == a && s->js.phase[j] == TPH_PG_INQUEUE;
		nb += s->jobs->queue[j] == b && s->js.phase[j] == TPH_PG_INQUEUE;
	}
	return na - nb;
}

static inline int spy_open(tph_session *s, void *stv, const tph_args *args)
{
	spy_st *st = stv;
	(void)args;
	st->deny_key = tph_strtab_find(s->snap->strs, "deny", 4);
	st->score_key = tph_strtab_find(s->snap->strs, "score", 5);
	st->code = tph_reason(s, "spy denied the node", false);
	int rc = tph_on_job_enqueued(s, spy_enqueued);
	if (!rc && st->ready)
		rc = tph_on_job_ready(s, spy_ready);
	if (!rc && st->ready)
		rc = tph_on_job_pipelined(s, spy_pipelined);
	if (!rc && st->deny)
		rc = tph_on_job_enqueueable(s, spy_enqueueable);
	if (!rc && st->overused)
		rc = tph_on_overused(s, spy_overused);
	if (!rc && st->predicate)
		rc = tph_on_predicate(s, spy_predicate);
	if (!rc && st->score)
		rc = tph_on_node_order(s, spy_score);
	if (!rc && st->fair)
		rc = tph_on_queue_order(s, spy_fair);
	if (!rc && st->prefail) {
		st->prefail_role = tph_strtab_find(s->snap->strs, st->prefail, strlen(st->prefail));
		st->unres = tph_reason(s, "spy refused the pod", true);
		if (st->prefail_role != TPH_SID_NONE)
			rc = tph_on_prepredicate(s, spy_prepredicate);
	}
	return rc;
}

static const tph_plugin spy_plugin = {
    TPH_PLUGIN_ABI, "spy", spy_args, sizeof(spy_st), spy_open, NULL,
};

/* ---- running a scenario ---- */

typedef pts run;

static inline int spy_setup(void **state)
{
	(void)state;
	static bool done;
	tph_diag d = {0};
	if (!done && tph_plugins_register(&spy_plugin, &d)) {
		fprintf(stderr, "spy: %s\n", d.msg);
		return -1;
	}
	done = true;
	memset(&spy_log, 0, sizeof spy_log);
	return 0;
}

static inline void run_scenario(run *r, const char *yaml, int threads, bool naive)
{
	memset(&spy_log, 0, sizeof spy_log);
	tph_session_opts o = {.threads = threads, .naive = naive};
	pts_open_with(r, yaml, &o);
	pts_run(r);
}

/* The node `pod` was bound to, or NULL. */
static inline const char *run_bound(const run *r, const char *pod)
{
	for (uint32_t i = 0; i < r->log->n_binds; i++)
		if (!strcmp(r->log->binds[i].pod, pod))
			return r->log->binds[i].node;
	return NULL;
}

static inline const char *run_pipelined(const run *r, const char *pod)
{
	for (uint32_t i = 0; i < r->log->n_pipelined; i++)
		if (!strcmp(r->log->pipelined[i].pod, pod))
			return r->log->pipelined[i].node;
	return NULL;
}

static inline const char *run_phase(const run *r, const char *pg)
{
	for (uint32_t i = 0; i < r->log->n_phases; i++)
		if (!strcmp(r->log->phases[i].podgroup, pg))
			return r->log->phases[i].phase;
	return NULL;
}

/* The session's status of a task after the run. */
static inline uint8_t run_status(const run *r, const char *ns_name)
{
	tph_idx t = pts_task(r, ns_name);
	return t == TPH_NOIDX ? TPH_TS_UNKNOWN : r->s->tasks.status[t];
}

static inline const char *run_job_name(const run *r, tph_idx j)
{
	return pts_str(r->s, r->s->jobs->name[j]);
}

#endif
