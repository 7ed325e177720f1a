/* sla: Volcano's sla plugin. A job may wait at most its waiting time (the podgroup annotation
 * volcano.sh/sla-waiting-time or sla-waiting-time, else the `sla-waiting-time` argument):
 * jobs go in order of creation + waiting time, and once a job has waited that long it is
 * admitted (JobEnqueueable) and may be pipelined (JobPipelined). */
#include "tephra/plugin.h"

#include <stddef.h>
#include <string.h>

#define NS_PER_MS 1000000LL

typedef struct sla_st {
	const char *arg;   /* the argument as written; NULL when absent or not a string */
	int64_t global_ns; /* 0: none */
	int64_t *wait_ns;  /* per job: its own waiting time, else global_ns; 0: none */
} sla_st;

static const tph_arg_spec sla_args[] = {
    {"sla-waiting-time", TPH_ARG_STRING, NULL, 0, 0, offsetof(sla_st, arg),
     "a Go duration; how long any job may stay Pending before it is admitted"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* A positive Go duration in nanoseconds, or 0 when it does not parse or is not positive. */
static int64_t positive_ns(const char *text)
{
	int64_t ns = 0;
	const char *why = NULL;
	if (!text || tph_parse_duration(text, strlen(text), &ns, &why) < 0 || ns <= 0)
		return 0;
	return ns;
}

/* JobInfo.WaitingTime: the first of the two annotations that holds a valid duration. */
static int64_t job_wait_ns(const tph_session *s, tph_sid key_new, tph_sid key_old, tph_idx j)
{
	const tph_job_meta *m = tph_view_of(s)->jobs->meta ? tph_view_of(s)->jobs->meta[j] : NULL;
	if (!m)
		return 0;
	tph_sid keys[2] = {key_new, key_old};
	for (int k = 0; k < 2; k++) {
		tph_sid v = keys[k] == TPH_SID_NONE ? TPH_SID_NONE
		                                    : tph_labels_get(m->annotations, keys[k]);
		int64_t ns = v == TPH_SID_NONE ? 0 : positive_ns(tph_session_str(s, v));
		if (ns)
			return ns;
	}
	return 0;
}

/* An unset creation time is Go's zero time, long before any real one. */
static int64_t creation_ms(const tph_session *s, tph_idx j)
{
	tph_time c = tph_view_of(s)->jobs->creation[j];
	return c ? c : TPH_GO_ZERO_TIME_MS;
}

/* creation + wait, compared exactly as (milliseconds, nanosecond remainder). */
static int deadline_cmp(const tph_session *s, const sla_st *g, tph_idx a, tph_idx b)
{
	int64_t ma = creation_ms(s, a) + g->wait_ns[a] / NS_PER_MS, ra = g->wait_ns[a] % NS_PER_MS;
	int64_t mb = creation_ms(s, b) + g->wait_ns[b] / NS_PER_MS, rb = g->wait_ns[b] % NS_PER_MS;
	if (ma != mb)
		return ma < mb ? -1 : 1;
	return ra == rb ? 0 : (ra < rb ? -1 : 1);
}

/* Jobs with a waiting time go first, earliest deadline first. */
static int job_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	const sla_st *g = st;
	bool wa = g->wait_ns[a] != 0, wb = g->wait_ns[b] != 0;
	if (!wa || !wb)
		return wa == wb ? 0 : (wa ? -1 : 1);
	return deadline_cmp(s, g, a, b);
}

/* Permit once the job has waited its time (on the session clock); abstain before, or when
 * the job has no waiting time. */
static int waited(void *st, const tph_session *s, tph_idx j)
{
	const sla_st *g = st;
	int64_t wait = g->wait_ns[j];
	if (!wait)
		return TPH_ABSTAIN;
	int64_t since_ms = (int64_t)tph_view_of(s)->now - creation_ms(s, j);
	if (since_ms < INT64_MAX / NS_PER_MS && since_ms * NS_PER_MS < wait)
		return TPH_ABSTAIN;
	return TPH_PERMIT;
}

static int sla_open(tph_session *s, void *st, const tph_args *args)
{
	sla_st *g = st;
	(void)args;
	if (g->arg) { /* a value that is not a string was dropped with a warning, as in Volcano */
		g->global_ns = positive_ns(g->arg);
		if (!g->global_ns)
			tph_session_warn(s, "sla: invalid global waiting time \"%s\"; none set",
			                 g->arg ? g->arg : "");
	}
	tph_sid key_new = tph_session_sid(s, "volcano.sh/sla-waiting-time", 27);
	tph_sid key_old = tph_session_sid(s, "sla-waiting-time", 16);
	g->wait_ns = tph_session_alloc(s, sizeof *g->wait_ns * (tph_view_of(s)->jobs->n + 1));
	if (!g->wait_ns)
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < tph_view_of(s)->jobs->n; j++) {
		int64_t own = job_wait_ns(s, key_new, key_old, j);
		g->wait_ns[j] = own ? own : g->global_ns;
	}
	int rc = tph_on_job_order(s, job_order);
	if (!rc)
		rc = tph_on_job_enqueueable(s, waited);
	if (!rc)
		rc = tph_on_job_pipelined(s, waited);
	return rc;
}

const tph_plugin tph_plugin_sla = {
    .abi = TPH_PLUGIN_ABI,
    .name = "sla",
    .args = sla_args,
    .state_size = sizeof(sla_st),
    .on_session_open = sla_open,
};
