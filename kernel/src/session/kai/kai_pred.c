/* The predicates' extension points (KAI-NOTES section 3): PrePredicate and Predicate must all
 * pass, the first VictimInvariantPrePredicate failure decides, and QueueFairShare counts only
 * its first registration, as KAI's session dispatches them. Also the shared-GPU question the
 * predicates plugin asks of the session's device ledger. */
#include "kai_int.h"

#include "base/mem.h"

int tph_kai_add_pre_predicate(tph_kai_session *s, tph_kai_pre_predicate_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->pre_predicate, (void *)fn, state);
}

int tph_kai_add_victim_invariant(tph_kai_session *s, tph_kai_victim_invariant_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->victim_invariant, (void *)fn, state);
}

int tph_kai_add_predicate(tph_kai_session *s, tph_kai_predicate_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->predicate, (void *)fn, state);
}

int tph_kai_add_fair_share(tph_kai_session *s, tph_kai_fair_share_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->fair_share, (void *)fn, state);
}

bool tph_kai_pre_predicate(const tph_kai_session *s, uint32_t task, uint32_t job)
{
	const tph_kai_hooks *h = &s->pre_predicate;
	for (uint32_t i = 0; i < h->n; i++)
		if (!((tph_kai_pre_predicate_fn)h->items[i].fn)(h->items[i].state, s, task, job))
			return false;
	return true;
}

bool tph_kai_victim_invariant_fails(const tph_kai_session *s, uint32_t task)
{
	const tph_kai_hooks *h = &s->victim_invariant;
	for (uint32_t i = 0; i < h->n; i++)
		if (((tph_kai_victim_invariant_fn)h->items[i].fn)(h->items[i].state, s, task))
			return true;
	return false;
}

bool tph_kai_predicate(const tph_kai_session *s, uint32_t task, uint32_t node)
{
	const tph_kai_hooks *h = &s->predicate;
	for (uint32_t i = 0; i < h->n; i++)
		if (!((tph_kai_predicate_fn)h->items[i].fn)(h->items[i].state, s, task, node))
			return false;
	return true;
}

bool tph_kai_fair_share(const tph_kai_session *s, uint32_t q, double out[TPH_KAI_DIMS])
{
	const tph_kai_hooks *h = &s->fair_share;
	if (!h->n)
		return false;
	((tph_kai_fair_share_fn)h->items[0].fn)(h->items[0].state, s, q, out);
	return true;
}

bool tph_kai_task_shared_gpu(const tph_kai_session *s, uint32_t t)
{
	return tph_kai_gpu_shared(s, t);
}

bool tph_kai_gpu_new_group(const tph_kai_session *s, uint32_t task, uint32_t node)
{
	return tph_kai_gpu_opens_group(s, task, node);
}

void tph_kai_free_pred_hooks(tph_kai_session *s)
{
	tph_kai_hooks *all[] = {&s->pre_predicate, &s->victim_invariant, &s->predicate,
	                        &s->fair_share};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		tph_free(all[i]->items);
}
