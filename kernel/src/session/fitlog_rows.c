/* The pending rows of the decision log (fitlog.h), built at close from the fit log's reasons
 * records: "<count> <reason>" per pair, ordered by reason code for stable output ("3
 * Insufficient cpu", "2 node(s) didn't match Pod's node affinity/selector"); a pair with
 * count 0 is a literal, the task-level reason of that index or the skip message. Strings are
 * made once per distinct record, for tasks still pending. */
#include "fitlog.h"

#include "base/mem.h"
#include "tephra/textw.h"

#include <assert.h>

static const char *skip_text(tph_session *s, tph_idx task)
{
	const tph_strtab *st = s->snap->strs;
	char buf[512];
	tph_tw w;
	tph_tw_init(&w, buf, sizeof buf);
	tph_tw_fmt(&w, "Task %s with role spec %s has already predicated failed, skip",
	           tph_strtab_str(st, s->tasks.name[task]),
	           tph_strtab_str(st, s->tasks.role[task]));
	return tph_arena_strndup(&s->arena, buf, w.n);
}

const char *tph_fitlog_pair_text(tph_session *s, tph_idx task, const uint32_t *p)
{
	if (p[0])
		return s->reasons[p[1]].text;
	return p[1] != TPH_FITLOG_SKIP ? s->fit->texts[p[1]] : skip_text(s, task);
}

uint32_t tph_fitlog_pairs(const tph_session *s, tph_idx task, const uint32_t **out)
{
	const tph_fitlog *fl = s->fit;
	uint32_t id = fl && fl->why ? fl->why[task] : 0, n = 0;
	if (!id)
		return 0;
	*out = tph_seq_get(&fl->seqs, id, &n);
	return n / 2;
}

static const char *format(tph_session *s, tph_idx task, const uint32_t *p)
{
	if (!p[0])
		return tph_fitlog_pair_text(s, task, p);
	char buf[512];
	tph_tw w;
	tph_tw_init(&w, buf, sizeof buf);
	tph_tw_fmt(&w, "%u %s", p[0], s->reasons[p[1]].text);
	return tph_arena_strndup(&s->arena, buf, w.n);
}

/* The strings of record `id` for `task`: made once per record and shared by every task with
 * it, except a skip message, which names its task. */
static const char *const *reasons_of(tph_session *s, const tph_fitlog *fl, const char ***made,
                                     tph_idx task, uint32_t id, uint32_t *n_out)
{
	uint32_t n;
	const uint32_t *p = tph_seq_get(&fl->seqs, id, &n);
	*n_out = n / 2;
	bool per_task = n == 2 && !p[0] && p[1] == TPH_FITLOG_SKIP;
	if (made[id] && !per_task)
		return made[id];
	const char **r = TPH_ARENA_NEW(&s->arena, const char *, n / 2 + 1);
	for (uint32_t i = 0; r && i < n / 2; i++)
		if (!(r[i] = format(s, task, p + 2 * i)))
			return NULL;
	return made[id] = r;
}

static bool is_pending(const tph_session *s, tph_idx t)
{
	return s->tasks.status[t] == TPH_TS_PENDING && s->tasks.job[t] != TPH_NOIDX;
}

int tph_fitlog_rows(tph_session *s, const tph_pending_row **out, uint32_t *n_out)
{
	uint32_t n = 0; /* the Pending tasks in a job: the jobs' counts (tph_check checks them) */
	for (tph_idx j = 0; j < s->jobs->n; j++)
		n += s->js.count[(size_t)j * TPH_TS_COUNT + TPH_TS_PENDING];
	tph_pending_row *rows = TPH_ARENA_NEW(&s->arena, tph_pending_row, n + 1);
	const tph_fitlog *fl = s->fit;
	const char ***made = fl ? tph_calloc(fl->seqs.n, sizeof *made) : NULL;
	if (!rows || (fl && !made))
		goto oom;
	uint32_t k = 0;
	for (uint32_t t = 0; t < s->tasks.n; t++) {
		if (!is_pending(s, t))
			continue;
		assert(k < n);
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
