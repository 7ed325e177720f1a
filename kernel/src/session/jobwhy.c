/* Why jobs stay pending, during the session: the marks actions and statements leave (a byte
 * per job or task, no text), the reasons plugins give (tph_job_reason) and the facts read just
 * before the plugins close. The rows are made from them at close (jobwhy_rows.c). */
#include "jobwhy.h"

#include "ep.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const why_names[TPH_WHY_COUNT] = {
    "Invalid",  "NotEnqueued", "QueueShare",  "Pipelined",
    "Topology", "GangShort",   "Unplaceable", "NotTried",
};

const char *tph_job_why_name(tph_job_why why)
{
	return (unsigned)why < TPH_WHY_COUNT ? why_names[why] : NULL;
}

tph_jobwhy *tph_jobwhy_get(tph_session *s)
{
	if (s->why)
		return s->why;
	uint32_t nj = s->jobs->n + 1, nt = s->tasks.n + 1, nq = s->queues->n + 1;
	tph_jobwhy *w = TPH_ARENA_NEW(&s->arena, tph_jobwhy, 1);
	if (w) {
		w->text = TPH_ARENA_NEW(&s->arena, const char *, nj);
		w->plugin = TPH_ARENA_NEW(&s->arena, uint16_t, nj);
		w->note = TPH_ARENA_NEW(&s->arena, uint8_t, nj);
		w->last_tx = TPH_ARENA_NEW(&s->arena, uint8_t, nt);
		w->overused = TPH_ARENA_NEW(&s->arena, uint8_t, nq);
		w->invalid = TPH_ARENA_NEW(&s->arena, tph_valid_result, nj);
		w->invalid_by = TPH_ARENA_NEW(&s->arena, uint16_t, nj);
		w->reports = TPH_ARENA_NEW(&s->arena, tph_qreport, nq);
	}
	if (!w || !w->text || !w->plugin || !w->note || !w->last_tx || !w->overused ||
	    !w->invalid || !w->invalid_by || !w->reports) {
		s->oom = true;
		return NULL;
	}
	return s->why = w;
}

void tph_job_reason(const tph_session *cs, tph_idx job, const char *fmt, ...)
{
	tph_session *s = (tph_session *)cs; /* the arena is the session's own, on its thread */
	tph_jobwhy *w = job < s->jobs->n ? tph_jobwhy_get(s) : NULL;
	if (!w)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	size_t n = (size_t)len < sizeof buf ? (size_t)len : sizeof buf - 1;
	const char *t = tph_arena_strndup(&s->arena, buf, n);
	if (t)
		w->text[job] = t;
}

void tph_jobwhy_rejected(tph_session *s, tph_idx job, uint32_t plugin)
{
	tph_jobwhy *w = tph_jobwhy_get(s);
	if (w) {
		w->note[job] |= TPH_NOTE_REJECTED;
		w->plugin[job] = (uint16_t)(plugin + 1);
	}
}

void tph_jobwhy_note(tph_session *s, tph_idx job, unsigned note)
{
	tph_jobwhy *w = tph_jobwhy_get(s);
	if (w)
		w->note[job] |= (uint8_t)note;
}

void tph_jobwhy_discarded(tph_session *s, tph_idx task, uint8_t status)
{
	tph_jobwhy *w = tph_jobwhy_get(s);
	if (w)
		w->last_tx[task] = (uint8_t)(status + 1);
}

void tph_jobwhy_committed(tph_session *s, tph_idx task)
{
	if (s->why)
		s->why->last_tx[task] = 0;
}

bool tph_jobwhy_pending(const tph_session *s, tph_idx j)
{
	const uint32_t *c = s->js.count + (size_t)j * TPH_TS_COUNT;
	uint32_t ready = c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] + c[TPH_TS_BOUND] +
	                 c[TPH_TS_RUNNING] + c[TPH_TS_SUCCEEDED];
	return c[TPH_TS_PENDING] || (int64_t)ready < s->jobs->min_member[j];
}

int tph_jobwhy_before_close(tph_session *s)
{
	tph_jobwhy *w = tph_jobwhy_get(s);
	if (!w)
		return TPH_ENOMEM;
	for (tph_idx q = 0; q < s->queues->n; q++)
		w->overused[q] = tph_overused(s, q);
	tph_valid_result *inv = (tph_valid_result *)w->invalid;
	for (tph_idx j = 0; j < s->jobs->n; j++) {
		if (!tph_jobwhy_pending(s, j))
			continue;
		uint32_t by = 0;
		if (tph_job_valid_by(s, j, &inv[j], &by) != TPH_OK) {
			w->invalid_by[j] = (uint16_t)(by + 1);
			if (!inv[j].reason)
				inv[j].reason = "Invalid";
			/* a plugin may reuse one buffer for every job's message */
			const char *m = inv[j].message ? inv[j].message : "";
			if (!(inv[j].message = tph_arena_strndup(&s->arena, m, strlen(m))))
				return TPH_ENOMEM;
		} else
			inv[j] = (tph_valid_result){NULL, NULL};
	}
	return TPH_OK;
}
