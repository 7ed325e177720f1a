/* KAI's stalegangeviction action (actions/stalegangeviction): a job with active pods but fewer
 * than its gang needs, and no Succeeded pod, is stale; once stale for longer than its grace
 * period (its own, else the scheduler's; negative: never) its active pods are evicted directly,
 * without a statement. A job that is no longer stale loses its stale-since timestamp. */
#include "session/kai/kai_int.h"

static bool has_succeeded(const tph_kai_session *s, uint32_t j)
{
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++)
		if (s->status[s->job_tasks[i]] == TPH_KAI_TS_SUCCEEDED)
			return true;
	return false;
}

static bool any_active(const tph_kai_session *s, uint32_t j)
{
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++)
		if (tph_kai_active_used(s->status[s->job_tasks[i]]))
			return true;
	return false;
}

static bool is_stale(const tph_kai_session *s, uint32_t j)
{
	return !has_succeeded(s, j) && any_active(s, j) &&
	       !tph_kai_gang_satisfied(s, j, tph_kai_active_used);
}

static int evict_stale(tph_kai_session *s, uint32_t j)
{
	const tph_kai_view *v = s->v;
	if (!s->stale_since[j])
		s->stale_since[j] = v->now;
	int64_t grace = v->jobs.staleness_grace_ms[j];
	if (grace < 0 || v->now - s->stale_since[j] < grace)
		return TPH_OK;
	int rc = TPH_OK;
	for (uint32_t i = s->job_first[j]; rc == TPH_OK && i < s->job_first[j + 1]; i++)
		if (tph_kai_active_allocated(s->status[s->job_tasks[i]]))
			rc = tph_kai_evict(s, s->job_tasks[i]);
	return rc;
}

static int run(tph_kai_session *s, tph_diag *d)
{
	int rc = TPH_OK;
	for (uint32_t j = 0; rc == TPH_OK && j < s->v->jobs.n; j++) {
		if (is_stale(s, j))
			rc = evict_stale(s, j);
		else
			s->stale_since[j] = 0;
	}
	return rc < 0 ? tph_diag_set(d, rc, "stalegangeviction: out of memory") : TPH_OK;
}

const tph_kai_action tph_kai_action_stalegangeviction = {"stalegangeviction", run};
