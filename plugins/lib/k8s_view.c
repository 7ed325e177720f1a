/* The Kubernetes NodeInfo view (see k8s_view.h): built once per session from the tasks on
 * ready nodes, shared by the plugins that read it, kept current by predicates' event handlers. */
#include "k8s_view.h"

#include <stdlib.h>
#include <string.h>

#include "tephra/columns.h"
#include "tephra/alloc.h"

_Static_assert(sizeof(tph_k8s_line) == 64, "a node's line is one cache line");

/* ---- keys the session's specs use ---- */

typedef struct sidset {
	tph_sid *v;
	uint32_t n, cap;
} sidset;

static int sidset_add(sidset *s, tph_sid x)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->v[i] == x)
			return TPH_OK;
	if (tph_grow(&s->v, &s->cap, s->n + 1, sizeof *s->v))
		return TPH_ENOMEM;
	s->v[s->n++] = x;
	return TPH_OK;
}

static int add_pod_terms(sidset *topo, const tph_podaff_row *t, uint32_t n)
{
	int rc = TPH_OK;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = sidset_add(topo, t[i].topology_key);
	return rc;
}

static int add_num_keys(sidset *nums, const tph_term_row *t)
{
	int rc = TPH_OK;
	for (uint32_t i = 0; i < t->n && !rc; i++)
		if (t->exprs[i].op == TPH_SEL_GT || t->exprs[i].op == TPH_SEL_LT)
			rc = sidset_add(nums, t->exprs[i].key);
	return rc;
}

