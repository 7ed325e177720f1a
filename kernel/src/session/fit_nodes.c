/* The fit records' storage and the unresolvable nodes per task (see fit_nodes.h). */
#include "fit_nodes.h"

#include "ep.h"
#include "base/mem.h"

static void fitlog_free(void *ud)
{
	tph_fitlog *fl = ud;
	tph_seq_free(&fl->seqs);
	tph_free(fl->why);
	tph_free(fl->unres);
	tph_free(fl->scratch);
	tph_free(fl->texts);
	*fl = (tph_fitlog){.seqs = fl->seqs};
}

void tph_fitlog_drop(tph_session *s)
{
	if (s->fit)
		fitlog_free(s->fit);
}

uint32_t *tph_fitlog_column(tph_session *s, uint32_t **col)
{
	if (!*col)
		*col = tph_calloc((size_t)s->tasks.n + 1, sizeof **col);
	return *col;
}

tph_fitlog *tph_fitlog_of(tph_session *s)
{
	if (s->fit)
		return s->fit;
	tph_fitlog *fl = TPH_ARENA_NEW(&s->arena, tph_fitlog, 1);
	if (!fl || tph_arena_on_cleanup(&s->arena, fitlog_free, fl))
		return NULL;
	tph_seq_init(&fl->seqs, &s->arena);
	return s->fit = fl;
}

int tph_fitlog_scratch(tph_fitlog *fl, uint32_t n)
{
	return tph_grow(&fl->scratch, &fl->cap_scratch, n ? n : 1, sizeof *fl->scratch);
}

int tph_record_fit_nodes(tph_session *s, tph_idx task, const tph_idx *nodes,
                         const tph_reason_code *codes, uint32_t n)
{
	tph_fitlog *fl = tph_fitlog_of(s);
	if (!fl || tph_fitlog_scratch(fl, n))
		return TPH_ENOMEM;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (tph_reason_unresolvable(s, codes[i]))
			fl->scratch[k++] = nodes[i];
	if (!k && !fl->unres)
		return TPH_OK; /* nothing to skip, and no earlier record to replace */
	if (!tph_fitlog_column(s, &fl->unres))
		return TPH_ENOMEM;
	uint32_t id = k ? tph_seq_intern(&fl->seqs, fl->scratch, k) : 0;
	if (k && !id)
		return TPH_ENOMEM;
	fl->unres[task] = id;
	return TPH_OK;
}

void tph_clear_fit_nodes(tph_session *s, tph_idx task)
{
	if (s->fit && s->fit->unres)
		s->fit->unres[task] = 0;
}

void tph_reset_fit_nodes(tph_session *s, tph_idx job)
{
	const tph_job_store *js = s->jobs;
	for (uint32_t i = js->task_off[job]; i < js->task_off[job + 1]; i++)
		tph_clear_fit_nodes(s, js->task_idx[i]);
}

uint32_t tph_unresolvable_nodes(const tph_session *s, tph_idx task, const tph_idx **out)
{
	uint32_t n = 0;
	*out = s->fit && s->fit->unres ? tph_seq_get(&s->fit->seqs, s->fit->unres[task], &n) : NULL;
	return n;
}
