/* A pod's request from its containers, init containers and overhead, made once when the pod is
 * put: Volcano's GetPodResourceRequest (pkg/scheduler/api/pod_info.go), which NewTaskInfo takes
 * as both Resreq and InitResreq, and kube-scheduler's non-zero cpu and memory requests
 * (resourcehelper.PodRequests with NonMissingContainerRequests) that its scorers read. */
#include "cache/cluster_int.h"

#include "base/diag.h"

#include <stdio.h>
#include <string.h>

#define NZ_CPU 100                   /* schedutil.DefaultMilliCPURequest */
#define NZ_MEM (200LL * 1024 * 1024) /* schedutil.DefaultMemoryRequest */

/* A request row over the dimensions known so far and planned, with the dimensions named. */
typedef struct row {
	int64_t v[TPH_RES_MAX];
	tph_dimmask have;
	int64_t nz[2]; /* cpu, memory with the defaults for a container that names neither */
} row;

static void row_of(row *r, const tph_rlist *l, bool defaults)
{
	memset(r, 0, sizeof *r);
	for (uint32_t i = 0; i < l->n; i++) {
		r->v[l->dim[i]] = l->val[i];
		r->have |= (tph_dimmask)1 << l->dim[i];
	}
	r->nz[0] = r->have & (1u << TPH_RES_CPU) ? r->v[TPH_RES_CPU] : defaults ? NZ_CPU : 0;
	r->nz[1] = r->have & (1u << TPH_RES_MEMORY) ? r->v[TPH_RES_MEMORY] : defaults ? NZ_MEM : 0;
}

/* Sums saturate just above the cache's largest value, which is then refused: however many init
 * containers a pod has, nothing overflows. */
#define SAT (TPH_RES_VALUE_MAX + 1)

static int64_t sat_add(int64_t a, int64_t b)
{
	return a + b > SAT ? SAT : a + b;
}

static void row_add(row *a, const row *b)
{
	for (uint32_t d = 0; d < TPH_RES_MAX; d++)
		a->v[d] = sat_add(a->v[d], b->v[d]);
	a->have |= b->have;
	a->nz[0] = sat_add(a->nz[0], b->nz[0]);
	a->nz[1] = sat_add(a->nz[1], b->nz[1]);
}

static void row_max(row *a, const row *b)
{
	for (uint32_t d = 0; d < TPH_RES_MAX; d++)
		a->v[d] = b->v[d] > a->v[d] ? b->v[d] : a->v[d];
	a->have |= b->have;
	for (int k = 0; k < 2; k++)
		a->nz[k] = b->nz[k] > a->nz[k] ? b->nz[k] : a->nz[k];
}

static int read_list(tph_cluster *c, const tph_res_list *l, tph_dimplan *plan, row *out,
                     tph_diag *d, const char *obj, const char *field)
{
	tph_rlist rl;
	int rc = tph_res_prepare(c, l, plan, &rl, d, obj, field);
	if (!rc)
		row_of(out, &rl, true);
	return rc;
}

static int check_init(const tph_pod_desc *p, uint32_t i, tph_diag *d, const char *obj)
{
	const tph_init_container *ic = &p->init_containers[i];
	if (tph_empty(ic->name))
		return tph_diag_set(d, TPH_EINVAL, "%s: initContainers: item %u: empty name", obj,
		                    i);
	if (ic->image && !ic->image[0])
		return tph_diag_set(d, TPH_EINVAL, "%s: initContainers: %s: empty image", obj,
		                    ic->name);
	for (uint32_t j = 0; j < i; j++)
		if (!strcmp(p->init_containers[j].name, ic->name))
			return tph_diag_set(d, TPH_EINVAL, "%s: initContainers: %s given twice",
			                    obj, ic->name);
	return TPH_OK;
}

/* Init containers run one after another, each beside the restartable ones started before it;
 * restartable ones also run beside the containers (aggregateAllContainerResourceRequests). */
static int add_init(tph_cluster *c, const tph_pod_desc *p, tph_dimplan *plan, row *sum, tph_diag *d,
                    const char *obj)
{
	if (p->n_init_containers && !p->init_containers)
		return tph_diag_set(d, TPH_EINVAL, "%s: initContainers: no items", obj);
	row side = {0}, top = {0}, cur;
	for (uint32_t i = 0; i < p->n_init_containers; i++) {
		const tph_init_container *ic = &p->init_containers[i];
		char field[96];
		int rc = check_init(p, i, d, obj);
		snprintf(field, sizeof field, "initContainers: %s: requests", ic->name);
		if (rc || (rc = read_list(c, &ic->requests, plan, &cur, d, obj, field)))
			return rc;
		if (ic->restart_always) {
			row_add(sum, &cur);
			row_add(&side, &cur);
			cur = side;
		} else {
			row_add(&cur, &side);
		}
		row_max(&top, &cur);
	}
	row_max(sum, &top);
	return TPH_OK;
}

int tph_pod_req_prepare(tph_cluster *c, const tph_pod_desc *p, tph_dimplan *plan, tph_pod_req *out,
                        tph_diag *d, const char *obj)
{
	row sum, over;
	tph_rlist ol;
	int rc = read_list(c, &p->requests, plan, &sum, d, obj, "requests");
	if (!rc)
		rc = add_init(c, p, plan, &sum, d, obj);
	if (!rc)
		rc = tph_res_prepare(c, &p->overhead, plan, &ol, d, obj, "overhead");
	if (rc)
		return rc;
	row_of(&over, &ol,
	       false); /* overhead is added as it is (amendResourceAccordingToPodFeatures) */
	row_add(&sum, &over);
	out->row.n = 0;
	for (uint32_t dm = 0; dm < TPH_RES_MAX; dm++) {
		if (!(sum.have >> dm & 1))
			continue;
		if (sum.v[dm] > TPH_RES_VALUE_MAX)
			return tph_diag_set(
			    d, TPH_ERANGE,
			    "%s: requests with init containers and overhead: "
			    "%s is above 2^53 units",
			    obj,
			    tph_strtab_str(&c->strs, dm < c->dims.n ? c->dims.name[dm]
			                                            : plan->name[dm - c->dims.n]));
		out->row.dim[out->row.n] = (uint8_t)dm;
		out->row.val[out->row.n++] = sum.v[dm];
	}
	/* the non-zero sums exceed the real ones by at most 100m / 200Mi per container */
	out->nonzero[0] = sum.nz[0] < SAT ? sum.nz[0] : TPH_RES_VALUE_MAX;
	out->nonzero[1] = sum.nz[1] < SAT ? sum.nz[1] : TPH_RES_VALUE_MAX;
	return TPH_OK;
}
