/* Per-task UnschedulableAndUnresolvable nodes (see fit_nodes.h). Columns are allocated on the
 * first record; a task's list is rewritten in the arena each time it is recorded. */
#include "fit_nodes.h"

#include "ep.h"

static int ensure(tph_session *s)
{
	if (s->unres)
		return TPH_OK;
	s->unres = TPH_ARENA_NEW(&s->arena, const tph_idx *, s->tasks.n + 1);
	s->n_unres = TPH_ARENA_NEW(&s->arena, uint32_t, s->tasks.n + 1);
	return s->unres && s->n_unres ? TPH_OK : TPH_ENOMEM;
}

int tph_record_fit_nodes(tph_session *s, tph_idx task, const tph_idx *nodes,
                         const tph_reason_code *codes, uint32_t n)
{
	if (ensure(s))
		return TPH_ENOMEM;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		k += tph_reason_unresolvable(s, codes[i]);
	tph_idx *row = k ? TPH_ARENA_NEW(&s->arena, tph_idx, k) : NULL;
	if (k && !row)
		return TPH_ENOMEM;
	for (uint32_t i = 0, o = 0; i < n; i++)
		if (tph_reason_unresolvable(s, codes[i]))
			row[o++] = nodes[i];
	s->unres[task] = row;
	s->n_unres[task] = k;
	return TPH_OK;
}

void tph_reset_fit_nodes(tph_session *s, tph_idx job)
{
	if (!s->unres)
		return;
	const tph_job_store *js = s->jobs;
	for (uint32_t i = js->task_off[job]; i < js->task_off[job + 1]; i++)
		s->n_unres[js->task_idx[i]] = 0;
}

uint32_t tph_unresolvable_nodes(const tph_session *s, tph_idx task, const tph_idx **out)
{
	*out = s->unres ? s->unres[task] : NULL;
	return s->unres ? s->n_unres[task] : 0;
}
