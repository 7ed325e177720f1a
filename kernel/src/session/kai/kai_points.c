/* The extension points reclaim, preempt and consolidation ask (KAI-NOTES sections 3 and 5).
 * Three of them count only their first registration, as KAI's session does: a second plugin
 * registering CanReclaimResources is ignored, not combined. */
#include "kai_int.h"

#include "base/mem.h"

int tph_kai_add_can_reclaim(tph_kai_session *s, tph_kai_can_reclaim_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->can_reclaim, (void *)fn, state);
}

int tph_kai_add_job_solution_start(tph_kai_session *s, tph_kai_solution_start_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->solution_start, (void *)fn, state);
}

int tph_kai_add_nonpreemptible_quota(tph_kai_session *s, tph_kai_job_capacity_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->nonpreemptible_quota, (void *)fn, state);
}

int tph_kai_add_task_capacity(tph_kai_session *s, tph_kai_task_capacity_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->task_capacity, (void *)fn, state);
}

int tph_kai_add_scenario_generator(tph_kai_session *s, tph_kai_generator g)
{
	if (s->frozen || (unsigned)g >= TPH_KAI_N_GENERATORS)
		return TPH_EINVAL;
	for (uint32_t i = 0; i < s->n_generators; i++)
		if (s->generators[i] == g)
			return TPH_OK;
	s->generators[s->n_generators++] = (uint8_t)g;
	return TPH_OK;
}

bool tph_kai_can_reclaim(const tph_kai_session *s, uint32_t job)
{
	const tph_kai_hooks *h = &s->can_reclaim;
	return h->n && ((tph_kai_can_reclaim_fn)h->items[0].fn)(h->items[0].state, s, job);
}

void tph_kai_job_solution_start(const tph_kai_session *s)
{
	const tph_kai_hooks *h = &s->solution_start;
	for (uint32_t i = 0; i < h->n; i++)
		((tph_kai_solution_start_fn)h->items[i].fn)(h->items[i].state, s);
}

bool tph_kai_nonpreemptible_within_quota(const tph_kai_session *s, uint32_t job,
                                         const uint32_t *tasks, uint32_t n)
{
	const tph_kai_hooks *h = &s->nonpreemptible_quota;
	return !h->n ||
	       ((tph_kai_job_capacity_fn)h->items[0].fn)(h->items[0].state, s, job, tasks, n);
}

bool tph_kai_task_within_capacity(const tph_kai_session *s, uint32_t task, uint32_t node)
{
	const tph_kai_hooks *h = &s->task_capacity;
	return !h->n ||
	       ((tph_kai_task_capacity_fn)h->items[0].fn)(h->items[0].state, s, task, node);
}

void tph_kai_free_solver_hooks(tph_kai_session *s)
{
	tph_kai_hooks *all[] = {&s->can_reclaim, &s->solution_start, &s->nonpreemptible_quota,
	                        &s->task_capacity};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		tph_free(all[i]->items);
}
