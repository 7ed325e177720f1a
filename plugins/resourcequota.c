/* resourcequota: Volcano's resourcequota plugin (pkg/scheduler/plugins/resourcequota). A job
 * may be enqueued only while, for every quota of its namespace, each resource that both its
 * minResources and the quota's hard limits name stays within the limit once the quota's
 * status.used, the minResources of the jobs this session already enqueued in the namespace and
 * the job's own are added (quotav1.LessThanOrEqual over the masked sum). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/why.h"
#include "tephra/plugin.h"

typedef struct rq_st {
	uint32_t n_ns;
	tph_sid *ns;      /* the namespaces that have quotas, sorted */
	int64_t *pending; /* [i * ndim + d]: minResources enqueued this session */
	uint32_t *job_ns; /* [job] index into ns, TPH_NOIDX: no quota */
} rq_st;

static int cmp_sid(const void *a, const void *b)
{
	tph_sid x = *(const tph_sid *)a, y = *(const tph_sid *)b;
	return (x > y) - (x < y);
}

static uint32_t ns_index(const rq_st *st, tph_sid ns)
{
	const tph_sid *p = bsearch(&ns, st->ns, st->n_ns, sizeof *st->ns, cmp_sid);
	return p ? (uint32_t)(p - st->ns) : TPH_NOIDX;
}

/* quotav1.LessThanOrEqual(Mask(used + pending + Mask(min, hard names), min names), hard): the
 * resources the quota and the job's minResources both name (a zero value names one too). */
static bool within(const tph_session *s, const int64_t *min, tph_dimmask named,
                   const int64_t *pending, uint32_t q)
{
	const tph_quota_store *qs = tph_view_of(s)->quotas;
	size_t row = (size_t)q * tph_view_of(s)->ndim;
	const int64_t *hard = qs->hard + row, *used = qs->used + row;
	tph_dimmask both = qs->hard_mask[q] & named;
	for (uint32_t d = 0; d < tph_view_of(s)->ndim && d < 32; d++)
		if ((both >> d & 1) && used[d] + pending[d] + min[d] > hard[d])
			return false;
	return true;
}

/* Volcano's event text ("resource quota insufficient") with the quota and its figures. */
static void refused(const tph_session *s, tph_idx j, const int64_t *min, tph_dimmask named,
                    const int64_t *pending, uint32_t q)
{
	const tph_quota_store *qs = tph_view_of(s)->quotas;
	uint32_t nd = tph_view_of(s)->ndim;
	int64_t base[TPH_RES_MAX], req[TPH_RES_MAX], hard[TPH_RES_MAX];
	tph_dimmask both = qs->hard_mask[q] & named;
	for (uint32_t d = 0; d < nd; d++) {
		bool on = d < 32 && (both >> d & 1);
		base[d] = qs->used[(size_t)q * nd + d] + pending[d];
		req[d] = on ? min[d] : 0;
		hard[d] = on ? qs->hard[(size_t)q * nd + d] : INT64_MAX;
	}
	char scope[600];
	snprintf(scope, sizeof scope, "resource quota %s/%s", tph_session_str(s, qs->ns[q]),
	         tph_session_str(s, qs->name[q]));
	why_over(s, j,
	         &(why_over_args){"resource quota insufficient", "insufficient", scope, "used",
	                          "hard", base, req, hard});
}

static int enqueueable(void *stv, const tph_session *s, tph_idx j)
{
	const rq_st *st = stv;
	uint32_t i = st->job_ns[j];
	const tph_job_store *js = tph_view_of(s)->jobs;
	if (!js->has_min_res[j] || i == TPH_NOIDX)
		return TPH_PERMIT;
	const int64_t *min = js->min_res + (size_t)j * tph_view_of(s)->ndim;
	const int64_t *pending = st->pending + (size_t)i * tph_view_of(s)->ndim;
	const tph_quota_store *qs = tph_view_of(s)->quotas;
	for (uint32_t q = 0; q < qs->n; q++)
		if (qs->ns[q] == st->ns[i] && !within(s, min, js->min_res_mask[j], pending, q)) {
			refused(s, j, min, js->min_res_mask[j], pending, q);
			return TPH_REJECT;
		}
	return TPH_PERMIT;
}

static void enqueued(void *stv, tph_session *s, tph_idx j)
{
	rq_st *st = stv;
	uint32_t i = st->job_ns[j];
	if (!tph_view_of(s)->jobs->has_min_res[j] || i == TPH_NOIDX)
		return;
	const int64_t *min = tph_view_of(s)->jobs->min_res + (size_t)j * tph_view_of(s)->ndim;
	int64_t *pending = st->pending + (size_t)i * tph_view_of(s)->ndim;
	for (uint32_t d = 0; d < tph_view_of(s)->ndim; d++)
		pending[d] += min[d];
}

static int rq_open(tph_session *s, void *stv, const tph_args *args)
{
	rq_st *st = stv;
	const tph_quota_store *qs = tph_view_of(s)->quotas;
	(void)args;
	st->ns = TPH_SESSION_NEW(s, tph_sid, qs->n + 1);
	st->job_ns = TPH_SESSION_NEW(s, uint32_t, tph_view_of(s)->jobs->n + 1);
	if (!st->ns || !st->job_ns)
		return TPH_ENOMEM;
	memcpy(st->ns, qs->ns, qs->n * sizeof *st->ns);
	qsort(st->ns, qs->n, sizeof *st->ns, cmp_sid);
	for (uint32_t q = 0; q < qs->n; q++)
		if (!st->n_ns || st->ns[st->n_ns - 1] != st->ns[q])
			st->ns[st->n_ns++] = st->ns[q];
	st->pending = TPH_SESSION_NEW(s, int64_t, (size_t)st->n_ns * tph_view_of(s)->ndim + 1);
	if (!st->pending)
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < tph_view_of(s)->jobs->n; j++)
		st->job_ns[j] = ns_index(st, tph_view_of(s)->jobs->ns[j]);
	int rc = tph_on_job_enqueueable(s, enqueueable);
	if (!rc)
		rc = tph_on_job_enqueued(s, enqueued);
	return rc;
}

const tph_plugin tph_plugin_resourcequota = {
    .abi = TPH_PLUGIN_ABI,
    .name = "resourcequota",
    .state_size = sizeof(rq_st),
    .on_session_open = rq_open,
};
