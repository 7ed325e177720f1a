/* Volcano's api.Resource rules over exact rows (see vres.h): which dimensions Volcano sees, the
 * requests, totals and job rows it builds, and the comparisons the queue plugins use. */
#include "vres.h"

#include <string.h>

#include "tephra/resource.h"

static bool lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool alnum(char c)
{
	return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* validation.IsQualifiedName("requests." + name) for a name whose only '/' is at `slash`: a
 * DNS-1123 subdomain prefix, then a name part of at most 63 characters. */
static bool qualified_extended(const char *name, const char *slash)
{
	size_t plen = (size_t)(slash - name) + sizeof "requests." - 1;
	const char *nm = slash + 1;
	size_t nlen = strlen(nm);
	if (plen > 253 || slash == name || nlen == 0 || nlen > 63 || strchr(nm, '/'))
		return false;
	if (!lower_alnum(name[0]) || !lower_alnum(slash[-1]))
		return false;
	for (const char *p = name; p < slash; p++) {
		bool ok = lower_alnum(*p) || *p == '-' ||
		          (*p == '.' && lower_alnum(p[-1]) && lower_alnum(p[1]));
		if (!ok)
			return false;
	}
	if (!alnum(nm[0]) || !alnum(nm[nlen - 1]))
		return false;
	for (const char *p = nm; *p; p++)
		if (!alnum(*p) && *p != '-' && *p != '_' && *p != '.')
			return false;
	return true;
}

/* api.NewResource's filter: cpu, memory, pods, ephemeral-storage, then
 * v1helper.IsScalarResourceName and not a count/ quota. */
bool vr_visible_name(const char *n)
{
	static const char *const native[] = {"cpu", "memory", "pods", "ephemeral-storage"};
	for (size_t i = 0; i < sizeof native / sizeof *native; i++)
		if (strcmp(n, native[i]) == 0)
			return true;
	if (strncmp(n, "count/", 6) == 0)
		return false;
	if (strncmp(n, "hugepages-", 10) == 0 || strncmp(n, "attachable-volumes-", 19) == 0 ||
	    strstr(n, "kubernetes.io/"))
		return true;
	const char *slash = strchr(n, '/');
	return slash && strncmp(n, "requests.", 9) != 0 && qualified_extended(n, slash);
}

void vr_dims_init(vr_dims *v, const tph_session *s)
{
	const tph_dims *dm = tph_view_of(s)->dims;
	memset(v, 0, sizeof *v);
	v->n = dm->n;
	for (uint32_t d = 0; d < dm->n; d++) {
		if (!vr_visible_name(tph_session_str(s, dm->name[d])))
			continue;
		v->vis |= (tph_dimmask)1 << d;
		if (d == TPH_RES_PODS)
			v->kind[d] = VR_COUNT;
		else if (d != TPH_RES_MEMORY && dm->unit[d] == TPH_UNIT_BYTES)
			v->kind[d] = VR_MILLIBYTES;
	}
	tph_dimmask cm = ((tph_dimmask)1 << TPH_RES_CPU) | ((tph_dimmask)1 << TPH_RES_MEMORY);
	v->scal = v->vis & ~cm;
	v->cmp = v->vis & ~((tph_dimmask)1 << TPH_RES_PODS);
	for (uint32_t d = 0; d < v->n; d++)
		if (vr_has(v->cmp, d))
			v->cmp_dim[v->n_cmp++] = (uint8_t)d;
}

int64_t vr_exact(const vr_dims *v, uint32_t d, double x)
{
	double e = v->kind[d] == VR_COUNT        ? x * 1000.0
	           : v->kind[d] == VR_MILLIBYTES ? x / 1000.0
	                                         : x;
	return e >= 9.2e18 ? VR_INF : (int64_t)e;
}

void vr_req(const vr_dims *v, const tph_session *s, tph_idx t, int64_t *out)
{
	memset(out, 0, v->n * sizeof *out);
	vr_add_req(v, s, t, out, 1);
}

/* Column `base` (a node column, rows d * stride) summed over the ready nodes per dimension.
 * Integer sums do not depend on the order, so when every node is ready each row is summed
 * whole, in a loop the compiler vectorises. */
static void sum_ready(const tph_session *s, const int64_t *base, int64_t *out)
{
	const tph_view *w = tph_view_of(s);
	for (uint32_t d = 0; d < w->ndim; d++) {
		const int64_t *col = base + (size_t)d * w->nodes->stride;
		int64_t sum = 0;
		if (w->n_ready == w->nodes->n)
			for (uint32_t n = 0; n < w->nodes->n; n++)
				sum += col[n];
		else
			for (uint32_t i = 0; i < w->n_ready; i++)
				sum += col[w->ready_nodes[i]];
		out[d] = sum;
	}
}

void vr_total_from(const vr_dims *v, const int64_t *alloc, int64_t *out, tph_dimmask *keys)
{
	*keys = 0;
	for (uint32_t d = 0; d < v->n; d++) {
		out[d] = vr_has(v->vis, d) ? alloc[d] : 0;
		if (vr_has(v->scal, d) && out[d] > 0)
			*keys |= (tph_dimmask)1 << d;
	}
}

void vr_total(const vr_dims *v, const tph_session *s, int64_t *out, tph_dimmask *keys)
{
	int64_t alloc[TPH_RES_MAX];
	sum_ready(s, tph_view_of(s)->nodes->alloc, alloc);
	vr_total_from(v, alloc, out, keys);
}

static int node_sums_init(void *obj, tph_session *s)
{
	vr_node_sums *ns = obj;
	sum_ready(s, tph_view_of(s)->nodes->alloc, ns->alloc);
	sum_ready(s, tph_view_of(s)->nodes->used, ns->used);
	return TPH_OK;
}

const vr_node_sums *vr_node_sums_get(tph_session *s)
{
	void *ns = NULL;
	int rc = tph_session_shared(s, "vres.node_sums", sizeof(vr_node_sums), node_sums_init, &ns);
	return rc ? NULL : ns;
}

void vr_job_min(const vr_dims *v, const tph_session *s, tph_idx j, int64_t *out)
{
	const int64_t *m = tph_view_of(s)->jobs->min_res + (size_t)j * tph_view_of(s)->ndim;
	bool has = tph_view_of(s)->jobs->has_min_res[j];
	for (uint32_t d = 0; d < v->n; d++)
		out[d] = has && vr_has(v->vis, d) ? m[d] : 0;
}

/* GetInqueueResource walks minResources' keys: cpu, memory and pods reserve what allocated
 * does not cover; other scalars too, but ephemeral-storage is not a scalar resource name. */
void vr_job_inqueue(const vr_dims *v, const tph_session *s, tph_idx j, const int64_t *allocated,
                    int64_t *out)
{
	vr_job_min(v, s, j, out);
	for (uint32_t d = 0; d < v->n; d++) {
		if (d == TPH_RES_EPHEMERAL) {
			out[d] = 0;
			continue;
		}
		int64_t r = out[d] - allocated[d];
		out[d] = r > 0 ? r : 0;
	}
}

tph_dimmask vr_spec_row(const vr_dims *v, const int64_t *src, tph_dimmask mask, int64_t *out)
{
	for (uint32_t d = 0; d < v->n; d++)
		out[d] = vr_has(v->vis & mask, d) ? src[d] : 0;
	return mask & v->scal;
}

void vr_guarantee_total(const vr_dims *v, const tph_session *s, int64_t *out)
{
	const tph_queue_store *qs = tph_view_of(s)->queues;
	int64_t g[TPH_RES_MAX];
	memset(out, 0, v->n * sizeof *out);
	for (tph_idx q = 0; q < qs->n; q++) {
		vr_spec_row(v, qs->guarantee + (size_t)q * v->n, qs->gua_mask[q], g);
		for (uint32_t d = 0; d < v->n; d++)
			out[d] += g[d];
	}
}

static uint32_t allocated_tasks(const tph_session *s, tph_idx j)
{
	const uint32_t *c = tph_view_of(s)->js->count + (size_t)j * TPH_TS_COUNT;
	return c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] + c[TPH_TS_BOUND] + c[TPH_TS_RUNNING];
}

