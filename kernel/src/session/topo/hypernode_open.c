/* Session open for network topology, in Volcano's openSession order: the hypernode tree with
 * the cluster top, the subjob partition, adjustNetworkTopologySpec (tier names to tiers, soft
 * mode to hard at the top's tier) and recoverAllocatedHyperNode (from running pods). */
#include "hypernode.h"

#include "base/mem.h"

#include <string.h>

/* translateHighestTierNameToAllowed: a tier, or a tierName some hypernode carries, else -1. */
static int32_t resolve_tier(const tph_hn_tree *t, int32_t tier, tph_sid name)
{
	int32_t v;
	if (tier >= 0)
		return tier;
	if (name != TPH_SID_NONE && tph_hn_tier_of_name(t, name, &v))
		return v;
	return -1;
}

/* The highest allowed tier once soft is hard (convertSoftToHardTopology), or -1 when not in
 * hard mode (no topology, or hard without a resolvable tier). */
static int32_t hard_tier(const tph_hn_tree *t, uint8_t mode, int32_t tier, tph_sid name,
                         int32_t soft_tier)
{
	if (mode == TPH_TOPO_SOFT)
		return soft_tier;
	return mode == TPH_TOPO_HARD ? resolve_tier(t, tier, name) : -1;
}

/* A subjob takes its policy's topology, the default subjob its job's. */
static void subjob_topology(const tph_session *s, tph_topo *tp, tph_idx k, int32_t sub_max)
{
	const tph_job_store *js = s->jobs;
	tph_idx j = tp->sj.job[k];
	uint32_t p = tp->sj.policy[k];
	uint8_t mode = js->topo_mode[j];
	int32_t tier = js->topo_tier[j];
	tph_sid name = js->topo_tier_name[j];
	if (p != TPH_NOIDX) {
		const tph_subgroup_row *row = &js->meta[j]->subgroups[p];
		mode = row->topo_mode;
		tier = row->topo_tier;
		name = row->topo_tier_name;
	}
	tp->sj.topo_has[k] = mode != TPH_TOPO_NONE;
	tp->sj.topo_tier[k] = hard_tier(&tp->t, mode, tier, name, sub_max);
}

static void adjust_topology(const tph_session *s, tph_topo *tp)
{
	const tph_job_store *js = s->jobs;
	int32_t top_tier = tp->t.tier[tp->t.top];
	for (tph_idx j = 0; j < js->n; j++) {
		uint8_t mode = js->topo_mode[j];
		tp->job_has[j] = mode != TPH_TOPO_NONE;
		tp->job_tier[j] =
		    hard_tier(&tp->t, mode, js->topo_tier[j], js->topo_tier_name[j], top_tier);
		/* soft subjobs stay under the job's tier when it has one */
		int32_t sub_max = tp->job_tier[j] >= 0 ? tp->job_tier[j] : top_tier;
		for (uint32_t k = tp->sj.job_off[j]; k < tp->sj.job_off[j + 1]; k++)
			subjob_topology(s, tp, k, sub_max);
	}
}

/* The lowest hypernode holding every allocated task of subjob k (tasks without a node are
 * skipped, as Volcano skips an empty nodeName). */
static tph_idx recover_subjob(const tph_session *s, const tph_topo *tp, tph_idx k, tph_idx *scratch)
{
	const tph_subjobs *o = &tp->sj;
	uint32_t n = 0;
	for (uint32_t i = o->task_off[k]; i < o->task_off[k + 1]; i++) {
		tph_idx t = o->task[i];
		if (tph_ts_allocated(s->tasks.status[t]) && s->tasks.node[t] != TPH_NOIDX)
			scratch[n++] = s->tasks.node[t];
	}
	return tph_hn_lowest_holding(&tp->t, scratch, n);
}

static int recover_allocated(tph_session *s, tph_topo *tp)
{
	uint32_t most = 0;
	for (uint32_t k = 0; k < tp->sj.n; k++)
		if (tp->sj.topo_has[k] && tp->sj.task_off[k + 1] - tp->sj.task_off[k] > most)
			most = tp->sj.task_off[k + 1] - tp->sj.task_off[k];
	if (!most)
		return TPH_OK; /* no subjob has a topology: nothing to recover */
	tph_idx *scratch = tph_malloc(most * sizeof *scratch);
	if (!scratch)
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < s->jobs->n; j++) {
		if (!tph_topo_job_contains_topology(s, j))
			continue;
		tph_idx lca = TPH_NOIDX;
		for (uint32_t k = tp->sj.job_off[j]; k < tp->sj.job_off[j + 1]; k++) {
			if (tp->sj.topo_has[k])
				tp->sj.hn[k] = recover_subjob(s, tp, k, scratch);
			lca = tph_hn_lca(&tp->t, lca, tp->sj.hn[k]);
		}
		tp->job_hn[j] = lca;
	}
	tph_free(scratch);
	return TPH_OK;
}

static int alloc_jobs(tph_session *s, tph_topo *tp)
{
	uint32_t nj = s->jobs->n;
	tp->job_has = TPH_ARENA_NEW(&s->arena, uint8_t, nj + 1);
	tp->job_tier = TPH_ARENA_NEW(&s->arena, int32_t, nj + 1);
	tp->job_hn = TPH_ARENA_NEW(&s->arena, tph_idx, nj + 1);
	if (!tp->job_has || !tp->job_tier || !tp->job_hn)
		return TPH_ENOMEM;
	for (uint32_t j = 0; j <= nj; j++)
		tp->job_hn[j] = TPH_NOIDX;
	return TPH_OK;
}

int tph_topo_task_hn_make(tph_session *s)
{
	tph_topo *tp = s->topo;
	if (tp->task_job_hn)
		return TPH_OK;
	tph_idx *v = TPH_ARENA_NEW(&s->arena, tph_idx, s->tasks.n + 1);
	if (!v)
		return TPH_ENOMEM;
	memset(v, 0xff, (s->tasks.n + 1) * sizeof *v);
	tp->task_job_hn = v;
	return TPH_OK;
}

int tph_topo_open(tph_session *s)
{
	tph_topo *tp = TPH_ARENA_NEW(&s->arena, tph_topo, 1);
	if (!tp)
		return TPH_ENOMEM;
	s->topo = tp;
	int rc = tph_hn_tree_build(s, &tp->t);
	if (!rc)
		rc = tph_subjobs_build(s, &tp->sj);
	if (!rc)
		rc = alloc_jobs(s, tp);
	if (rc) {
		s->topo = NULL; /* the hook must not see a half-built state */
		return rc;
	}
	adjust_topology(s, tp);
	return tp->t.ready ? recover_allocated(s, tp) : TPH_OK;
}
