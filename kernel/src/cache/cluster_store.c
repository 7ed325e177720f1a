/* Slot stores of the cluster cache: columns per kind, key maps indexed by string id, tombstones
 * and in-place compaction, and the resource dimension table with its rare row relayout. */
#include "cache/cluster_int.h"

#include "base/diag.h"
#include "base/mem.h"
#include "base/msg_text.h"

#include <stdio.h>
#include <string.h>

size_t tph_kind_col_size(const tph_cluster *c, const tph_kind *k, uint32_t i)
{
	return k->defs[i].rows ? (size_t)k->defs[i].elem * c->dims.n : k->defs[i].elem;
}

void tph_kind_init(tph_kind *k, const char *what, const tph_coldef *defs, uint32_t ncols)
{
	memset(k, 0, sizeof *k);
	k->what = what;
	k->defs = defs;
	k->ncols = ncols;
}

void tph_kind_free(tph_kind *k)
{
	if (k->share) { /* the set frees its columns with its last holder */
		for (uint32_t i = 0; i < k->ncols; i++)
			if (k->share->col[i])
				k->col[i] = NULL;
		tph_colshare_drop(k->share);
	}
	for (uint32_t i = 0; i < k->ncols; i++)
		tph_free(k->col[i]);
	tph_free(k->map);
	memset(k, 0, sizeof *k);
}

void *tph_kind_at(const tph_cluster *c, const tph_kind *k, uint32_t col, uint32_t slot)
{
	return (char *)k->col[col] + (size_t)slot * tph_kind_col_size(c, k, col);
}

int tph_cl_grow_map(uint32_t **map, uint32_t *cap, tph_sid key)
{
	if (key < *cap)
		return TPH_OK;
	uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 256;
	while (ncap <= key)
		ncap *= 2;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	uint32_t *m = tph_realloc(*map, (size_t)ncap * sizeof *m);
	if (!m)
		return TPH_ENOMEM;
	memset(m + *cap, 0, (size_t)(ncap - *cap) * sizeof *m);
	*map = m;
	*cap = (uint32_t)ncap;
	return TPH_OK;
}

/* Columns that fail to grow keep their old size; `cap` moves only when all have grown. */
static int grow_slots(tph_cluster *c, tph_kind *k)
{
	uint64_t ncap = k->cap ? (uint64_t)k->cap * 2 : 16;
	if (ncap >= TPH_NOIDX || tph_kind_detach(c, k, (uint32_t)ncap)) /* realloc frees */
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < k->ncols; i++) {
		size_t sz = tph_kind_col_size(c, k, i);
		void *p = tph_realloc(k->col[i], (size_t)ncap * sz);
		if (!p)
			return TPH_ENOMEM;
		k->col[i] = p;
	}
	k->cap = (uint32_t)ncap;
	return TPH_OK;
}

int tph_kind_reserve(tph_cluster *c, tph_kind *k, tph_sid key, uint32_t *slot, bool *fresh)
{
	uint32_t s = tph_kind_find(k, key);
	if (s != TPH_NOIDX) {
		if (tph_kind_shared_at(k, s) && tph_kind_detach(c, k, k->cap))
			return TPH_ENOMEM; /* the put overwrites the slot */
		*slot = s;
		*fresh = false;
		return TPH_OK;
	}
	if (tph_cl_grow_map(&k->map, &k->map_cap, key) != TPH_OK)
		return TPH_ENOMEM;
	if (k->n == k->cap) {
		/* Reclaim tombstones before growing, so churn does not grow the store forever. */
		if (k->dead > 0 && k->dead >= k->n / 4) {
			if (tph_kind_compact(c, k) != TPH_OK)
				return TPH_ENOMEM;
		} else if (grow_slots(c, k) != TPH_OK) {
			return TPH_ENOMEM;
		}
	}
	/* After trailing removals the next slot may still be one a snapshot reads. */
	if (tph_kind_shared_at(k, k->n) && tph_kind_detach(c, k, k->cap))
		return TPH_ENOMEM;
	*slot = k->n;
	*fresh = true;
	return TPH_OK;
}

