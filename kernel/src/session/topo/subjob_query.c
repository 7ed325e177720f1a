/* Subjob queries (SubJobInfo's counters and gang conditions, JobInfo's subjob checks) and the
 * task-move hook's subjob part. */
#include "hypernode.h"

const tph_subjobs *tph_subjobs_of(const tph_session *s)
{
	return s->topo ? &s->topo->sj : NULL;
}

tph_idx tph_task_subjob(const tph_session *s, tph_idx task)
{
	if (!s->topo || task >= s->tasks.n)
		return TPH_NOIDX;
	const tph_subjobs *o = &s->topo->sj;
	if (o->of_task)
		return o->of_task[task];
	tph_idx j = s->tasks.job[task]; /* no policies: the job's one subjob */
	return j == TPH_NOIDX ? TPH_NOIDX : o->job_off[j];
}

uint32_t tph_job_subjobs(const tph_session *s, tph_idx job, tph_idx *first)
{
	const tph_subjobs *sj = &s->topo->sj;
	*first = sj->job_off[job];
	return sj->job_off[job + 1] - sj->job_off[job];
}

tph_idx tph_job_default_subjob(const tph_session *s, tph_idx job)
{
	const tph_subjobs *sj = &s->topo->sj;
	for (uint32_t k = sj->job_off[job]; k < sj->job_off[job + 1]; k++)
		if (sj->policy[k] == TPH_NOIDX)
			return k;
	return TPH_NOIDX;
}

const char *tph_subjob_uid(const tph_session *s, tph_idx sj)
{
	const tph_subjobs *o = &s->topo->sj;
	if (o->uid[sj]) /* a default subjob's is its job's, left NULL when no job has policies */
		return o->uid[sj];
	return tph_strtab_str(s->snap->strs, s->jobs->uid[o->job[sj]]);
}

bool tph_job_has_subjob_policy(const tph_session *s, tph_idx job)
{
	const tph_job_meta *m = s->jobs->meta ? s->jobs->meta[job] : NULL;
	return m && m->n_subgroups > 0;
}

void tph_subjobs_task_moved(tph_session *s, tph_idx task, uint8_t old_status, tph_idx old_node)
{
	tph_subjobs *sj = &s->topo->sj;
	tph_idx k = tph_task_subjob(s, task);
	uint8_t now = s->tasks.status[task];
	if (k != TPH_NOIDX && s->tasks.node[task] != old_node) {
		sj->moves[k]++;
		sj->last_moved[k] = task;
	}
	if (k == TPH_NOIDX || now == old_status)
		return;
	if (sj->count) { /* else the job's counts, which the statement moved, are these */
		sj->count[(size_t)k * TPH_TS_COUNT + old_status]--;
		sj->count[(size_t)k * TPH_TS_COUNT + now]++;
	}
	if (s->tasks.flags[task] & TPH_TASK_BEST_EFFORT)
		sj->be_pending[k] +=
		    (uint32_t)(now == TPH_TS_PENDING) - (uint32_t)(old_status == TPH_TS_PENDING);
}

const uint32_t *tph_subjob_counts(const tph_session *s, tph_idx sj)
{
	const tph_subjobs *o = &s->topo->sj;
	if (o->count)
		return o->count + (size_t)sj * TPH_TS_COUNT;
	return s->js.count + (size_t)o->job[sj] * TPH_TS_COUNT; /* its job's only subjob */
}

uint32_t tph_subjob_ready_num(const tph_session *s, tph_idx sj)
{
	const uint32_t *c = tph_subjob_counts(s, sj);
	return c[TPH_TS_BOUND] + c[TPH_TS_BINDING] + c[TPH_TS_RUNNING] + c[TPH_TS_ALLOCATED] +
	       c[TPH_TS_SUCCEEDED];
}

bool tph_subjob_is_ready(const tph_session *s, tph_idx sj)
{
	int64_t have = (int64_t)tph_subjob_ready_num(s, sj) + s->topo->sj.be_pending[sj];
	return have >= s->topo->sj.min_available[sj];
}

bool tph_subjob_is_pipelined(const tph_session *s, tph_idx sj)
{
	int64_t have = (int64_t)tph_subjob_ready_num(s, sj) + s->topo->sj.be_pending[sj] +
	               tph_subjob_counts(s, sj)[TPH_TS_PIPELINED];
	return have >= s->topo->sj.min_available[sj];
}

uint32_t tph_subjob_allocated_num(const tph_session *s, tph_idx sj)
{
	const uint32_t *c = tph_subjob_counts(s, sj);
	return c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] + c[TPH_TS_BOUND] + c[TPH_TS_RUNNING];
}

void tph_subjob_min_resources(const tph_session *s, tph_idx sj, int64_t *row)
{
	const tph_subjobs *o = &s->topo->sj;
	for (uint32_t d = 0; d < s->ndim; d++)
		row[d] = 0;
	for (uint32_t i = o->task_off[sj]; i < o->task_off[sj + 1]; i++) {
		tph_idx t = o->task[i];
		if (s->tasks.status[t] != TPH_TS_PENDING)
			continue;
		const int64_t *req = s->tasks.req + (size_t)t * s->ndim;
		for (uint32_t d = 0; d < s->ndim; d++)
			row[d] += d == TPH_RES_PODS ? 0 : req[d];
	}
}

typedef bool (*sj_cond)(const tph_session *s, tph_idx sj);

static bool always(const tph_session *s, tph_idx sj)
{
	(void)s, (void)sj;
	return true;
}

/* checkSubJobCondition / CheckSubJobValid: per policy, the subjobs that meet `cond` against
 * minSubGroups (valid: every policy; ready/pipelined: those with a minimum above 0). */
static bool per_policy(const tph_session *s, tph_idx job, sj_cond cond)
{
	const tph_job_meta *m = s->jobs->meta ? s->jobs->meta[job] : NULL;
	const tph_subjobs *o = &s->topo->sj;
	for (uint32_t p = 0; m && p < m->n_subgroups; p++) {
		int32_t need = m->subgroups[p].min_subgroups, have = 0;
		if (cond != always && need == 0)
			continue;
		for (uint32_t k = o->job_off[job]; k < o->job_off[job + 1] && have < need; k++)
			have += o->policy[k] == p && cond(s, k);
		if (have < need)
			return false;
	}
	return true;
}

bool tph_job_subjobs_valid(const tph_session *s, tph_idx job)
{
	return per_policy(s, job, always);
}

bool tph_job_subjobs_ready(const tph_session *s, tph_idx job)
{
	return per_policy(s, job, tph_subjob_is_ready);
}

bool tph_job_subjobs_pipelined(const tph_session *s, tph_idx job)
{
	return per_policy(s, job, tph_subjob_is_pipelined);
}