/* The Running rule (allocated tasks >= minMember) keeps a finished driver's podgroup from
 * reserving its minResources again. Allocated is the session's per-job sum (init_job_state),
 * which at open is the sum over the job's AllocatedStatus tasks. One pass over the dimensions
 * adds allocated (vr_job_allocated), request and elastic (vr_exceeded of allocated over
 * vr_job_min) into q's rows; inqueue is zero unless the podgroup reserves. */
void vr_job_rows_add(const vr_dims *v, const tph_session *s, tph_idx j, const vr_qrows *q)
{
	const tph_view *w = tph_view_of(s);
	const int64_t *pj = w->jobs->pending_req + (size_t)j * w->ndim;
	const int64_t *a = w->js->allocated + (size_t)j * w->ndim;
	const int64_t *m = w->jobs->min_res + (size_t)j * w->ndim;
	bool has_min = w->jobs->has_min_res[j];
	int64_t ja_row[TPH_RES_MAX], inq[TPH_RES_MAX];
	for (uint32_t d = 0; d < v->n; d++) {
		bool cmp = vr_has(v->cmp, d), vis = vr_has(v->vis, d);
		int64_t ja = cmp ? a[d] : 0, mn = has_min && vis ? m[d] : 0;
		ja_row[d] = ja;
		q->alloc[d] += ja;
		q->request[d] += cmp ? ja + pj[d] : 0;
		q->elastic[d] += vis && ja > mn ? vr_sub(ja, mn) : 0;
	}
	uint8_t ph = w->js->phase[j];
	if (!has_min ||
	    (ph != TPH_PG_INQUEUE &&
	     (ph != TPH_PG_RUNNING || allocated_tasks(s, j) < (uint32_t)w->jobs->min_member[j])))
		return;
	vr_job_inqueue(v, s, j, ja_row, inq);
	for (uint32_t d = 0; d < v->n; d++)
		q->inqueue[d] += inq[d];
}

