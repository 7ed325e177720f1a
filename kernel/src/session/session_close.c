/* Session close: plugins' on_session_close, podgroup phases by Volcano's rule, and the
 * decision log with names resolved (the only place names are built). */
#include "session/session_int.h"

#include "cache/cluster_int.h"
#include "ep.h"
#include "base/diag.h"
#include "fitlog.h"
#include "jobwhy.h"
#include "base/mem.h"
#include "tephra/textw.h"

#include <string.h>

static const char *const phase_names[] = {"Pending", "Inqueue", "Running", "Unknown", "Completed"};

void tph_job_mark_unschedulable(tph_session *s, tph_idx job)
{
	s->js.unschedulable[job] = 1;
}

/* Volcano's getPodGroupPhase (framework/session.go) over this session's final statuses. */
static uint8_t job_phase(const tph_session *s, tph_idx j, uint32_t releasing_on_node)
{
	const uint32_t *c = s->js.count + (size_t)j * TPH_TS_COUNT;
	if (c[TPH_TS_RUNNING] && s->js.unschedulable[j])
		return TPH_PG_UNKNOWN;
	uint32_t completed = c[TPH_TS_SUCCEEDED] + c[TPH_TS_FAILED];
	uint32_t scheduled = c[TPH_TS_RUNNING] + c[TPH_TS_BOUND] + completed + releasing_on_node;
	if ((int64_t)scheduled >= s->jobs->min_member[j])
		return scheduled == completed ? TPH_PG_COMPLETED : TPH_PG_RUNNING;
	return s->js.phase[j] == TPH_PG_INQUEUE ? TPH_PG_INQUEUE : TPH_PG_PENDING;
}

/* Volcano's ReadyTaskNum: tasks in an allocated status plus succeeded ones. */
static int64_t job_ready_count(const tph_session *s, tph_idx j)
{
	const uint32_t *c = s->js.count + (size_t)j * TPH_TS_COUNT;
	return (int64_t)c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] + c[TPH_TS_BOUND] +
	       c[TPH_TS_RUNNING] + c[TPH_TS_SUCCEEDED];
}

const char *tph_ssn_task_key(const tph_session *s, tph_idx t)
{
	return tph_strtab_str(s->snap->strs, s->tasks.key[t]);
}

static const char *node_name(tph_session *s, tph_idx n)
{
	return n == TPH_NOIDX ? NULL : tph_strtab_str(s->snap->strs, s->nodes.name[n]);
}

/* Shrink a log list to its rows: it lives as long as the session (tph_check reads it). */
static void fit_rows(tph_log_row **rows, uint32_t *cap, uint32_t n)
{
	tph_log_row *r = n < *cap ? tph_realloc(*rows, ((size_t)n + 1) * sizeof *r) : NULL;
	if (r) {
		*rows = r;
		*cap = n + 1;
	}
}

/* Pipelined rows are only those still pipelined at close, in the order they were made. */
static bool still_pipelined(const tph_session *s, tph_log_row r)
{
	return s->tasks.status[r.task] == TPH_TS_PIPELINED && s->tasks.node[r.task] == r.node;
}

/* How a log's rows are read: binds carry the annotations plugins set on their tasks; pipelined
 * rows count only while still pipelined. */
enum rows {
	ROWS_PLAIN,
	ROWS_BINDS,
	ROWS_PIPELINED
};

/* The rows in[0..n) with names resolved. */
static int convert_rows(tph_session *s, const tph_log_row *in, const char *const *why, uint32_t n,
                        enum rows what, const tph_decision **out, uint32_t *n_out)
{
	/* every row up to k is written below, so the rows are not zeroed first */
	tph_decision *d =
	    tph_arena_alloc(&s->arena, ((size_t)n + 1) * sizeof *d, _Alignof(tph_decision));
	if (!d)
		return TPH_ENOMEM;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (what == ROWS_PIPELINED && !still_pipelined(s, in[i]))
			continue;
		d[k].pod = tph_ssn_task_key(s, in[i].task);
		d[k].node = node_name(s, in[i].node);
		d[k].reason = why ? why[i] : NULL;
		d[k].annotations = (tph_kv_list){NULL, 0};
		if (what == ROWS_BINDS && tph_bind_annotations(s, in[i].task, &d[k].annotations))
			return TPH_ENOMEM;
		k++;
	}
	*out = d;
	*n_out = k;
	return TPH_OK;
}

/* A podgroup's "namespace/name" is interned already (the snapshot's job_pg): only a key that
 * the cut shortens, or a bare pod's job, makes text. */
const char *tph_job_key(tph_session *s, tph_idx j, size_t cap)
{
	const tph_strtab *st = s->snap->strs;
	tph_sid pg = s->snap->job_pg[j];
	if (pg != TPH_SID_NONE) {
		const char *key = tph_strtab_str(st, pg);
		return strnlen(key, cap) < cap ? key : tph_arena_strndup(&s->arena, key, cap - 1);
	}
	const char *ns = tph_strtab_str(st, s->jobs->ns[j]);
	const char *name = tph_strtab_str(st, s->jobs->name[j]);
	size_t len = strlen(ns) + 1 + strlen(name);
	char *buf = tph_arena_alloc(&s->arena, len < cap ? len + 1 : cap, 1);
	if (!buf)
		return NULL;
	tph_tw w;
	tph_tw_init(&w, buf, len < cap ? len + 1 : cap);
	tph_tw_fmt(&w, "%s/%s", ns, name);
	return buf;
}

