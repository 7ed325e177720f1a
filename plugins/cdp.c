/* cdp: Volcano's cdp plugin (pkg/scheduler/plugins/cdp/cdp.go), cooldown protection. A pod in
 * phase Running that carries volcano.sh/cooldown-time (a label, else an annotation; a Go
 * duration) is neither preemptable nor reclaimable while its PodScheduled condition, True, turned
 * so less than that long ago. Volcano compares with the wall clock (time.Now()); tephra with the
 * session clock, which does not move during a session, so which pods are protected is settled at
 * open and a call only reads it. Reads no arguments. */
#include "tephra/plugin.h"

#include <string.h>

#define NS_PER_MS 1000000LL

/* `cool` is written at open and read by the victim callbacks. */
typedef struct cdp_st {
	uint8_t *cool; /* [task] under cooldown protection; NULL when no task is */
} cdp_st;

/* Every candidate not under protection stays a victim; the preemptor plays no part and cdp
 * always decides (util.Permit). */
static int victims(void *st, const tph_session *s, tph_idx preemptor, const tph_idx *cands,
                   uint32_t n, uint8_t *keep)
{
	const cdp_st *g = st;
	(void)s;
	(void)preemptor;
	for (uint32_t i = 0; i < n; i++)
		keep[i] = !g->cool || !g->cool[cands[i]];
	return 1;
}

/* ---- open ---- */

typedef struct cdp_scan {
	tph_sid key, scheduled; /* volcano.sh/cooldown-time, PodScheduled */
	tph_time now;
	uint32_t n_bad; /* pods whose value does not parse; the first one's task and value */
	tph_idx bad_task;
	tph_sid bad_value;
	const char *why;
} cdp_scan;

/* now - since in milliseconds, saturated. */
static int64_t ms_since(tph_time since, tph_time now)
{
	if (since < 0 && now > INT64_MAX + since)
		return INT64_MAX;
	if (since > 0 && now < INT64_MIN + since)
		return INT64_MIN;
	return now - since;
}

/* lastTransitionTime.Add(cooldown).After(now), exact in nanoseconds: the transition time (the
 * zero time when it was not set) plus the cooldown falls after `now`. */
static bool after_now(tph_time transition, int64_t cooldown_ns, tph_time now)
{
	int64_t ago = ms_since(transition ? transition : TPH_GO_ZERO_TIME_MS, now);
	if (ago > INT64_MAX / NS_PER_MS)
		return false; /* longer ago than any duration */
	if (ago < INT64_MIN / NS_PER_MS)
		return true;
	return cooldown_ns > ago * NS_PER_MS;
}

/* The pod's PodScheduled condition when its status is True, else NULL. */
static const tph_cond_row *scheduled_true(const tph_pod_meta *m, tph_sid scheduled)
{
	for (uint32_t i = 0; i < m->n_conditions; i++)
		if (m->conditions[i].type == scheduled)
			return m->conditions[i].status == TPH_COND_TRUE ? &m->conditions[i] : NULL;
	return NULL;
}

/* The filter of filterVictimFn for task t. podCooldownTime comes first in Volcano, but its
 * answer matters only to a Running pod, so other pods skip the parse (and its warning). */
static bool cooling(const tph_session *s, cdp_scan *sc, tph_idx t)
{
	const tph_task_store *ts = tph_view_of(s)->tasks;
	const tph_pod_meta *m = ts->meta ? ts->meta[t] : NULL;
	if (!m || m->phase != TPH_POD_RUNNING)
		return false;
	tph_sid v = tph_labels_get(m->labels, sc->key);
	if (v == TPH_SID_NONE)
		v = tph_labels_get(m->annotations, sc->key);
	const tph_cond_row *c = v == TPH_SID_NONE ? NULL : scheduled_true(m, sc->scheduled);
	if (!c)
		return false;
	const char *text = tph_session_str(s, v), *why = NULL;
	int64_t ns;
	if (tph_parse_duration(text, strlen(text), &ns, &why) != TPH_OK) {
		if (!sc->n_bad++) {
			sc->bad_task = t;
			sc->bad_value = v;
			sc->why = why;
		}
		return false;
	}
	return after_now(c->last_transition, ns, sc->now);
}

static int cdp_open(tph_session *s, void *st, const tph_args *args)
{
	(void)args;
	cdp_st *g = st;
	const tph_view *v = tph_view_of(s);
	static const char key[] = "volcano.sh/cooldown-time", sched[] = "PodScheduled";
	cdp_scan sc = {.key = tph_session_sid(s, key, sizeof key - 1),
	               .scheduled = tph_session_sid(s, sched, sizeof sched - 1),
	               .now = v->now};
	/* A text the cluster never interned is on no pod: nobody is protected. */
	if (sc.key != TPH_SID_NONE && sc.scheduled != TPH_SID_NONE) {
		if (!(g->cool = TPH_SESSION_NEW(s, uint8_t, (size_t)v->tasks->n + 1)))
			return TPH_ENOMEM;
		for (tph_idx t = 0; t < v->tasks->n; t++)
			g->cool[t] = cooling(s, &sc, t);
	}
	if (sc.n_bad) /* Volcano warns at every call; once per session is enough */
		tph_session_warn(
		    s, "cdp: invalid time duration %s=%s on pod %s/%s (%s)%s: no cooldown", key,
		    tph_session_str(s, sc.bad_value), tph_session_task_namespace(s, sc.bad_task),
		    tph_session_task_name(s, sc.bad_task), sc.why,
		    sc.n_bad > 1 ? ", and on other pods" : "");
	int rc = tph_on_preemptable(s, victims);
	if (!rc)
		rc = tph_on_reclaimable(s, victims);
	return rc;
}

const tph_plugin tph_plugin_cdp = {
    .abi = TPH_PLUGIN_ABI,
    .name = "cdp",
    .state_size = sizeof(cdp_st),
    .on_session_open = cdp_open,
};