void vr_job_rows(const vr_dims *v, const tph_session *s, tph_idx j, vr_jobrows *out)
{
	/* the rows past n are never read: not cleared */
	memset(out->alloc, 0, v->n * sizeof *out->alloc);
	memset(out->request, 0, v->n * sizeof *out->request);
	memset(out->inqueue, 0, v->n * sizeof *out->inqueue);
	memset(out->elastic, 0, v->n * sizeof *out->elastic);
	vr_job_rows_add(v, s, j, &(vr_qrows){out->alloc, out->request, out->inqueue, out->elastic});
}

bool vr_fits(const vr_dims *v, const int64_t *base, const int64_t *req, const int64_t *limit)
{
	for (uint32_t d = 0; d < v->n; d++)
		if (vr_has(v->cmp, d) && req[d] > 0 && limit[d] != VR_INF &&
		    vr_add(base[d], req[d]) > limit[d])
			return false;
	return true;
}

tph_dimmask vr_names(const vr_dims *v, const int64_t *x)
{
	tph_dimmask m = 0;
	for (uint32_t d = 0; d < v->n; d++)
		if (vr_has(v->vis, d) && x[d] > 0)
			m |= (tph_dimmask)1 << d;
	return m;
}

bool vr_is_empty(const vr_dims *v, const int64_t *x)
{
	return (vr_names(v, x) & v->cmp) == 0;
}

bool vr_le(const vr_dims *v, const int64_t *l, tph_dimmask lkeys, const int64_t *r)
{
	tph_dimmask m = (v->vis & ~v->scal) | (lkeys & v->scal);
	for (uint32_t d = 0; d < v->n; d++)
		if (vr_has(m, d) && l[d] > r[d])
			return false;
	return true;
}