static bool is_own_job(const tph_session *s, tph_idx j)
{
	const tph_job_store *js = s->jobs;
	return js->task_off[j + 1] > js->task_off[j] &&
	       (s->tasks.flags[js->task_idx[js->task_off[j]]] & TPH_TASK_OWN_JOB);
}

/* Tasks of job j Releasing on a node: only a job that counts Releasing tasks has any. */
static uint32_t releasing_on_node(const tph_session *s, tph_idx j)
{
	const tph_job_store *js = s->jobs;
	uint32_t n = 0;
	if (!s->js.count[(size_t)j * TPH_TS_COUNT + TPH_TS_RELEASING])
		return 0;
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		n += s->tasks.status[t] == TPH_TS_RELEASING && s->tasks.node[t] != TPH_NOIDX;
	}
	return n;
}

static int build_phases(tph_session *s)
{
	uint32_t nj = s->jobs->n;
	tph_phase_row *rows =
	    tph_arena_alloc(&s->arena, ((size_t)nj + 1) * sizeof *rows, _Alignof(tph_phase_row));
	if (!rows)
		return TPH_ENOMEM;
	uint32_t k = 0;
	for (uint32_t j = 0; j < nj; j++) {
		s->js.phase[j] = job_phase(s, j, releasing_on_node(s, j));
		s->out.jobs_ready += job_ready_count(s, j) >= s->jobs->min_member[j];
		if (is_own_job(s, j))
			continue;
		rows[k].podgroup = tph_job_key(s, j, 512);
		rows[k].phase = phase_names[s->js.phase[j]];
		if (!rows[k++].podgroup)
			return TPH_ENOMEM;
	}
	s->out.phases = rows;
	s->out.n_phases = k;
	s->out.jobs_total = nj;
	return TPH_OK;
}

static int build_log(tph_session *s)
{
	tph_decision_log *o = &s->out;
	tph_log *l = &s->log;
	int rc = convert_rows(s, l->binds, NULL, l->n_binds, ROWS_BINDS, &o->binds, &o->n_binds);
	if (!rc)
		rc = convert_rows(s, l->evictions, l->reasons, l->n_evictions, ROWS_PLAIN,
		                  &o->evictions, &o->n_evictions);
	if (!rc)
		rc = convert_rows(s, l->pipelined, NULL, l->n_pipelined, ROWS_PIPELINED,
		                  &o->pipelined, &o->n_pipelined);
	fit_rows(&l->binds, &l->cap_binds, l->n_binds);
	fit_rows(&l->evictions, &l->cap_evictions, l->n_evictions);
	fit_rows(&l->pipelined, &l->cap_pipelined, l->n_pipelined);
	if (!rc)
		rc = build_phases(s);
	if (!rc)
		rc = tph_fitlog_rows(s, &o->pending, &o->n_pending);
	if (!rc)
		rc = tph_queue_rows(s);
	tph_fitlog_drop(s);
	o->actions = s->action_times;
	o->n_actions = s->n_action_times;
	o->open_ms = s->open_ms;
	return rc;
}

void tph_close_plugins(tph_session *s)
{
	if (s->plugins_closed)
		return;
	s->plugins_closed = true;
	for (uint32_t i = 0; i < s->n_opened; i++) {
		tph_plugin_inst *pi = &s->plugins[i];
		s->closing = (uint16_t)(i + 1);
		if (pi->desc && pi->desc->on_session_close)
			pi->desc->on_session_close(s, pi->st);
		s->closing = 0;
	}
}

int tph_session_close(tph_session *s, tph_diag *d)
{
	tph_diag_begin(d);
	if (!s)
		return tph_diag_set(d, TPH_EINVAL, "session close: no session");
	if (s->closed)
		return TPH_OK;
	s->diag = d; /* plugins' warnings go to the call in progress */
	double t0 = tph_now_ms();
	tph_heap_acct *prev = tph_heap_enter(&s->heap);
	int rc = tph_jobwhy_before_close(s);
	tph_close_plugins(s);
	if (!rc)
		rc = build_log(s);
	tph_heap_leave(prev);
	s->closed = true;
	if (s->sampling == TPH_SAMPLING_VOLCANO) /* the next session goes on from here */
		atomic_store_explicit(&s->snap->cache->sample_start, s->sample_rr,
		                      memory_order_release);
	s->out.close_ms = tph_now_ms() - t0;
	if (rc)
		return tph_diag_set(d, rc, "session close: %s", tph_strerror(rc));
	return TPH_OK;
}

const tph_decision_log *tph_session_decisions(const tph_session *s)
{
	return s && s->closed ? &s->out : NULL;
}
