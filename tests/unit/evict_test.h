/* Shared by test_preempt.c, test_reclaim.c and test_shuffle.c: run a scenario string through
 * a whole session (harness.h) and read its decisions, plus "evtest", an in-process plugin whose
 * knobs (node and queue names in its arguments) drive the extension points the eviction actions
 * consult. Include after <cmocka.h>. */
#ifndef TPH_EVICT_TEST_H
#define TPH_EVICT_TEST_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "base/mem.h"

typedef pts ev_run;

/* ---- the evtest plugin ---- */

typedef struct evtest_st {
	const char
	    *unresolvable_node;      /* predicate: fails this node, UnschedulableAndUnresolvable */
	const char *resolvable_node; /* predicate: fails this node, resolvable */
	const char *overused_queue;  /* Overused */
	const char *closed_queue;    /* Preemptive answers false for it */
	int64_t victim_below;        /* VictimTasks: running tasks below this priority */
	tph_idx unres, res;          /* resolved node indices */
	tph_reason_code unres_code, res_code;
} evtest_st;

static long evtest_sim_removed; /* SimulateRemoveTask minus SimulateAddTask calls */

static const tph_arg_spec evtest_args[] = {
    {"unresolvableNode", TPH_ARG_STRING, NULL, 0, 0, offsetof(evtest_st, unresolvable_node), ""},
    {"resolvableNode", TPH_ARG_STRING, NULL, 0, 0, offsetof(evtest_st, resolvable_node), ""},
    {"overusedQueue", TPH_ARG_STRING, NULL, 0, 0, offsetof(evtest_st, overused_queue), ""},
    {"closedQueue", TPH_ARG_STRING, NULL, 0, 0, offsetof(evtest_st, closed_queue), ""},
    {"victimBelow", TPH_ARG_INT, "0", 0, 0, offsetof(evtest_st, victim_below), ""},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static inline bool ev_named(const tph_session *s, tph_sid id, const char *name)
{
	return name && !strcmp(pts_str(s, id), name);
}

static void evtest_predicate(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                             uint32_t n, tph_reason_code *out)
{
	const evtest_st *e = st;
	(void)task;
	(void)s;
	for (uint32_t i = 0; i < n; i++)
		out[i] = nodes[i] == e->unres ? e->unres_code
		         : nodes[i] == e->res ? e->res_code
		                              : TPH_PASS;
}

static bool evtest_overused(void *st, const tph_session *s, tph_idx q)
{
	return ev_named(s, s->queues->name[q], ((evtest_st *)st)->overused_queue);
}

static bool evtest_preemptive(void *st, const tph_session *s, tph_idx q, tph_idx task)
{
	(void)task;
	return !ev_named(s, s->queues->name[q], ((evtest_st *)st)->closed_queue);
}

static void evtest_victims(void *st, const tph_session *s, const tph_idx *tasks, uint32_t n,
                           uint8_t *victim)
{
	for (uint32_t i = 0; i < n; i++)
		victim[i] = s->tasks.priority[tasks[i]] < ((evtest_st *)st)->victim_below;
}

static bool evtest_sim_allocatable(void *st, const tph_session *s, tph_idx q, tph_idx t)
{
	(void)st, (void)s, (void)q, (void)t;
	return true;
}

static int evtest_sim_remove(void *st, tph_session *s, tph_idx p, tph_idx t, tph_idx n)
{
	(void)st, (void)s, (void)p, (void)t, (void)n;
	evtest_sim_removed++;
	return TPH_OK;
}

static int evtest_sim_add(void *st, tph_session *s, tph_idx p, tph_idx t, tph_idx n)
{
	(void)st, (void)s, (void)p, (void)t, (void)n;
	evtest_sim_removed--;
	return TPH_OK;
}

static inline tph_idx ev_node_named(const tph_session *s, const char *name)
{
	for (tph_idx n = 0; name && n < s->nodes.n; n++)
		if (ev_named(s, s->nodes.name[n], name))
			return n;
	return TPH_NOIDX;
}

static int evtest_open(tph_session *s, void *st, const tph_args *args)
{
	evtest_st *e = st;
	(void)args;
	e->unres = ev_node_named(s, e->unresolvable_node);
	e->res = ev_node_named(s, e->resolvable_node);
	e->unres_code = tph_reason(s, "node(s) were fenced off", true);
	e->res_code = tph_reason(s, "node(s) were busy", false);
	int rc = tph_on_predicate(s, evtest_predicate);
	if (!rc)
		rc = tph_on_overused(s, evtest_overused);
	if (!rc)
		rc = tph_on_preemptive(s, evtest_preemptive);
	if (!rc)
		rc = tph_on_victim_tasks(s, evtest_victims);
	if (!rc)
		rc = tph_on_sim_allocatable(s, evtest_sim_allocatable);
	if (!rc)
		rc = tph_on_sim_add_task(s, evtest_sim_add);
	if (!rc)
		rc = tph_on_sim_remove_task(s, evtest_sim_remove);
	return rc;
}

static const tph_plugin evtest_plugin = {TPH_PLUGIN_ABI,    "evtest",    evtest_args,
                                         sizeof(evtest_st), evtest_open, NULL};

/* ---- running a scenario ---- */

/* Copy tmpl to out with each "@" replaced by the next of args (a template, not a format). */
static inline const char *ev_fill(char *out, size_t cap, const char *tmpl, const char *const *args)
{
	size_t o = 0;
	for (const char *p = tmpl; *p && o + 1 < cap; p++) {
		if (*p != '@') {
			out[o++] = *p;
			continue;
		}
		for (const char *a = *args++; *a && o + 1 < cap; a++)
			out[o++] = *a;
	}
	out[o] = '\0';
	return out;
}

static inline void ev_open(ev_run *r, const char *yaml)
{
	static bool registered;
	if (!registered) {
		tph_diag d = {0};
		assert_int_equal(tph_plugins_register(&evtest_plugin, &d), TPH_OK);
		registered = true;
	}
	evtest_sim_removed = 0;
	pts_open(r, yaml);
}

static inline void ev_run_yaml(ev_run *r, const char *yaml)
{
	ev_open(r, yaml);
	pts_run(r);
}

/* The evictions as "pod:reason;..." in decision order. */
static inline const char *ev_evictions(const ev_run *r)
{
	static char buf[1024];
	buf[0] = '\0';
	for (uint32_t i = 0; i < r->log->n_evictions; i++) {
		const tph_decision *d = &r->log->evictions[i];
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof buf - l, "%s:%s;", d->pod, d->reason ? d->reason : "");
	}
	return buf;
}