int tph_cl_reserve(tph_cluster *c, tph_kind *k, tph_sid key, const tph_dimplan *plan,
                   uint32_t *slot, bool *fresh, tph_diag *d, const char *obj)
{
	if (tph_kind_reserve(c, k, key, slot, fresh) || (plan && tph_dims_commit(c, plan)))
		return tph_cl_oom(d, obj);
	return TPH_OK;
}

void tph_kind_commit(tph_kind *k, tph_sid key, uint32_t slot, bool fresh)
{
	if (!fresh)
		return;
	KCOL(k, K_LIVE, uint8_t)[slot] = 1;
	KCOL(k, K_KEY, tph_sid)[slot] = key;
	k->map[key] = slot + 1;
	k->n++;
}

int tph_kind_remove(tph_kind *k, tph_sid key)
{
	uint32_t s = tph_kind_find(k, key);
	if (s == TPH_NOIDX)
		return TPH_ENOENT;
	KCOL(k, K_LIVE, uint8_t)[s] = 0;
	k->map[key] = 0;
	k->dead++;
	const uint8_t *live = KCOL(k, K_LIVE, uint8_t);
	while (k->n > 0 && !live[k->n - 1]) { /* trailing tombstones need no compaction */
		k->n--;
		k->dead--;
	}
	return TPH_OK;
}

static void move_run(tph_cluster *c, tph_kind *k, uint32_t from, uint32_t to, uint32_t len)
{
	for (uint32_t i = 0; i < k->ncols; i++) {
		size_t sz = tph_kind_col_size(c, k, i);
		char *base = k->col[i];
		memmove(base + (size_t)to * sz, base + (size_t)from * sz, (size_t)len * sz);
	}
	const tph_sid *key = KCOL(k, K_KEY, tph_sid);
	for (uint32_t j = to; j < to + len; j++)
		k->map[key[j]] = j + 1;
}

int tph_kind_compact(tph_cluster *c, tph_kind *k)
{
	if (k->dead && tph_kind_detach(c, k, k->cap)) /* runs move down over shared slots */
		return TPH_ENOMEM;
	const uint8_t *live = KCOL(k, K_LIVE, uint8_t);
	uint32_t to = 0, i = 0;
	while (i < k->n) {
		if (!live[i]) {
			i++;
			continue;
		}
		uint32_t e = i;
		while (e < k->n && live[e])
			e++;
		if (i != to)
			move_run(c, k, i, to, e - i);
		to += e - i;
		i = e;
	}
	k->n = to;
	k->dead = 0;
	return TPH_OK;
}

/* ---- resource dimensions ---- */

static uint32_t dim_index(const tph_cluster *c, const tph_dimplan *plan, tph_sid name)
{
	for (uint32_t i = 0; i < c->dims.n; i++)
		if (c->dims.name[i] == name)
			return i;
	for (uint32_t i = 0; i < plan->n; i++)
		if (plan->name[i] == name)
			return c->dims.n + i;
	return TPH_NOIDX;
}

static int check_item(const tph_res_list *l, uint32_t i, tph_diag *d, const char *obj,
                      const char *field)
{
	const tph_res_item *it = &l->items[i];
	if (!it->name || !it->name[0])
		return tph_diag_set(d, TPH_EINVAL, "%s: %s: empty resource name", obj, field);
	if (it->value < 0)
		return tph_diag_set(d, TPH_EINVAL, "%s: %s: %s is negative", obj, field, it->name);
	if (it->value > TPH_RES_VALUE_MAX)
		return tph_diag_set(d, TPH_ERANGE, "%s: %s: %s is above 2^53 units", obj, field,
		                    it->name);
	for (uint32_t j = 0; j < i; j++)
		if (!strcmp(l->items[j].name, it->name))
			return tph_diag_set(d, TPH_EINVAL, "%s: %s: %s given twice", obj, field,
			                    it->name);
	return TPH_OK;
}

