/* Interning of cold data for the cluster cache: a descriptor part is validated and written as a
 * canonical word blob (label sets sorted by key id), hashed and looked up; only a new blob is
 * built into rows in the permanent arena, so equal parts share one pointer. */
#include "cache/cluster_int.h"

#include "base/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writer ---- */

void tph_w_begin(tph_wr *w, tph_cluster *c, uint32_t tag, const char *obj, tph_diag *d)
{
	*w = (tph_wr){c, d, obj, TPH_OK};
	c->nwords = 0;
	tph_w_u32(w, tag);
}

void tph_w_u32(tph_wr *w, uint32_t v)
{
	tph_cluster *c = w->c;
	if (w->err)
		return;
	if (tph_grow(&c->words, &c->words_cap, c->nwords + 1, sizeof *c->words) != TPH_OK) {
		w->err = tph_cl_oom(w->d, w->obj);
		return;
	}
	c->words[c->nwords++] = v;
}

void tph_w_i64(tph_wr *w, int64_t v)
{
	uint64_t u = (uint64_t)v;
	tph_w_u32(w, (uint32_t)u);
	tph_w_u32(w, (uint32_t)(u >> 32));
}

void tph_w_str(tph_wr *w, const char *s)
{
	if (w->err)
		return;
	tph_sid id = tph_cl_intern(w->c, s ? s : "", &w->err);
	if (w->err)
		tph_cl_oom(w->d, w->obj);
	tph_w_u32(w, id);
}

void tph_w_fail(tph_wr *w, const char *field, const char *fmt, ...)
{
	if (w->err)
		return;
	w->err = TPH_EINVAL;
	if (!w->d)
		return;
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	tph_diag_set(w->d, TPH_EINVAL, "%s: %s: %s", w->obj, field, why);
}

