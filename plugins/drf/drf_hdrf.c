/* Hierarchical DRF (drf.go's hierarchicalNode): build the tree of queue paths and job leaves,
 * recompute node shares bottom-up, compare two queues along their paths. Children keep their
 * insertion order (jobs in snapshot order), which fixes the summation order Go's map leaves
 * random. When the demanding resources are unchanged only the changed leaf's path is
 * recomputed; every other node would come out bit for bit the same. */
#include "drf.h"

#include <stdlib.h>
#include <string.h>

static const char *annotation(const tph_session *s, tph_idx q, const char *key)
{
	tph_sid k = tph_session_sid(s, key, strlen(key));
	const tph_queue_meta *m =
	    tph_view_of(s)->queues->meta ? tph_view_of(s)->queues->meta[q] : NULL;
	tph_sid v = k == TPH_SID_NONE || !m ? TPH_SID_NONE : tph_labels_get(m->annotations, k);
	return v == TPH_SID_NONE ? "" : tph_session_str(s, v);
}

/* The i-th '/'-separated component of p (strings.Split), or NULL when there is none. */
static const char *component(const char *p, uint32_t i, uint32_t *len)
{
	*len = 0;
	for (; i > 0; i--) {
		p = strchr(p, '/');
		if (!p)
			return NULL;
		p++;
	}
	const char *e = strchr(p, '/');
	*len = (uint32_t)(e ? (size_t)(e - p) : strlen(p));
	return p;
}

static uint32_t components(const char *p)
{
	uint32_t n = 1;
	for (; *p; p++)
		n += *p == '/';
	return n;
}

/* strconv.ParseFloat, floored at 1 as buildHierarchy does; a missing or bad weight is 1. */
static double parse_weight(const char *w, uint32_t i)
{
	uint32_t len;
	const char *c = component(w, i, &len);
	char buf[64];
	if (!c || len == 0 || len >= sizeof buf || c[0] == ' ')
		return 1;
	memcpy(buf, c, len);
	buf[len] = '\0';
	char *end;
	double f = strtod(buf, &end);
	return *end || f < 1 ? 1 : f;
}

static tph_idx add_node(hdrf *h, tph_idx parent, tph_idx job, double weight)
{
	tph_idx n = h->nn++;
	h->parent[n] = parent;
	h->first[n] = h->last[n] = h->next[n] = TPH_NOIDX;
	h->job[n] = job;
	h->weight[n] = weight;
	if (parent != TPH_NOIDX) {
		if (h->last[parent] == TPH_NOIDX)
			h->first[parent] = n;
		else
			h->next[h->last[parent]] = n;
		h->last[parent] = n;
	}
	return n;
}

static tph_idx find_child(const hdrf *h, tph_idx p, const char *name, uint32_t len)
{
	for (tph_idx c = h->first[p]; c != TPH_NOIDX; c = h->next[c])
		if (h->job[c] == TPH_NOIDX && h->name_len[c] == len &&
		    !memcmp(h->name[c], name, len))
			return c;
	return TPH_NOIDX;
}

/* buildHierarchy: the path of job j's queue, then its leaf. */
static tph_idx insert_job(const tph_session *s, hdrf *h, tph_idx j)
{
	tph_idx q = tph_view_of(s)->jobs->queue[j], node = 0;
	const char *path = annotation(s, q, "volcano.sh/hierarchy");
	const char *weights = annotation(s, q, "volcano.sh/hierarchy-weights");
	uint32_t len, n = components(path);
	for (uint32_t i = 1; i < n; i++) {
		const char *c = component(path, i, &len);
		tph_idx child = find_child(h, node, c, len);
		if (child == TPH_NOIDX) {
			child = add_node(h, node, TPH_NOIDX, parse_weight(weights, i));
			h->name[child] = c;
			h->name_len[child] = len;
		}
		node = child;
	}
	return add_node(h, node, j, 1);
}

static void job_request(const tph_session *s, const hdrf *h, tph_idx j, double *out)
{
	int64_t sum[TPH_RES_MAX] = {0};
	for (uint32_t k = tph_view_of(s)->jobs->task_off[j];
	     k < tph_view_of(s)->jobs->task_off[j + 1]; k++)
		vr_add_req(h->v, s, tph_view_of(s)->jobs->task_idx[k], sum, 1);
	for (uint32_t d = 0; d < h->v->n; d++)
		out[d] = vr_vol(h->v, d, sum[d]);
}

/* calculateShare: the largest allocated/total over the total's resource names. */
static double node_share(const hdrf *h, const double *alloc)
{
	double res = 0;
	for (uint32_t d = 0; d < h->v->n; d++) {
		if (!vr_has(h->total_names, d))
			continue;
		double sh = alloc[d] / h->total[d];
		if (sh > res)
			res = sh;
	}
	return res;
}