/* TPH_RES_MAX (resource.h) bounds the dimensions of a whole cache, not of one list. */
static int too_many(tph_diag *d, const char *obj, const char *field, const char *name)
{
	return tph_diag_set(d, TPH_ERANGE,
	                    "%s: %s: %s%s%sa cluster holds at most %d resource names (cpu, memory, "
	                    "pods, ephemeral-storage and %d more)",
	                    obj, field, name ? "\"" : "", name ? name : "",
	                    name ? "\" would be one too many: " : "", TPH_RES_MAX,
	                    TPH_RES_MAX - TPH_RES_FIXED);
}

int tph_res_prepare(tph_cluster *c, const tph_res_list *l, tph_dimplan *plan, tph_rlist *out,
                    tph_diag *d, const char *obj, const char *field)
{
	out->n = 0;
	if (l->n && !l->items)
		return tph_diag_set(d, TPH_EINVAL, "%s: %s: no items", obj, field);
	if (l->n > TPH_RES_MAX) /* names are distinct, so they cannot all fit */
		return too_many(d, obj, field, NULL);
	for (uint32_t i = 0; i < l->n; i++) {
		int rc = check_item(l, i, d, obj, field);
		if (rc)
			return rc;
		int err = TPH_OK;
		tph_sid sid = tph_cl_intern(c, l->items[i].name, &err);
		if (err)
			return tph_cl_oom(d, obj);
		uint32_t dim = dim_index(c, plan, sid);
		if (dim == TPH_NOIDX) {
			if (c->dims.n + plan->n >= TPH_RES_MAX)
				return too_many(d, obj, field, l->items[i].name);
			dim = c->dims.n + plan->n;
			plan->name[plan->n++] = sid;
		}
		out->dim[i] = (uint8_t)dim;
		out->val[i] = l->items[i].value;
	}
	out->n = l->n;
	return TPH_OK;
}

/* New row columns for `nd` dimensions, copied from the old ones; NULL entries on failure. */
static int relayout_prepare(tph_cluster *c, tph_kind **kinds, uint32_t nk, uint32_t nd,
                            int64_t **fresh)
{
	uint32_t f = 0, od = c->dims.n;
	for (uint32_t ki = 0; ki < nk; ki++) {
		tph_kind *k = kinds[ki];
		for (uint32_t i = 0; i < k->ncols; i++) {
			if (!k->defs[i].rows)
				continue;
			int64_t *nw = tph_calloc((size_t)k->cap * nd + 1, sizeof *nw);
			if (!nw)
				return TPH_ENOMEM;
			const int64_t *old = k->col[i];
			for (uint32_t s = 0; s < k->n; s++)
				memcpy(nw + (size_t)s * nd, old + (size_t)s * od, od * sizeof *nw);
			fresh[f++] = nw;
		}
	}
	return TPH_OK;
}

int tph_dims_commit(tph_cluster *c, const tph_dimplan *plan)
{
	if (!plan->n)
		return TPH_OK;
	tph_kind *kinds[] = {&c->nodes, &c->pods, &c->pgs, &c->queues, &c->quotas};
	uint32_t nk = sizeof kinds / sizeof kinds[0], nd = c->dims.n + plan->n, f = 0;
	int64_t *fresh[TPH_KIND_MAXCOLS] = {0};
	if (tph_kind_detach(c, &c->pods, c->pods.cap)) /* the old rows are freed below */
		return TPH_ENOMEM;
	if (relayout_prepare(c, kinds, nk, nd, fresh) != TPH_OK) {
		for (uint32_t i = 0; i < TPH_KIND_MAXCOLS; i++)
			tph_free(fresh[i]);
		return TPH_ENOMEM;
	}
	for (uint32_t ki = 0; ki < nk; ki++)
		for (uint32_t i = 0; i < kinds[ki]->ncols; i++)
			if (kinds[ki]->defs[i].rows) {
				tph_free(kinds[ki]->col[i]);
				kinds[ki]->col[i] = fresh[f++];
			}
	for (uint32_t i = 0; i < plan->n; i++) {
		const char *s = tph_strtab_str(&c->strs, plan->name[i]);
		c->dims.name[c->dims.n + i] = plan->name[i];
		c->dims.unit[c->dims.n + i] = (uint8_t)tph_res_unit_of(s, strlen(s));
	}
	c->dims.n = nd;
	return TPH_OK;
}

