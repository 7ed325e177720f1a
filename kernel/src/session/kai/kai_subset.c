/* KAI's SubsetNodes and PreJobAllocation points (framework/session_plugins.go; KAI-NOTES
 * section 3). SubsetNodes composes as a tree: each function splits every node set the previous
 * one produced, so two plugins narrowing by different criteria give their cross product, in
 * the first plugin's order, then the second's within each. */
#include "kai_int.h"

#include "base/mem.h"

#include <string.h>

int tph_kai_node_sets_push(tph_kai_node_sets *ns, const uint32_t *nodes, uint32_t n)
{
	uint32_t used = ns->n ? ns->first[ns->n] : 0;
	if (used > UINT32_MAX - n ||
	    tph_grow(&ns->nodes, &ns->cap_nodes, used + n + 1, sizeof *nodes) ||
	    tph_grow(&ns->first, &ns->cap_first, ns->n + 2, sizeof *ns->first))
		return TPH_ENOMEM;
	if (n)
		memcpy(ns->nodes + used, nodes, n * sizeof *nodes);
	ns->first[ns->n] = used;
	ns->first[++ns->n] = used + n;
	return TPH_OK;
}

void tph_kai_node_sets_free(tph_kai_node_sets *ns)
{
	tph_free(ns->nodes);
	tph_free(ns->first);
	*ns = (tph_kai_node_sets){0};
}

int tph_kai_add_subset_nodes(tph_kai_session *s, tph_kai_subset_nodes_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->subset_nodes, (void *)fn, state);
}

int tph_kai_add_pre_job_allocation(tph_kai_session *s, tph_kai_pre_job_allocation_fn fn,
                                   void *state)
{
	return tph_kai_hooks_add(s, &s->pre_job_allocation, (void *)fn, state);
}

/* Every set of `from` split by hook h into `to` (reset first). */
static int split_all(const tph_kai_session *s, const tph_kai_hook *h, uint32_t job,
                     int32_t subgroup, const uint32_t *tasks, uint32_t n_tasks,
                     const tph_kai_node_sets *from, tph_kai_node_sets *to)
{
	to->n = 0;
	for (uint32_t i = 0; i < from->n; i++) {
		const uint32_t *set = from->nodes + from->first[i];
		int rc =
		    ((tph_kai_subset_nodes_fn)h->fn)(h->state, s, job, subgroup, tasks, n_tasks,
		                                     set, from->first[i + 1] - from->first[i], to);
		if (rc < 0)
			return rc;
	}
	return TPH_OK;
}

int tph_kai_subset_nodes(const tph_kai_session *s, uint32_t job, int32_t subgroup,
                         const uint32_t *tasks, uint32_t n_tasks, const uint32_t *nodes,
                         uint32_t n_nodes, tph_kai_node_sets *out)
{
	out->n = 0;
	int rc = tph_kai_node_sets_push(out, nodes, n_nodes);
	tph_kai_node_sets spare = {0};
	for (uint32_t i = 0; rc >= 0 && i < s->subset_nodes.n; i++) {
		rc = split_all(s, &s->subset_nodes.items[i], job, subgroup, tasks, n_tasks, out,
		               &spare);
		tph_kai_node_sets t = *out;
		*out = spare;
		spare = t;
	}
	tph_kai_node_sets_free(&spare);
	return rc < 0 ? rc : TPH_OK;
}

void tph_kai_pre_job_allocation(const tph_kai_session *s, uint32_t job)
{
	const tph_kai_hooks *h = &s->pre_job_allocation;
	for (uint32_t i = 0; i < h->n; i++)
		((tph_kai_pre_job_allocation_fn)h->items[i].fn)(h->items[i].state, s, job);
}

void tph_kai_free_subset_hooks(tph_kai_session *s)
{
	tph_free(s->subset_nodes.items);
	tph_free(s->pre_job_allocation.items);
}