/* resourceSaturated over the leaf's allocated resource names. */
static bool saturated(const hdrf *h, const double *alloc, const double *req, tph_dimmask demand)
{
	for (uint32_t d = 0; d < h->v->n; d++) {
		if (!vr_has(h->v->vis, d) || alloc[d] < 0.1)
			continue;
		if (alloc[d] != 0 && req[d] != 0 && alloc[d] >= req[d])
			return true;
		if (!vr_has(demand, d) && req[d] != 0)
			return true;
	}
	return false;
}

/* An internal node from its children: the unsaturated non-empty ones scaled to the smallest
 * dominant share among them, the saturated ones as they are. */
static void recompute(const hdrf *h, hdrf_ws *ws, tph_idx node)
{
	uint32_t nd = h->v->n;
	double mdr = 1, *a = ws->alloc + (size_t)node * nd;
	bool sat = true;
	for (tph_idx c = h->first[node]; c != TPH_NOIDX; c = h->next[c])
		if (ws->share[c] != 0 && !ws->sat[c] && ws->share[c] < mdr)
			mdr = ws->share[c];
	memset(a, 0, nd * sizeof *a);
	for (tph_idx c = h->first[node]; c != TPH_NOIDX; c = h->next[c]) {
		sat = sat && ws->sat[c];
		if (ws->share[c] == 0)
			continue;
		const double *ca = ws->alloc + (size_t)c * nd;
		double k = mdr / ws->share[c];
		for (uint32_t d = 0; d < nd; d++)
			a[d] += ws->sat[c] ? ca[d] : ca[d] * k;
	}
	ws->share[node] = node_share(h, a);
	ws->sat[node] = sat;
}

static void eval_full(const hdrf *h, hdrf_ws *ws, tph_idx node, tph_dimmask demand)
{
	if (h->job[node] != TPH_NOIDX) {
		size_t o = (size_t)node * h->v->n;
		ws->sat[node] = saturated(h, ws->alloc + o, h->req + o, demand);
		return;
	}
	for (tph_idx c = h->first[node]; c != TPH_NOIDX; c = h->next[c])
		eval_full(h, ws, c, demand);
	recompute(h, ws, node);
}

static tph_dimmask demanding(const hdrf *h, const int64_t *total_alloc)
{
	tph_dimmask m = 0;
	for (uint32_t d = 0; d < h->v->n; d++)
		if (vr_has(h->total_names, d) && total_alloc[d] < h->total_exact[d])
			m |= (tph_dimmask)1 << d;
	return m;
}

void hdrf_update(const hdrf *h, hdrf_ws *ws, tph_dimmask *demand, tph_idx j, const int64_t *alloc,
                 double share, const int64_t *total_alloc)
{
	tph_idx leaf = h->leaf[j];
	size_t o = (size_t)leaf * h->v->n;
	for (uint32_t d = 0; d < h->v->n; d++)
		ws->alloc[o + d] = vr_vol(h->v, d, alloc[d]);
	ws->share[leaf] = share;
	tph_dimmask dm = demanding(h, total_alloc);
	if (dm != *demand) {
		*demand = dm;
		eval_full(h, ws, 0, dm);
		return;
	}
	ws->sat[leaf] = saturated(h, ws->alloc + o, h->req + o, dm);
	for (tph_idx p = h->parent[leaf]; p != TPH_NOIDX; p = h->parent[p])
		recompute(h, ws, p);
}

static int alloc_tree(tph_session *s, hdrf *h, uint32_t cap)
{
	size_t nd = h->v->n;
	h->parent = TPH_SESSION_NEW(s, tph_idx, cap);
	h->first = TPH_SESSION_NEW(s, tph_idx, cap);
	h->last = TPH_SESSION_NEW(s, tph_idx, cap);
	h->next = TPH_SESSION_NEW(s, tph_idx, cap);
	h->job = TPH_SESSION_NEW(s, tph_idx, cap);
	h->name = TPH_SESSION_NEW(s, const char *, cap);
	h->name_len = TPH_SESSION_NEW(s, uint32_t, cap);
	h->weight = TPH_SESSION_NEW(s, double, cap);
	h->req = TPH_SESSION_NEW(s, double, cap *nd);
	h->live.alloc = TPH_SESSION_NEW(s, double, cap *nd);
	h->live.share = TPH_SESSION_NEW(s, double, cap);
	h->live.sat = TPH_SESSION_NEW(s, uint8_t, cap);
	h->leaf = TPH_SESSION_NEW(s, tph_idx, tph_view_of(s)->jobs->n + 1);
	h->qoff = TPH_SESSION_NEW(s, uint32_t, tph_view_of(s)->queues->n + 1);
	bool ok = h->parent && h->first && h->last && h->next && h->job && h->name && h->name_len &&
	          h->weight && h->req && h->live.alloc && h->live.share && h->live.sat && h->leaf &&
	          h->qoff;
	return ok ? TPH_OK : TPH_ENOMEM;
}