tph_dimmask tph_res_write(const tph_cluster *c, const tph_rlist *r, int64_t *row)
{
	tph_dimmask mask = 0;
	memset(row, 0, c->dims.n * sizeof *row);
	for (uint32_t i = 0; i < r->n; i++) {
		row[r->dim[i]] = r->val[i];
		mask |= (tph_dimmask)1 << r->dim[i];
	}
	return mask;
}

/* ---- strings ---- */

tph_sid tph_cl_intern(tph_cluster *c, const char *s, int *err)
{
	if (!s)
		return TPH_SID_NONE;
	tph_sid id = tph_strtab_intern_cstr(&c->strs, s);
	if (id == TPH_SID_NONE)
		*err = TPH_ENOMEM;
	return id;
}

tph_sid tph_cl_intern2(tph_cluster *c, const char *a, char sep, const char *b, int *err)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la + lb + 1 >= UINT32_MAX ||
	    tph_grow(&c->chars, &c->chars_cap, (uint32_t)(la + lb + 1), 1) != TPH_OK) {
		*err = TPH_ENOMEM;
		return TPH_SID_NONE;
	}
	memcpy(c->chars, a, la);
	c->chars[la] = sep;
	memcpy(c->chars + la + 1, b, lb);
	tph_sid id = tph_strtab_intern(&c->strs, c->chars, la + 1 + lb);
	if (id == TPH_SID_NONE)
		*err = TPH_ENOMEM;
	return id;
}

void tph_cl_prefetch(const tph_cluster *c, const char *s)
{
	if (s)
		tph_strtab_prefetch(&c->strs, s, strlen(s));
}

int tph_cl_reserve_strings(tph_cluster *c, uint32_t more)
{
	return tph_strtab_reserve(&c->strs, more);
}

int tph_cl_oom(tph_diag *d, const char *obj)
{
	return tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", obj);
}

int tph_cl_put_begin(const tph_cluster *c, bool given, uint32_t size, size_t want, const char *type,
                     const char *macro, tph_diag *d)
{
	tph_diag_begin(d);
	if (!c || !given)
		return tph_diag_set(d, TPH_EINVAL, "%s: no cache or no descriptor", type);
	if (size == want)
		return TPH_OK;
	if (size == 0)
		return tph_diag_set(d, TPH_EINVAL, "%s not initialised: start from %s", type,
		                    macro);
	return tph_diag_set(d, TPH_EINVAL,
	                    "%s: size %u, this library's is %zu (built against other headers?)",
	                    type, (unsigned)size, want);
}

/* Every put names its object before it knows whether it will fail: plain copies, no printf. */
static size_t put_str(char *obj, size_t at, size_t cap, const char *s)
{
	char cut[TPH_MSG_NAME_MAX + 4];
	s = tph_msg_name(s, cut);
	size_t n = strlen(s);
	if (n > cap - 1 - at)
		n = cap - 1 - at;
	memcpy(obj + at, s, n);
	return at + n;
}

void tph_cl_obj(char *obj, size_t cap, const char *kind, const char *ns, const char *name)
{
	size_t at = put_str(obj, 0, cap, kind);
	at = put_str(obj, at, cap, " ");
	if (ns) {
		at = put_str(obj, at, cap, ns);
		at = put_str(obj, at, cap, "/");
	}
	obj[put_str(obj, at, cap, name)] = '\0';
}
