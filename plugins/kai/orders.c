/* KAI's order plugins: priority (plugins/priority: the higher priority first) and elastic
 * (plugins/elastic: a job below its minimum before one at or above it, a job at its minimum
 * before one above it) order jobs; taskorder orders tasks; subgrouporder sub-groups. Only
 * elastic keeps state: each job's active pods while the job's version stays. */
#include "kai_plugins.h"

#include "tephra/alloc.h"

int64_t tph_kai_job_min(const tph_kai_view *v, uint32_t j)
{
	int64_t min = 0;
	for (uint32_t c = v->jobs.sg_first[j]; c < v->jobs.sg_first[j] + v->jobs.sg_count[j]; c++)
		min += v->subgroups.pod_set[c] ? v->subgroups.min_member[c] : 0;
	return min;
}

static int64_t count_active(const tph_kai_session *s, uint32_t j)
{
	const uint8_t *st = tph_kai_session_status(s);
	const uint32_t *t;
	uint32_t n = tph_kai_session_job_tasks(s, j, &t);
	int64_t c = 0;
	for (uint32_t i = 0; i < n; i++)
		c += tph_kai_active_allocated(st[t[i]]);
	return c;
}

/* [job] each job's active allocated pods, kept while its version stays (JobOrder runs per
 * comparison of every pop of the solver's queues). */
typedef struct elastic_state {
	uint64_t *ver;
	int64_t *active;
} elastic_state;

static int64_t active_allocated(elastic_state *e, const tph_kai_session *s, uint32_t j)
{
	uint64_t ver = tph_kai_session_job_version(s, j);
	if (!ver) /* naive mode */
		return count_active(s, j);
	if (ver != e->ver[j]) {
		e->active[j] = count_active(s, j);
		e->ver[j] = ver;
	}
	return e->active[j];
}

static int elastic_rule(elastic_state *e, const tph_kai_session *s, uint32_t l, uint32_t r)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	int64_t la = active_allocated(e, s, l), lm = tph_kai_job_min(v, l);
	int64_t ra = active_allocated(e, s, r), rm = tph_kai_job_min(v, r);
	if ((la < lm && ra >= rm) || (la == lm && ra > rm))
		return -1;
	if ((la >= lm && ra < rm) || (la > lm && ra == rm))
		return 1;
	return 0;
}

static int elastic_order(void *state, const tph_kai_session *s, uint32_t l, uint32_t r)
{
	return elastic_rule(state, s, l, r);
}

static int priority_order(void *state, const tph_kai_session *s, uint32_t l, uint32_t r)
{
	const int32_t *p = tph_kai_session_view(s)->jobs.priority;
	(void)state;
	return p[l] > p[r] ? -1 : p[l] < p[r];
}

static int open_priority(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	*state = NULL;
	int rc = tph_kai_add_job_order(s, priority_order, NULL);
	return rc < 0 ? tph_diag_set(d, rc, "priority: cannot register") : TPH_OK;
}

static int open_elastic(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	size_t nj = (size_t)tph_kai_session_view(s)->jobs.n + 1;
	elastic_state *e = tph_calloc(1, sizeof *e);
	(void)args;
	*state = e;
	if (e) {
		e->ver = tph_calloc(nj, sizeof *e->ver);
		e->active = tph_calloc(nj, sizeof *e->active);
	}
	if (!e || !e->ver || !e->active)
		return tph_diag_set(d, TPH_ENOMEM, "elastic: out of memory");
	int rc = tph_kai_add_job_order(s, elastic_order, e);
	return rc < 0 ? tph_diag_set(d, rc, "elastic: cannot register") : TPH_OK;
}

static void close_elastic(tph_kai_session *s, void *state)
{
	elastic_state *e = state;
	(void)s;
	if (!e)
		return;
	tph_free(e->ver);
	tph_free(e->active);
	tph_free(e);
}

const tph_kai_plugin tph_kai_plugin_priority = {TPH_KAI_PLUGIN_ABI, "priority", open_priority,
                                                NULL};
const tph_kai_plugin tph_kai_plugin_elastic = {TPH_KAI_PLUGIN_ABI, "elastic", open_elastic,
                                               close_elastic};

/* taskorder (plugins/taskorder): the higher kai.scheduler/task-priority label first. */
static int task_priority_order(void *state, const tph_kai_session *s, uint32_t l, uint32_t r)
{
	const int32_t *p = tph_kai_session_view(s)->tasks.task_priority;
	(void)state;
	return p[l] > p[r] ? -1 : p[l] < p[r];
}

static int open_taskorder(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	*state = NULL;
	int rc = tph_kai_add_task_order(s, task_priority_order, NULL);
	return rc < 0 ? tph_diag_set(d, rc, "taskorder: cannot register") : TPH_OK;
}

const tph_kai_plugin tph_kai_plugin_taskorder = {TPH_KAI_PLUGIN_ABI, "taskorder", open_taskorder,
                                                 NULL};

/* subgrouporder (plugins/subgrouporder) over sibling sub-groups, sets and pod sets alike: one
 * below its threshold first (two below: no opinion); an optional one (threshold 0) after a
 * required one, two optional by fewer allocated; else the lower allocated/threshold ratio. */
static int64_t pod_set_allocated(const tph_kai_session *s, uint32_t ps)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	const uint8_t *st = tph_kai_session_status(s);
	const uint32_t *t;
	uint32_t n = tph_kai_session_job_tasks(s, v->subgroups.job[ps], &t);
	int64_t c = 0;
	for (uint32_t i = 0; i < n; i++)
		c += v->tasks.pod_set[t[i]] == (int32_t)ps && tph_kai_active_allocated(st[t[i]]);
	return c;
}

/* KAI's GetNumActiveAllocatedMembers and GetMinMembersToSatisfy: a pod set's active allocated
 * pods against its minMember, a set's satisfied direct children against its minSubGroup. */
static int64_t member_allocated(const tph_kai_session *s, uint32_t k, int64_t *threshold)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	if (v->subgroups.pod_set[k]) {
		*threshold = v->subgroups.min_member[k];
		return pod_set_allocated(s, k);
	}
	*threshold = v->subgroups.min_subgroup[k];
	uint32_t j = v->subgroups.job[k], first = v->jobs.sg_first[j];
	int64_t sat = 0, min;
	for (uint32_t c = first; c < first + v->jobs.sg_count[j]; c++)
		if (v->subgroups.parent[c] == (int32_t)k)
			sat += member_allocated(s, c, &min) >= min;
	return sat;
}

static int subgroup_order(void *state, const tph_kai_session *s, uint32_t l, uint32_t r)
{
	int64_t lmin, rmin, la = member_allocated(s, l, &lmin), ra = member_allocated(s, r, &rmin);
	bool lsat = la >= lmin, rsat = ra >= rmin;
	(void)state;
	if (!lsat || !rsat)
		return lsat == rsat ? 0 : lsat ? 1 : -1;
	if (!lmin || !rmin)
		return lmin != rmin ? (lmin ? -1 : 1) : (la > ra) - (la < ra);
	double lr = (double)la / (double)lmin, rr = (double)ra / (double)rmin;
	return lr < rr ? -1 : lr > rr;
}

static int open_subgrouporder(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	*state = NULL;
	int rc = tph_kai_add_pod_set_order(s, subgroup_order, NULL);
	return rc < 0 ? tph_diag_set(d, rc, "subgrouporder: cannot register") : TPH_OK;
}

const tph_kai_plugin tph_kai_plugin_subgrouporder = {TPH_KAI_PLUGIN_ABI, "subgrouporder",
                                                     open_subgrouporder, NULL};