/* Each queue's path as nodes (TPH_NOIDX where no job built that node). */
static int queue_paths(tph_session *s, hdrf *h)
{
	uint32_t nq = tph_view_of(s)->queues->n, total = 0;
	for (tph_idx q = 0; q < nq; q++) {
		h->qoff[q] = total;
		total += components(annotation(s, q, "volcano.sh/hierarchy"));
	}
	h->qoff[nq] = total;
	h->qpath = TPH_SESSION_NEW(s, tph_idx, total + 1);
	if (!h->qpath)
		return TPH_ENOMEM;
	for (tph_idx q = 0; q < nq; q++) {
		const char *path = annotation(s, q, "volcano.sh/hierarchy");
		tph_idx node = 0, *out = h->qpath + h->qoff[q];
		out[0] = 0;
		for (uint32_t i = 1; i < h->qoff[q + 1] - h->qoff[q]; i++) {
			uint32_t len;
			const char *c = component(path, i, &len);
			node = node == TPH_NOIDX ? TPH_NOIDX : find_child(h, node, c, len);
			out[i] = node;
		}
	}
	return TPH_OK;
}

int hdrf_build(tph_session *s, hdrf *h, const vr_dims *v, const int64_t *total,
               const int64_t *alloc, const double *share, const int64_t *total_alloc)
{
	uint32_t cap = 1 + tph_view_of(s)->jobs->n;
	for (tph_idx j = 0; j < tph_view_of(s)->jobs->n; j++)
		cap += components(
		    annotation(s, tph_view_of(s)->jobs->queue[j], "volcano.sh/hierarchy"));
	h->v = v;
	if (alloc_tree(s, h, cap))
		return TPH_ENOMEM;
	for (uint32_t d = 0; d < v->n; d++) {
		h->total_exact[d] = total[d];
		h->total[d] = vr_vol(v, d, total[d]);
	}
	h->total_names = vr_names(v, total);
	add_node(h, TPH_NOIDX, TPH_NOIDX, 1);
	for (tph_idx j = 0; j < tph_view_of(s)->jobs->n; j++) {
		tph_idx leaf = insert_job(s, h, j);
		size_t o = (size_t)leaf * v->n;
		h->leaf[j] = leaf;
		job_request(s, h, j, h->req + o);
		for (uint32_t d = 0; d < v->n; d++)
			h->live.alloc[o + d] = vr_vol(v, d, alloc[(size_t)j * v->n + d]);
		h->live.share[leaf] = share[j];
	}
	h->live_demand = demanding(h, total_alloc);
	eval_full(h, &h->live, 0, h->live_demand);
	return queue_paths(s, h);
}

double hdrf_compare(const hdrf *h, const hdrf_ws *ws, tph_idx qa, tph_idx qb)
{
	uint32_t la = h->qoff[qa + 1] - h->qoff[qa], lb = h->qoff[qb + 1] - h->qoff[qb];
	uint32_t depth = la < lb ? la : lb;
	const tph_idx *pa = h->qpath + h->qoff[qa], *pb = h->qpath + h->qoff[qb];
	for (uint32_t i = 0; i < depth; i++) {
		tph_idx l = pa[i], r = pb[i];
		if (l == TPH_NOIDX || r == TPH_NOIDX)
			return 0;
		if (!ws->sat[l] && ws->sat[r])
			return -1;
		if (ws->sat[l] && !ws->sat[r])
			return 1;
		double ls = ws->share[l] / h->weight[l], rs = ws->share[r] / h->weight[r];
		if (ls != rs)
			return ls - rs;
	}
	return 0;
}

size_t hdrf_ws_bytes(const hdrf *h)
{
	return (size_t)h->nn * (h->v->n + 1) * sizeof(double) + h->nn;
}

void hdrf_ws_clone(const hdrf *h, hdrf_ws *ws, void *buf)
{
	size_t rows = (size_t)h->nn * h->v->n;
	ws->alloc = buf;
	ws->share = ws->alloc + rows;
	ws->sat = (uint8_t *)(ws->share + h->nn);
	memcpy(ws->alloc, h->live.alloc, rows * sizeof(double));
	memcpy(ws->share, h->live.share, h->nn * sizeof(double));
	memcpy(ws->sat, h->live.sat, h->nn);
}
