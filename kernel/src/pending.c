/* Why tasks stay pending: fit errors aggregated over nodes in Volcano's FitErrors wording
 * ("<count> <reason>": "3 Insufficient cpu", "2 node(s) didn't match Pod's node
 * affinity/selector"), ordered by reason code for stable output. */
#include "session.h"

#include <stdio.h>

static int ensure(tph_session *s)
{
	if (s->why)
		return TPH_OK;
	s->why = TPH_ARENA_NEW(&s->arena, const char *const *, s->tasks.n + 1);
	s->n_why = TPH_ARENA_NEW(&s->arena, uint32_t, s->tasks.n + 1);
	return s->why && s->n_why ? TPH_OK : TPH_ENOMEM;
}

int tph_record_pending_reason(tph_session *s, tph_idx task, const char *reason)
{
	if (ensure(s))
		return TPH_ENOMEM;
	const char **row = TPH_ARENA_NEW(&s->arena, const char *, 1);
	if (!row)
		return TPH_ENOMEM;
	row[0] = reason;
	s->why[task] = row;
	s->n_why[task] = 1;
	return TPH_OK;
}

int tph_record_fit_errors(tph_session *s, tph_idx task, const tph_reason_code *codes, uint32_t n)
{
	if (ensure(s))
		return TPH_ENOMEM;
	uint32_t *hist = TPH_ARENA_NEW(&s->arena, uint32_t, s->n_reasons + 1);
	if (!hist)
		return TPH_ENOMEM;
	uint32_t distinct = 0;
	for (uint32_t i = 0; i < n; i++)
		if (codes[i] != TPH_PASS && codes[i] < s->n_reasons && !hist[codes[i]]++)
			distinct++;
	const char **row = TPH_ARENA_NEW(&s->arena, const char *, distinct + 1);
	if (!row)
		return TPH_ENOMEM;
	uint32_t k = 0;
	for (uint32_t c = 1; c < s->n_reasons; c++) {
		if (!hist[c])
			continue;
		char buf[512];
		int len = snprintf(buf, sizeof buf, "%u %s", hist[c], s->reasons[c].text);
		row[k] = tph_arena_strndup(&s->arena, buf,
		                           (size_t)len < sizeof buf ? (size_t)len : sizeof buf - 1);
		if (!row[k++])
			return TPH_ENOMEM;
	}
	s->why[task] = row;
	s->n_why[task] = k;
	return TPH_OK;
}

int tph_pending_reasons(tph_session *s, const tph_pending_row **out, uint32_t *n_out)
{
	uint32_t n = 0;
	for (uint32_t t = 0; t < s->tasks.n; t++)
		n += s->tasks.status[t] == TPH_TS_PENDING && s->tasks.job[t] != TPH_NOIDX;
	tph_pending_row *rows = TPH_ARENA_NEW(&s->arena, tph_pending_row, n + 1);
	if (!rows)
		return TPH_ENOMEM;
	uint32_t k = 0;
	for (uint32_t t = 0; t < s->tasks.n; t++) {
		if (s->tasks.status[t] != TPH_TS_PENDING || s->tasks.job[t] == TPH_NOIDX)
			continue;
		rows[k].pod = tph_ssn_task_key(s, t);
		if (!rows[k].pod)
			return TPH_ENOMEM;
		rows[k].reasons = s->why ? s->why[t] : NULL;
		rows[k].n_reasons = s->why ? s->n_why[t] : 0;
		k++;
	}
	*out = rows;
	*n_out = k;
	return TPH_OK;
}