/* cpu and memory count when rr holds them; a scalar when rr has the key; pods never. */
bool vr_gt_relevant(const vr_dims *v, const int64_t *r, const int64_t *rr, tph_dimmask rr_keys,
                    const int64_t *req)
{
	for (uint32_t d = 0; d < v->n; d++) {
		if (!vr_has(v->cmp, d) || req[d] <= 0)
			continue;
		bool relevant = vr_has(v->scal, d) ? vr_has(rr_keys, d) : rr[d] > 0;
		if (relevant && r[d] > rr[d])
			return true;
	}
	return false;
}

/* Dimensions where both r and rr are zero are filtered out; then some requested one fits. */
bool vr_le_partly(const vr_dims *v, const int64_t *r, const int64_t *rr, const int64_t *req)
{
	for (uint32_t d = 0; d < v->n; d++) {
		if (!vr_has(v->cmp, d) || req[d] <= 0 || (r[d] <= 0 && rr[d] <= 0))
			continue;
		if (r[d] <= rr[d])
			return true;
	}
	return false;
}

void vr_exceeded(const vr_dims *v, const int64_t *l, const int64_t *r, int64_t *out,
                 tph_dimmask *keys)
{
	tph_dimmask k = 0;
	for (uint32_t d = 0; d < v->n; d++) {
		int64_t x = 0;
		if (vr_has(v->vis, d) && l[d] > r[d]) {
			x = vr_sub(l[d], r[d]);
			k |= (tph_dimmask)1 << d;
		}
		out[d] = x;
	}
	if (keys)
		*keys = k & v->scal;
}

void vr_min_cap(const vr_dims *v, int64_t *row, const int64_t *cap, tph_dimmask cap_keys)
{
	tph_dimmask m = (v->vis & ~v->scal) | (cap_keys & v->scal);
	for (uint32_t d = 0; d < v->n; d++)
		if (vr_has(m, d) && cap[d] < row[d])
			row[d] = cap[d];
}

void vr_max(const vr_dims *v, const int64_t *a, const int64_t *b, int64_t *out)
{
	for (uint32_t d = 0; d < v->n; d++)
		out[d] = a[d] > b[d] ? a[d] : b[d];
}

bool vr_intersects(const vr_dims *v, const int64_t *a, const int64_t *b, bool no_pods)
{
	tph_dimmask m = vr_names(v, a) & vr_names(v, b);
	if (no_pods)
		m &= v->cmp;
	return m != 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void vr_each_name(const char *list, void (*fn)(void *ud, const char *name, size_t len), void *ud)
{
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		const char *b = p, *e = end ? end : p + strlen(p);
		while (b < e && blank(*b))
			b++;
		while (e > b && blank(e[-1]))
			e--;
		if (e > b)
			fn(ud, b, (size_t)(e - b));
		p = end ? end + 1 : NULL;
	}
}

void *vr_scratch_get(tph_session *s, vr_scratch *sc, size_t bytes)
{
	if (bytes <= sc->cap)
		return sc->p;
	size_t cap = sc->cap ? sc->cap * 2 : 256;
	while (cap < bytes)
		cap *= 2;
	void *p = tph_session_alloc(s, cap);
	if (!p)
		return NULL;
	sc->p = p;
	sc->cap = cap;
	return p;
}

int vr_clone_init(tph_session *s, vr_clone *c, uint32_t n, uint32_t nd)
{
	c->rows = TPH_SESSION_NEW(s, int64_t, (size_t)n * nd + 1);
	c->stamp = TPH_SESSION_NEW(s, uint32_t, (size_t)n + 1);
	c->epoch = 0;
	c->n = n;
	c->nd = nd;
	return c->rows && c->stamp ? TPH_OK : TPH_ENOMEM;
}

void vr_clone_reset(vr_clone *c)
{
	if (++c->epoch == 0) { /* wrapped: stale stamps could match again */
		memset(c->stamp, 0, c->n * sizeof *c->stamp);
		c->epoch = 1;
	}
}
