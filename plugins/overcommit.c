/* overcommit: Volcano's overcommit plugin, the enqueue gate. A job may enter the queue while
 * the minResources of every inqueue job, its own included, fit the cluster's allocatable
 * scaled by `overcommit-factor` minus what the nodes already use. */
#include "lib/vres.h"
#include "lib/why.h"
#include "tephra/plugin.h"

#include <stddef.h>
#include <stdio.h>

#define DEFAULT_FACTOR 1.2

typedef struct overcommit_st {
	double factor;
	/* Volcano keeps resources as float64; the comparison is done in its units and
	 * arithmetic so that the rounding of total * factor is the same. */
	double scale[TPH_RES_MAX]; /* tephra unit -> Volcano unit */
	double idle[TPH_RES_MAX];  /* total * factor - used, at open */
	int64_t
	    inqueue[TPH_RES_MAX]; /* minResources reserved by inqueue jobs; grows on JobEnqueued */
	char scope[64];           /* the refusals' scope, the factor's text made once at open */
} overcommit_st;

static const tph_arg_spec overcommit_args[] = {
    {"overcommit-factor", TPH_ARG_FLOAT, "1.2", 0, 0, offsetof(overcommit_st, factor),
     "cluster resources are multiplied by this (>= 1) when admitting jobs"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static void add_row(int64_t *acc, const int64_t *row, uint32_t nd)
{
	for (uint32_t d = 0; d < nd; d++)
		acc[d] += row[d];
}

/* Volcano keeps ephemeral-storage and hugepages (scalars) in milli-units, memory in bytes. */
static void set_scale(overcommit_st *o, const tph_dims *dims)
{
	for (uint32_t d = 0; d < dims->n; d++)
		o->scale[d] = d != TPH_RES_MEMORY && dims->unit[d] == TPH_UNIT_BYTES ? 1000.0 : 1.0;
}

/* From the ready nodes' sums every plugin shares. */
static int compute_idle(overcommit_st *o, tph_session *s)
{
	const vr_node_sums *ns = vr_node_sums_get(s);
	if (!ns)
		return TPH_ENOMEM;
	for (uint32_t d = 0; d < tph_view_of(s)->ndim; d++)
		o->idle[d] = (double)ns->alloc[d] * o->scale[d] * o->factor -
		             (double)ns->used[d] * o->scale[d];
	return TPH_OK;
}

/* Inqueue jobs reserve their minResources; Running jobs that reached minMember reserve what
 * their allocated tasks do not cover yet (util.GetInqueueResource). */
static void compute_inqueue(overcommit_st *o, const tph_session *s)
{
	const tph_job_store *js = tph_view_of(s)->jobs;
	uint32_t nd = tph_view_of(s)->ndim;
	for (tph_idx j = 0; j < js->n; j++) {
		if (!js->has_min_res[j])
			continue;
		const int64_t *min = js->min_res + (size_t)j * nd;
		if (js->phase[j] == TPH_PG_INQUEUE) {
			add_row(o->inqueue, min, nd);
			continue;
		}
		const uint32_t *c = tph_view_of(s)->js->count + (size_t)j * TPH_TS_COUNT;
		int64_t alloc_n = (int64_t)c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] +
		                  c[TPH_TS_BOUND] + c[TPH_TS_RUNNING];
		if (js->phase[j] != TPH_PG_RUNNING || alloc_n < js->min_member[j])
			continue;
		const int64_t *alloc = tph_view_of(s)->js->allocated + (size_t)j * nd;
		for (uint32_t d = 0; d < nd; d++)
			if (min[d] > alloc[d])
				o->inqueue[d] += min[d] - alloc[d];
	}
}

/* Volcano's event text with the figures: what is inqueue, the job's minResources and the
 * idle resource (total * overcommit-factor - used) in exact units. */
static void refused(const overcommit_st *o, const tph_session *s, tph_idx j, const int64_t *min)
{
	int64_t idle[TPH_RES_MAX], req[TPH_RES_MAX];
	for (uint32_t d = 0; d < tph_view_of(s)->ndim; d++) {
		idle[d] = o->idle[d] <= 0 ? 0 : (int64_t)(o->idle[d] / o->scale[d]);
		req[d] = d == TPH_RES_PODS ? 0 : min[d];
	}
	why_over(s, j,
	         &(why_over_args){"resource in cluster is overused", "overused", o->scope,
	                          "inqueue", "idle", o->inqueue, req, idle});
}

/* Best-effort jobs (no minResources) always enter. Otherwise only the dimensions the job asks
 * for are compared; pods never are. */
static int enqueueable(void *st, const tph_session *s, tph_idx j)
{
	const overcommit_st *o = st;
	if (!tph_view_of(s)->jobs->has_min_res[j])
		return TPH_PERMIT;
	const int64_t *min = tph_view_of(s)->jobs->min_res + (size_t)j * tph_view_of(s)->ndim;
	for (uint32_t d = 0; d < tph_view_of(s)->ndim; d++) {
		if (d == TPH_RES_PODS || min[d] <= 0)
			continue;
		if ((double)(o->inqueue[d] + min[d]) * o->scale[d] > o->idle[d]) {
			refused(o, s, j, min);
			return TPH_REJECT;
		}
	}
	return TPH_PERMIT;
}

static void enqueued(void *st, tph_session *s, tph_idx j)
{
	overcommit_st *o = st;
	if (tph_view_of(s)->jobs->has_min_res[j])
		add_row(o->inqueue,
		        tph_view_of(s)->jobs->min_res + (size_t)j * tph_view_of(s)->ndim,
		        tph_view_of(s)->ndim);
}

static int overcommit_open(tph_session *s, void *st, const tph_args *args)
{
	(void)args;
	overcommit_st *o = st;
	if (o->factor < 1.0) {
		tph_session_warn(
		    s, "overcommit: overcommit-factor %g is below 1; using the default %g",
		    o->factor, DEFAULT_FACTOR);
		o->factor = DEFAULT_FACTOR;
	}
	snprintf(o->scope, sizeof o->scope, "cluster, overcommit-factor %g", o->factor);
	set_scale(o, tph_view_of(s)->dims);
	int rc = compute_idle(o, s);
	compute_inqueue(o, s);
	if (!rc)
		rc = tph_on_job_enqueueable(s, enqueueable);
	if (!rc)
		rc = tph_on_job_enqueued(s, enqueued);
	return rc;
}

const tph_plugin tph_plugin_overcommit = {
    .abi = TPH_PLUGIN_ABI,
    .name = "overcommit",
    .args = overcommit_args,
    .state_size = sizeof(overcommit_st),
    .on_session_open = overcommit_open,
};
