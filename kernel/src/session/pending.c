/* Why tasks stay pending: fit errors aggregated over nodes in Volcano's FitErrors wording
 * ("<count> <reason>": "3 Insufficient cpu", "2 node(s) didn't match Pod's node
 * affinity/selector"), ordered by reason code for stable output. Actions record (count, code)
 * pairs; the strings are made at close, once per distinct record, for tasks still pending. */
#include "fit_nodes.h"
#include "base/mem.h"

#include <stdio.h>
#include <string.h>

/* A pair with count 0 is a literal: texts[code], or the skip message when code is SKIP. */
#define SKIP UINT32_MAX

static int set_why(tph_session *s, tph_fitlog *fl, tph_idx task, const uint32_t *v, uint32_t n)
{
	if (!tph_fitlog_column(s, &fl->why))
		return TPH_ENOMEM;
	uint32_t id = tph_seq_intern(&fl->seqs, v, n);
	if (!id)
		return TPH_ENOMEM;
	fl->why[task] = id;
	return TPH_OK;
}

static int record_literal(tph_session *s, tph_idx task, uint32_t code)
{
	tph_fitlog *fl = tph_fitlog_of(s);
	const uint32_t pair[2] = {0, code};
	return fl ? set_why(s, fl, task, pair, 2) : TPH_ENOMEM;
}

int tph_record_pending_reason(tph_session *s, tph_idx task, const char *reason)
{
	tph_fitlog *fl = tph_fitlog_of(s);
	if (!fl || tph_grow(&fl->texts, &fl->cap_texts, fl->n_texts + 1, sizeof *fl->texts))
		return TPH_ENOMEM;
	uint32_t id = 0;
	while (id < fl->n_texts && fl->texts[id] != reason)
		id++;
	if (id == fl->n_texts)
		fl->texts[fl->n_texts++] = reason;
	return record_literal(s, task, id);
}

int tph_record_skip(tph_session *s, tph_idx task)
{
	return record_literal(s, task, SKIP);
}

int tph_record_fit_errors(tph_session *s, tph_idx task, const tph_reason_code *codes, uint32_t n)
{
	tph_fitlog *fl = tph_fitlog_of(s);
	uint32_t nr = s->n_reasons;
	if (!fl || tph_fitlog_scratch(fl, 3 * nr))
		return TPH_ENOMEM;
	uint32_t *hist = fl->scratch, *pairs = fl->scratch + nr, k = 0;
	memset(hist, 0, nr * sizeof *hist);
	for (uint32_t i = 0; i < n; i++)
		if (codes[i] != TPH_PASS && codes[i] < nr)
			hist[codes[i]]++;
	for (uint32_t c = 1; c < nr; c++)
		if (hist[c]) {
			pairs[k++] = hist[c];
			pairs[k++] = c;
		}
	return set_why(s, fl, task, pairs, k);
}

bool tph_task_has_fit_errors(const tph_session *s, tph_idx task)
{
	return s->fit && s->fit->why && s->fit->why[task];
}

void tph_clear_fit_errors(tph_session *s, tph_idx task)
{
	if (s->fit && s->fit->why)
		s->fit->why[task] = 0;
}

/* ---- close ---- */

static const char *format(tph_session *s, const tph_fitlog *fl, tph_idx task, const uint32_t *p)
{
	const tph_strtab *st = s->snap->strs;
	char buf[512];
	int len;
	if (p[0])
		len = snprintf(buf, sizeof buf, "%u %s", p[0], s->reasons[p[1]].text);
	else if (p[1] != SKIP)
		return fl->texts[p[1]];
	else
		len = snprintf(buf, sizeof buf,
		               "Task %s with role spec %s has already predicated failed, skip",
		               tph_strtab_str(st, s->tasks.name[task]),
		               tph_strtab_str(st, s->tasks.role[task]));
	return tph_arena_strndup(&s->arena, buf,
	                         (size_t)len < sizeof buf ? (size_t)len : sizeof buf - 1);
}

/* The strings of record `id` for `task`: made once per record and shared by every task with
 * it, except a skip message, which names its task. */
static const char *const *reasons_of(tph_session *s, const tph_fitlog *fl, const char ***made,
                                     tph_idx task, uint32_t id, uint32_t *n_out)
{
	uint32_t n;
	const uint32_t *p = tph_seq_get(&fl->seqs, id, &n);
	*n_out = n / 2;
	bool per_task = n == 2 && !p[0] && p[1] == SKIP;
	if (made[id] && !per_task)
		return made[id];
	const char **r = TPH_ARENA_NEW(&s->arena, const char *, n / 2 + 1);
	for (uint32_t i = 0; r && i < n / 2; i++)
		if (!(r[i] = format(s, fl, task, p + 2 * i)))
			return NULL;
	return made[id] = r;
}

static bool is_pending(const tph_session *s, tph_idx t)
{
	return s->tasks.status[t] == TPH_TS_PENDING && s->tasks.job[t] != TPH_NOIDX;
}

int tph_pending_reasons(tph_session *s, const tph_pending_row **out, uint32_t *n_out)
{
	uint32_t n = 0;
	for (uint32_t t = 0; t < s->tasks.n; t++)
		n += is_pending(s, t);
	tph_pending_row *rows = TPH_ARENA_NEW(&s->arena, tph_pending_row, n + 1);
	const tph_fitlog *fl = s->fit;
	const char ***made = fl ? tph_calloc(fl->seqs.n, sizeof *made) : NULL;
	if (!rows || (fl && !made))
		goto oom;
	uint32_t k = 0;
	for (uint32_t t = 0; t < s->tasks.n; t++) {
		if (!is_pending(s, t))
			continue;
		tph_pending_row *r = &rows[k++];
		*r = (tph_pending_row){tph_ssn_task_key(s, t), NULL, 0};
		uint32_t id = fl && fl->why ? fl->why[t] : 0;
		if (id && !(r->reasons = reasons_of(s, fl, made, t, id, &r->n_reasons)))
			goto oom;
	}
	tph_free(made);
	*out = rows;
	*n_out = k;
	return TPH_OK;
oom:
	tph_free(made);
	return TPH_ENOMEM;
}