static int cmp_key(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

void tph_w_labels(tph_wr *w, tph_kv_list l, const char *field)
{
	if (l.n && !l.items)
		return tph_w_fail(w, field, "no items");
	tph_w_u32(w, l.n);
	uint32_t start = w->c->nwords;
	for (uint32_t i = 0; i < l.n; i++) {
		if (!l.items[i].key || !l.items[i].key[0])
			return tph_w_fail(w, field, "empty key");
		tph_w_str(w, l.items[i].key);
		tph_w_str(w, l.items[i].value);
	}
	tph_w_sort_unique(w, start, l.n, 2, field, "key");
}

void tph_w_sort_unique(tph_wr *w, uint32_t start, uint32_t n, uint32_t width, const char *field,
                       const char *what)
{
	if (w->err)
		return;
	uint32_t *rec = w->c->words + start;
	qsort(rec, n, width * sizeof *rec, cmp_key);
	for (uint32_t i = 1; i < n; i++)
		if (rec[width * i] == rec[width * (i - 1)])
			return tph_w_fail(w, field, "%s \"%s\" given twice", what,
			                  tph_strtab_str(&w->c->strs, rec[width * i]));
}

void tph_w_strs(tph_wr *w, tph_str_list l, const char *field)
{
	if (l.n && !l.items)
		return tph_w_fail(w, field, "no items");
	tph_w_u32(w, l.n);
	for (uint32_t i = 0; i < l.n; i++)
		tph_w_str(w, l.items[i]);
}

static void w_expr(tph_wr *w, const tph_sel_expr *e, const char *field)
{
	if (!e->key || !e->key[0])
		return tph_w_fail(w, field, "empty key");
	if ((unsigned)e->op > TPH_SEL_LT)
		return tph_w_fail(w, field, "key %s: bad operator %d", e->key, (int)e->op);
	if (e->values.n && !e->values.items)
		return tph_w_fail(w, field, "key %s: no values", e->key);
	if (e->op == TPH_SEL_GT || e->op == TPH_SEL_LT) {
		int64_t v;
		const char *s = e->values.n == 1 ? e->values.items[0] : NULL;
		if (e->values.n != 1)
			return tph_w_fail(w, field, "key %s: Gt/Lt take exactly one value", e->key);
		if (!tph_parse_int(s, 64, &v))
			return tph_w_fail(w, field, "key %s: value \"%s\" is not an integer",
			                  e->key, s ? s : "");
	}
	tph_w_str(w, e->key);
	tph_w_u32(w, (uint32_t)e->op);
	tph_w_strs(w, e->values, field);
}

void tph_w_term(tph_wr *w, const tph_sel_term *t, const char *field)
{
	if (t->n && !t->exprs)
		return tph_w_fail(w, field, "no expressions");
	tph_w_u32(w, t->n);
	for (uint32_t i = 0; i < t->n; i++)
		w_expr(w, &t->exprs[i], field);
}

void tph_w_selector(tph_wr *w, const tph_label_selector *s, const char *field)
{
	tph_w_u32(w, s->present);
	tph_w_labels(w, s->match_labels, field);
	tph_w_term(w, &s->match_exprs, field);
}

bool tph_parse_int(const char *s, int bits, int64_t *out)
{
	if (!s || !*s)
		return false;
	bool neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	uint64_t limit = ((uint64_t)1 << (bits - 1)) - (neg ? 0 : 1), v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (limit - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

const char *tph_kv_find(tph_kv_list l, const char *key)
{
	for (uint32_t i = 0; i < l.n; i++)
		if (l.items[i].key && !strcmp(l.items[i].key, key))
			return l.items[i].value ? l.items[i].value : "";
	return NULL;
}

/* ---- reader ---- */

uint32_t tph_r_u32(tph_rd *r)
{
	return *r->p++;
}

int64_t tph_r_i64(tph_rd *r)
{
	uint64_t lo = tph_r_u32(r), hi = tph_r_u32(r);
	return (int64_t)(lo | hi << 32);
}

void *tph_r_new(tph_rd *r, uint32_t n, size_t size)
{
	if (!n || r->err)
		return NULL;
	void *p = tph_arena_calloc(r->a, n, size, 8);
	if (!p)
		r->err = TPH_ENOMEM;
	return p;
}

tph_sid *tph_r_sids(tph_rd *r, uint32_t n)
{
	tph_sid *s = tph_r_new(r, n, sizeof *s);
	if (s)
		memcpy(s, r->p, n * sizeof *s);
	r->p += n;
	return s;
}

tph_labels tph_r_labels(tph_rd *r)
{
	tph_labels l = {NULL, tph_r_u32(r)};
	tph_label *items = tph_r_new(r, l.n, sizeof *items);
	if (items)
		memcpy(items, r->p, l.n * sizeof *items);
	r->p += 2 * l.n;
	l.items = items;
	return l;
}

static void r_expr(tph_rd *r, tph_expr_row *x)
{
	x->key = tph_r_u32(r);
	x->op = (uint8_t)tph_r_u32(r);
	x->n_values = tph_r_u32(r);
	x->values = tph_r_sids(r, x->n_values);
	x->numbers = NULL;
	if ((x->op == TPH_SEL_GT || x->op == TPH_SEL_LT) && x->values) {
		int64_t *num = tph_r_new(r, 1, sizeof *num);
		if (num) /* validated when written */
			tph_parse_int(tph_strtab_str(r->strs, x->values[0]), 64, num);
		x->numbers = num;
	}
}

tph_term_row tph_r_term(tph_rd *r)
{
	tph_term_row t = {NULL, tph_r_u32(r)};
	tph_expr_row *e = tph_r_new(r, t.n, sizeof *e), scratch;
	for (uint32_t i = 0; i < t.n; i++)
		r_expr(r, e ? &e[i] : &scratch);
	t.exprs = e;
	return t;
}

tph_selector_row tph_r_selector(tph_rd *r)
{
	tph_selector_row s;
	s.present = tph_r_u32(r) != 0;
	s.match_labels = tph_r_labels(r);
	s.match_exprs = tph_r_term(r);
	return s;
}

/* ---- the blob table ---- */

int tph_blobs_init(tph_cluster *c)
{
	c->blobs.ents = tph_calloc(1024, sizeof *c->blobs.ents);
	c->blobs.mask = 1023;
	c->blobs.n = 0;
	return c->blobs.ents ? TPH_OK : TPH_ENOMEM;
}

void tph_blobs_free(tph_cluster *c)
{
	tph_free(c->blobs.ents);
	memset(&c->blobs, 0, sizeof c->blobs);
}

static uint32_t blob_probe(const tph_blobtab *t, const uint32_t *w, uint32_t len, uint64_t h)
{
	for (uint32_t i = (uint32_t)h & t->mask;; i = (i + 1) & t->mask) {
		const tph_blob_ent *e = &t->ents[i];
		if (!e->obj || (e->hash == h && e->len == len && !memcmp(e->blob, w, len * 4u)))
			return i;
	}
}

static int blob_grow(tph_blobtab *t)
{
	if ((uint64_t)(t->n + 1) * 2 <= (uint64_t)t->mask + 1)
		return TPH_OK;
	uint32_t nmask = t->mask * 2 + 1;
	tph_blob_ent *ne = tph_calloc((size_t)nmask + 1, sizeof *ne);
	if (!ne)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i <= t->mask; i++) {
		if (!t->ents[i].obj)
			continue;
		uint32_t j = (uint32_t)t->ents[i].hash & nmask;
		while (ne[j].obj)
			j = (j + 1) & nmask;
		ne[j] = t->ents[i];
	}
	tph_free(t->ents);
	t->ents = ne;
	t->mask = nmask;
	return TPH_OK;
}

/* A failed build leaves unreachable bytes in the permanent arena, nothing else. */
static int intern_blob(tph_cluster *c, tph_build_fn build, const void **out, void **fresh)
{
	const uint32_t *w = c->words;
	uint32_t len = c->nwords;
	uint64_t h = tph_hash_bytes(w, len * 4u, 0);
	uint32_t i = blob_probe(&c->blobs, w, len, h);
	if (c->blobs.ents[i].obj) {
		*out = c->blobs.ents[i].obj;
		return TPH_OK;
	}
	if (blob_grow(&c->blobs) != TPH_OK)
		return TPH_ENOMEM;
	tph_rd r = {w + 1, &c->perm, &c->strs, TPH_OK};
	void *obj = build(&r);
	uint32_t *copy = tph_arena_alloc(&c->perm, len * 4u, 8);
	if (!obj || r.err || !copy)
		return TPH_ENOMEM;
	memcpy(copy, w, len * 4u);
	i = blob_probe(&c->blobs, w, len, h);
	c->blobs.ents[i] = (tph_blob_ent){h, copy, len, obj};
	c->blobs.n++;
	*out = obj;
	if (fresh)
		*fresh = obj;
	return TPH_OK;
}

int tph_w_finish(tph_wr *w, tph_build_fn build, const void **out, void **fresh)
{
	if (fresh)
		*fresh = NULL;
	if (w->err)
		return w->err;
	if (intern_blob(w->c, build, out, fresh) != TPH_OK)
		return tph_cl_oom(w->d, w->obj);
	return TPH_OK;
}