static int spec_keys(const tph_pod_spec *sp, sidset *topo, sidset *nums)
{
	int rc = add_pod_terms(topo, sp->pod_required, sp->n_pod_required);
	if (!rc)
		rc = add_pod_terms(topo, sp->pod_preferred, sp->n_pod_preferred);
	if (!rc)
		rc = add_pod_terms(topo, sp->anti_required, sp->n_anti_required);
	if (!rc)
		rc = add_pod_terms(topo, sp->anti_preferred, sp->n_anti_preferred);
	for (uint32_t i = 0; i < sp->n_spread && !rc; i++)
		rc = sidset_add(topo, sp->spread[i].topology_key);
	for (uint32_t i = 0; i < sp->n_node_required && !rc; i++)
		rc = add_num_keys(nums, &sp->node_required[i]);
	for (uint32_t i = 0; i < sp->n_node_preferred && !rc; i++)
		rc = add_num_keys(nums, &sp->node_preferred[i].term);
	return rc;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

static void spec_maxima(tph_k8s_view *v, const tph_pod_spec *sp)
{
	uint32_t soft = 0;
	for (uint32_t i = 0; i < sp->n_spread; i++)
		soft += !sp->spread[i].do_not_schedule;
	v->max_pod_required = max_u32(v->max_pod_required, sp->n_pod_required);
	v->max_anti_required = max_u32(v->max_anti_required, sp->n_anti_required);
	v->max_spread = max_u32(v->max_spread, sp->n_spread);
	v->max_soft_spread = max_u32(v->max_soft_spread, soft);
}

/* Every distinct spec once (specs are interned: equal ids, equal constraints). */
static int collect_keys(tph_k8s_view *v, const tph_session *s, sidset *topo, sidset *nums)
{
	uint32_t ns = tph_view_of(s)->n_specs;
	uint8_t *seen = tph_calloc(ns + 1, 1);
	if (!seen)
		return TPH_ENOMEM;
	int rc = TPH_OK;
	const tph_pod_spec **spec = tph_view_of(s)->tasks->spec, *last = NULL;
	uint32_t nt = tph_view_of(s)->tasks->n;
	for (uint32_t t = 0; t < nt && !rc; t++) {
		const tph_pod_spec *sp = spec[t];
		if (sp == last) /* a job's tasks share a spec: skip runs cheaply */
			continue;
		last = sp;
		if (sp->id < ns && seen[sp->id])
			continue;
		if (sp->id < ns)
			seen[sp->id] = 1;
		spec_maxima(v, sp);
		rc = spec_keys(sp, topo, nums);
	}
	tph_free(seen);
	return rc;
}

/* ---- topology domains ---- */

static int build_topo(tph_session *s, tph_k8s_topo *t, const sidset *keys)
{
	uint32_t n = tph_view_of(s)->nodes->n;
	t->n_keys = keys->n;
	t->keys = TPH_SESSION_NEW(s, tph_sid, keys->n + 1);
	t->dom = TPH_SESSION_NEW(s, uint32_t, (size_t)keys->n * n + 1);
	t->n_dom = TPH_SESSION_NEW(s, uint32_t, keys->n + 1);
	t->off = TPH_SESSION_NEW(s, uint32_t, keys->n + 1);
	if (!t->keys || !t->dom || !t->n_dom || !t->off)
		return TPH_ENOMEM;
	t->total = 0;
	for (uint32_t k = 0; k < keys->n; k++) {
		t->keys[k] = keys->v[k];
		int rc = tph_k8s_domains(tph_view_of(s)->nodes->meta, n, keys->v[k],
		                         t->dom + (size_t)k * n, &t->n_dom[k]);
		if (rc < 0)
			return rc;
		t->off[k] = t->total;
		t->total += t->n_dom[k];
	}
	return TPH_OK;
}

uint32_t tph_k8s_topo_key(const tph_k8s_topo *t, tph_sid key)
{
	for (uint32_t k = 0; k < t->n_keys; k++)
		if (t->keys[k] == key)
			return k;
	return TPH_NOIDX;
}

/* strconv.ParseInt(label, 10, 64) of each node's value, once. */
static int build_nums(tph_session *s, tph_k8s_nums *m, const sidset *keys)
{
	uint32_t n = tph_view_of(s)->nodes->n;
	m->n_keys = keys->n;
	m->n_nodes = n;
	m->keys = TPH_SESSION_NEW(s, tph_sid, keys->n + 1);
	m->val = TPH_SESSION_NEW(s, int64_t, (size_t)keys->n * n + 1);
	m->ok = TPH_SESSION_NEW(s, uint8_t, (size_t)keys->n * n + 1);
	if (!m->keys || !m->val || !m->ok)
		return TPH_ENOMEM;
	for (uint32_t k = 0; k < keys->n; k++) {
		m->keys[k] = keys->v[k];
		for (uint32_t i = 0; i < n; i++) {
			tph_sid v =
			    tph_labels_get(tph_view_of(s)->nodes->meta[i]->labels, keys->v[k]);
			size_t at = (size_t)k * n + i;
			m->ok[at] = v != TPH_SID_NONE &&
			            tph_parse_int(tph_session_str(s, v), 64, &m->val[at]);
		}
	}
	return TPH_OK;
}

/* ---- pods ---- */

/* NodeInfo.update: Requested from the pod's request, NonZeroRequested from its non-zero one
 * (calculateResource), the GPU count for BalancedAllocation. */
static inline void line_add(tph_k8s_line *l, const int64_t *req, const int64_t *nz, uint32_t gpu,
                            int sign)
{
	int64_t d[TPH_KV_COUNT] = {req[TPH_RES_CPU], req[TPH_RES_MEMORY], nz[0], nz[1],
	                           gpu == TPH_NOIDX ? 0 : tph_k8s_value(req[gpu])};
	for (uint32_t k = 0; k < TPH_KV_COUNT; k++)
		l->sum[k] += sign * d[k];
}

static inline void account(tph_k8s_view *v, const tph_session *s, tph_idx t, tph_idx node, int sign)
{
	const int64_t *req = tph_view_of(s)->tasks->req + (size_t)t * tph_view_of(s)->ndim;
	line_add(&v->line[node], req, tph_k8s_nonzero(s, t), v->gpu_dim, sign);
	v->npods[node] += (uint32_t)sign;
}

void tph_k8s_view_add(tph_k8s_view *v, const tph_session *s, tph_idx task, tph_idx node)
{
	if (v->at[task] != TPH_NOIDX)
		tph_k8s_view_remove(v, s, task);
	v->at[task] = node;
	v->prev[task] = TPH_NOIDX;
	v->next[task] = v->head[node];
	if (v->head[node] != TPH_NOIDX)
		v->prev[v->head[node]] = task;
	v->head[node] = task;
	account(v, s, task, node, +1);
	v->gen++;
}

tph_idx tph_k8s_view_remove(tph_k8s_view *v, const tph_session *s, tph_idx task)
{
	tph_idx node = v->at[task];
	if (node == TPH_NOIDX)
		return TPH_NOIDX;
	if (v->prev[task] != TPH_NOIDX)
		v->next[v->prev[task]] = v->next[task];
	else
		v->head[node] = v->next[task];
	if (v->next[task] != TPH_NOIDX)
		v->prev[v->next[task]] = v->prev[task];
	v->at[task] = v->next[task] = v->prev[task] = TPH_NOIDX;
	account(v, s, task, node, -1);
	v->gen++;
	return node;
}

/* A spec's open-time affinity bits: bit 0 any pod (anti-)affinity, bit 1 required anti. */
static unsigned aff_bits(const tph_pod_spec *sp)
{
	return (unsigned)tph_k8s_has_pod_affinity(sp) | (unsigned)(sp->n_anti_required > 0) << 1;
}

/* The tasks a session node holds at open (what tph_k8s_view_add does for each, with nothing
 * held yet); then the open-time affinity node lists. One pass over ~all tasks on large
 * clusters: the columns are locals (the line stores could alias the view's fields), gen is
 * added once, and a job's run of tasks sharing a spec reads its affinity once. */
static void add_initial(tph_k8s_view *v, const tph_session *s)
{
	const tph_task_store *ts = tph_view_of(s)->tasks;
	const tph_idx *node = ts->node;
	const uint8_t *status = ts->status, *flags = tph_view_of(s)->nodes->flags;
	const int64_t *req = ts->req, *nz = ts->nonzero;
	size_t ndim = tph_view_of(s)->ndim;
	tph_idx *at = v->at, *next = v->next, *prev = v->prev, *head = v->head;
	uint32_t *npods = v->npods, gpu = v->gpu_dim;
	tph_k8s_line *line = v->line;
	uint8_t *open_aff = v->open_aff, *open_anti = v->open_anti;
	const tph_pod_spec *last = NULL;
	unsigned bits = 0;
	uint64_t held = 0;
	for (tph_idx t = 0; t < ts->n; t++) {
		tph_idx n = node[t];
		at[t] = TPH_NOIDX;
		if (n == TPH_NOIDX || status[t] == TPH_TS_SUCCEEDED || status[t] == TPH_TS_FAILED ||
		    !(flags[n] & TPH_NODE_READY))
			continue;
		at[t] = n;
		prev[t] = TPH_NOIDX;
		next[t] = head[n];
		if (head[n] != TPH_NOIDX)
			prev[head[n]] = t;
		head[n] = t;
		line_add(&line[n], req + (size_t)t * ndim, nz + (size_t)t * 2, gpu, +1);
		npods[n]++;
		held++;
		if (ts->spec[t] != last) {
			last = ts->spec[t];
			bits = aff_bits(last);
		}
		open_aff[n] |= (uint8_t)(bits & 1);
		open_anti[n] |= (uint8_t)(bits >> 1);
	}
	v->gen += held; /* counted as each add would */
	for (tph_idx n = 0; n < v->n_nodes; n++) {
		if (open_aff[n])
			v->aff_nodes[v->n_aff_nodes++] = n;
		if (open_anti[n])
			v->anti_nodes[v->n_anti_nodes++] = n;
	}
}

static int alloc_cols(tph_k8s_view *v, tph_session *s)
{
	uint32_t n = tph_view_of(s)->nodes->n, nt = tph_view_of(s)->tasks->n;
	v->n_nodes = n;
	v->n_tasks = nt;
	v->at = TPH_SESSION_NEW(s, tph_idx, nt + 1);
	v->next = TPH_SESSION_NEW(s, tph_idx, nt + 1);
	v->prev = TPH_SESSION_NEW(s, tph_idx, nt + 1);
	v->head = TPH_SESSION_NEW(s, tph_idx, n + 1);
	v->npods = TPH_SESSION_NEW(s, uint32_t, n + 1);
	v->line = TPH_SESSION_NEW(s, tph_k8s_line, n + 1);
	v->open_aff = TPH_SESSION_NEW(s, uint8_t, n + 1);
	v->open_anti = TPH_SESSION_NEW(s, uint8_t, n + 1);
	v->aff_nodes = TPH_SESSION_NEW(s, tph_idx, n + 1);
	v->anti_nodes = TPH_SESSION_NEW(s, tph_idx, n + 1);
	if (!v->at || !v->next || !v->prev || !v->head || !v->npods || !v->line || !v->open_aff ||
	    !v->open_anti || !v->aff_nodes || !v->anti_nodes)
		return TPH_ENOMEM;
	v->at[nt] = TPH_NOIDX;
	memset(v->head, 0xff, (n + 1) * sizeof *v->head);
	return TPH_OK;
}

/* Allocatable is constant in a session: copied once beside the sums it is scored against. */
static void set_caps(tph_k8s_view *v, const tph_session *s)
{
	const int64_t *alloc = tph_view_of(s)->nodes->alloc;
	size_t stride = tph_view_of(s)->nodes->stride;
	for (tph_idx n = 0; n < v->n_nodes; n++) {
		tph_k8s_line *l = &v->line[n];
		l->cap_cpu = alloc[TPH_RES_CPU * stride + n];
		l->cap_mem = alloc[TPH_RES_MEMORY * stride + n];
		l->cap_gpu = v->gpu_dim == TPH_NOIDX ? 0 : alloc[(size_t)v->gpu_dim * stride + n];
	}
}

static uint32_t find_dim(const tph_session *s, const char *name)
{
	return tph_session_dim_find(s, name, strlen(name));
}

int tph_k8s_view_init(tph_k8s_view *v, tph_session *s)
{
	memset(v, 0, sizeof *v);
	sidset topo = {0}, nums = {0};
	int rc = collect_keys(v, s, &topo, &nums);
	if (!rc)
		rc = build_topo(s, &v->topo, &topo);
	if (!rc)
		rc = build_nums(s, &v->nums, &nums);
	tph_free(topo.v);
	tph_free(nums.v);
	if (!rc)
		rc = alloc_cols(v, s);
	if (rc)
		return rc;
	v->gpu_dim = find_dim(s, "nvidia.com/gpu");
	v->hostname = tph_session_sid(s, "kubernetes.io/hostname", 22);
	set_caps(v, s);
	add_initial(v, s);
	return TPH_OK;
}

static int share_init(void *obj, tph_session *s)
{
	return tph_k8s_view_init(obj, s);
}

int tph_k8s_view_share(tph_session *s, tph_k8s_view **out)
{
	void *v;
	int rc = tph_session_shared(s, "k8s.nodeinfo", sizeof **out, share_init, &v);
	*out = rc ? NULL : v;
	return rc;
}