/* The pipelined tasks as "pod@node;..." in decision order. */
static inline const char *ev_pipelined(const ev_run *r)
{
	static char buf[1024];
	buf[0] = '\0';
	for (uint32_t i = 0; i < r->log->n_pipelined; i++) {
		const tph_decision *d = &r->log->pipelined[i];
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof buf - l, "%s@%s;", d->pod, d->node);
	}
	return buf;
}

/* Out of memory at any allocation of the run (the k-th and every later one, for every k)
 * either fails the run with TPH_ENOMEM or changes nothing: no trial eviction, victim set or
 * pipeline is dropped silently. `yaml` is copied: scenario builders reuse their buffer. */
static inline void ev_expect_oom_safe(const char *yaml)
{
	size_t len = strlen(yaml) + 1;
	char *y = malloc(len), ev[1024], pi[1024];
	assert_non_null(y);
	memcpy(y, yaml, len);
	ev_run r;
	ev_run_yaml(&r, y);
	snprintf(ev, sizeof ev, "%s", ev_evictions(&r));
	snprintf(pi, sizeof pi, "%s", ev_pipelined(&r));
	pts_free(&r);
	int failed = 0;
	for (long k = 1;; k++) {
		ev_open(&r, y);
		tph_mem_fail_after(k, 1);
		int rc = tph_session_run(r.s, &r.d);
		long attempts = tph_mem_attempts();
		tph_mem_fail_after(0, 0);
		if (rc == TPH_OK)
			rc = tph_session_close(r.s, &r.d);
		if (rc == TPH_OK) {
			r.log = tph_session_decisions(r.s);
			assert_string_equal(ev_evictions(&r), ev);
			assert_string_equal(ev_pipelined(&r), pi);
		} else {
			assert_int_equal(rc, TPH_ENOMEM);
			failed++;
		}
		pts_free(&r);
		if (attempts < k)
			break; /* fewer than k allocations: every point has been tried */
	}
	assert_true(failed > 0);
	free(y);
}

#endif
