/* Jobs Volcano's allocate sends through allocateForJob: a hard network topology (soft ones are
 * made hard at session open with the cluster-top tier) or sub-group policies. Their search
 * over hypernode gradients belongs to the network-topology work; until it lands such jobs
 * stay pending, as they never take the flat path in Volcano. */
#include "allocate.h"

/* translateHighestTierNameToAllowed: a tier name resolves when some hypernode carries it. */
static bool tier_name_known(const tph_session *s, tph_sid name)
{
	const tph_hypernode_store *h = &s->snap->hypernodes;
	for (uint32_t i = 0; i < h->n; i++)
		if (h->tier_name[i] == name)
			return true;
	return false;
}

bool alloc_job_uses_topology(const tph_session *s, tph_idx job)
{
	const tph_job_store *js = s->jobs;
	const tph_job_meta *m = js->meta[job];
	if (m && m->n_subgroups)
		return true; /* ContainsSubJobPolicy */
	switch (js->topo_mode[job]) {
	case TPH_TOPO_SOFT:
		return true;
	case TPH_TOPO_HARD:
		/* IsHardTopologyMode needs a tier; an unknown tier name leaves none */
		return js->topo_tier[job] >= 0 || (js->topo_tier_name[job] != TPH_SID_NONE &&
		                                   tier_name_known(s, js->topo_tier_name[job]));
	default:
		return false;
	}
}

/* To fill: Volcano's allocateForJob / allocateForSubJob over c->tasks[job] (the job's pending
 * tasks in TaskOrder). Reuse alloc_place() and tph_ph_predicate(&c->ph, ...) for the per-task
 * work, call tph_ph_reset(&c->ph) where Volcano makes a new PredicateHelper, report every
 * discarded trial with tph_ph_touch_stmt(&c->ph, st) before tph_stmt_discard() (the
 * equivalence classes must see nodes that changed back), and alloc_reset_fit_errors() for
 * job.ResetFitErr. */
int alloc_topology_job(alloc_ctx *c, tph_idx job, bool *again)
{
	(void)c;
	(void)job;
	*again = false;
	return TPH_DECLINED;
}
