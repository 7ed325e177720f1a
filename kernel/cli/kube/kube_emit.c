/* Writing objects as one flow-style YAML line each, and the small readers both directions
 * share: dotted-path lookups and per-pod sums of container quantities. */
#include "kube.h"

#include "../cli.h"

#include <string.h>

void kq(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	const char *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c != '"' && c != '\\' && c >= 0x20)
			continue;
		fwrite_unlocked(run, 1, (size_t)(s - run), f);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else
			fprintf(f, "\\u%04x", c);
		run = s + 1;
	}
	fwrite_unlocked(run, 1, (size_t)(s - run), f);
	putc_unlocked('"', f);
}

/* Plain when every byte is one a plain flow scalar may hold anywhere (readers take a key's
 * text, whatever its style, and the loaders' fast path takes only plain keys). */
void kk(FILE *f, const char *key)
{
	const char *p = key;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '.' || *p == '_' || *p == '/' || (*p == '-' && p > key))
		p++;
	if (*p || p == key)
		kq(f, key);
	else
		fwrite_unlocked(key, 1, (size_t)(p - key), f);
}

void kl_open(kl *l, FILE *f, const char *indent)
{
	l->f = f;
	l->more = false;
	fputs(indent, f);
	fputs("- {", f);
}

void kl_close(kl *l)
{
	fputs("}\n", l->f);
}

void kl_key(kl *l, const char *key)
{
	if (l->more)
		fputs(", ", l->f);
	l->more = true;
	if (key) {
		fputs(key, l->f);
		fputs(": ", l->f);
	}
}

void kl_str(kl *l, const char *key, const char *v)
{
	kl_key(l, key);
	kq(l->f, v);
}

void kl_raw(kl *l, const char *key, const char *v)
{
	kl_key(l, key);
	fputs(v, l->f);
}

void kl_i64(kl *l, const char *key, int64_t v)
{
	kl_key(l, key);
	fprintf(l->f, "%lld", (long long)v);
}

static bool listed(const char *s, const char *const *names)
{
	for (; names && *names; names++)
		if (!strcmp(s, *names))
			return true;
	return false;
}

static bool empty(const yu_node *v)
{
	return yu_is_null(v) || (v->type != YU_SCALAR && v->len == 0);
}

static bool keeps_plain(const yu_node *v)
{
	const char *k = yu_kind(v);
	return yu_plain(v) &&
	       (!strcmp(k, "null") || !strcmp(k, "a boolean") || !strcmp(k, "a number"));
}

static int tree(FILE *f, yu_ctx *c, const yu_node *v, const char *const *drop, int depth)
{
	if (depth > YU_MAX_DEPTH)
		return yu_err(c, v, TPH_EINVAL, "nested too deep");
	if (v->type == YU_SCALAR) {
		if (keeps_plain(v))
			fputs(yu_is_null(v) ? "null" : yu_sv(v), f);
		else
			kq(f, yu_sv(v));
		return TPH_OK;
	}
	fputc(v->type == YU_MAP ? '{' : '[', f);
	int rc = TPH_OK;
	bool more = false;
	for (uint32_t i = 0; rc == TPH_OK && i < v->len; i++) {
		const yu_node *val =
		    yu_at(c, v->type == YU_MAP ? v->u.pairs[i].value : v->u.items[i]);
		if (v->type == YU_MAP) {
			const yu_node *key = yu_at(c, v->u.pairs[i].key);
			if (key->type != YU_SCALAR)
				return yu_err(c, key, TPH_EINVAL, "a key must be a string");
			yu_push(c, yu_sv(key));
			if (listed(yu_sv(key), drop)) {
				rc = empty(val) ? TPH_OK
				                : yu_err(c, val, TPH_EINVAL,
				                         "not supported by the scenario format");
				yu_pop(c);
				continue;
			}
			fputs(more ? ", " : "", f);
			kk(f, yu_sv(key));
			fputs(": ", f);
		} else {
			yu_push_idx(c, (int32_t)i);
			fputs(more ? ", " : "", f);
		}
		more = true;
		rc = tree(f, c, val, drop, depth + 1);
		yu_pop(c);
	}
	fputc(v->type == YU_MAP ? '}' : ']', f);
	return rc;
}

int kl_tree(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *drop)
{
	kl_key(l, key);
	return tree(l->f, c, v, drop, 0);
}

int kl_strmap(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *skip_)
{
	const char *const *skip = skip_;
	int rc = yu_want_map(c, v);
	bool open = false;
	for (uint32_t i = 0; rc == TPH_OK && i < v->len; i++) {
		const yu_node *k = yu_at(c, v->u.pairs[i].key),
		              *val = yu_at(c, v->u.pairs[i].value);
		rc = yu_want_scalar(c, k, "a key");
		if (rc == TPH_OK && !listed(yu_sv(k), skip)) {
			yu_push(c, yu_sv(k));
			rc = yu_want_scalar(c, val, "a string");
			yu_pop(c);
			if (!open)
				kl_key(l, key), fputc('{', l->f);
			fputs(open ? ", " : "", l->f);
			open = true;
			kk(l->f, yu_sv(k));
			fputs(": ", l->f);
			kq(l->f, yu_is_null(val) ? "" : yu_sv(val));
		}
	}
	if (open)
		fputc('}', l->f);
	return rc;
}

int kl_res(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux)
{
	(void)aux;
	int rc = yu_want_map(c, v);
	if (rc == TPH_OK)
		kl_key(l, key), fputc('{', l->f);
	for (uint32_t i = 0; rc == TPH_OK && i < v->len; i++) {
		const yu_node *k = yu_at(c, v->u.pairs[i].key),
		              *val = yu_at(c, v->u.pairs[i].value);
		rc = yu_want_scalar(c, k, "a resource name");
		int64_t q;
		if (rc == TPH_OK) {
			yu_push(c, yu_sv(k));
			rc = yu_quantity(c, val, yu_sv(k), k->len, &q);
			yu_pop(c);
		}
		if (rc == TPH_OK) {
			fputs(i ? ", " : "", l->f);
			kk(l->f, yu_sv(k));
			fputs(": ", l->f);
			kq(l->f, yu_sv(val));
		}
	}
	if (rc == TPH_OK)
		fputc('}', l->f);
	return rc;
}

int kl_scalar(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux)
{
	(void)aux;
	int rc = yu_want_scalar(c, v, "a string");
	if (rc == TPH_OK)
		kl_str(l, key, yu_sv(v));
	return rc;
}

int kl_plain(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux)
{
	const char *what = aux;
	int rc = yu_want_scalar(c, v, what);
	if (rc == TPH_OK && !keeps_plain(v))
		rc = yu_err(c, v, TPH_EINVAL, "expected %s, got %s (\"%s\")", what, yu_kind(v),
		            yu_sv(v));
	if (rc == TPH_OK)
		kl_raw(l, key, yu_sv(v));
	return rc;
}

int kl_at(kl *l, yu_ctx *c, const yu_node *obj, const char *kpath, const char *key, kl_fn fn,
          const void *aux)
{
	const yu_node *v = kget(c, obj, kpath);
	if (!v)
		return TPH_OK;
	char store[128];
	int pushed = kpush(c, kpath, store, sizeof store);
	int rc = fn(l, c, key, v, aux);
	kpop(c, pushed);
	return rc;
}

int kl_fields(kl *l, yu_ctx *c, const yu_node *obj, const kfields *t)
{
	int rc = TPH_OK;
	for (size_t i = 0; rc == TPH_OK && i < t->n; i++)
		rc = kl_at(l, c, obj, t->f[i].kpath, t->f[i].key, t->f[i].fn, t->f[i].aux);
	return rc;
}

int kl_maps(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *fields)
{
	int rc = yu_want_seq(c, v);
	if (rc == TPH_OK)
		kl_key(l, key), fputc('[', l->f);
	for (uint32_t i = 0; rc == TPH_OK && i < v->len; i++) {
		const yu_node *item = yu_at(c, v->u.items[i]);
		yu_push_idx(c, (int32_t)i);
		rc = yu_want_map(c, item);
		kl inner = {l->f, false};
		fputs(i ? ", {" : "{", l->f);
		if (rc == TPH_OK)
			rc = kl_fields(&inner, c, item, fields);
		fputc('}', l->f);
		yu_pop(c);
	}
	if (rc == TPH_OK)
		fputc(']', l->f);
	return rc;
}

const yu_node *kget(const yu_ctx *c, const yu_node *map, const char *path)
{
	const yu_node *n = map;
	while (n && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);
		char key[64];
		if (len >= sizeof key || n->type != YU_MAP)
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		n = yu_map_find(c, n, key);
		path += len + (dot != NULL);
	}
	return n && !yu_is_null(n) ? n : NULL;
}

const char *kstr(const yu_ctx *c, const yu_node *map, const char *path)
{
	const yu_node *n = kget(c, map, path);
	return n && n->type == YU_SCALAR ? yu_sv(n) : NULL;
}

int kpush(yu_ctx *c, const char *path, char *store, size_t cap)
{
	snprintf(store, cap, "%s", path);
	int n = 0;
	for (char *p = store; p;) {
		char *dot = strchr(p, '.');
		if (dot)
			*dot = '\0';
		yu_push(c, p);
		n++;
		p = dot ? dot + 1 : NULL;
	}
	return n;
}

void kpop(yu_ctx *c, int n)
{
	while (n-- > 0)
		yu_pop(c);
}

int kres_add(kres *r, yu_ctx *c, const yu_node *v, bool max)
{
	int rc = yu_want_map(c, v);
	for (uint32_t i = 0; rc == TPH_OK && i < v->len; i++) {
		const yu_node *k = yu_at(c, v->u.pairs[i].key),
		              *val = yu_at(c, v->u.pairs[i].value);
		int64_t q;
		rc = yu_want_scalar(c, k, "a resource name");
		if (rc < 0)
			break;
		yu_push(c, yu_sv(k));
		rc = yu_quantity(c, val, yu_sv(k), k->len, &q);
		yu_pop(c);
		uint32_t j = 0;
		while (j < r->n && strcmp(r->name[j], yu_sv(k)))
			j++;
		if (rc == TPH_OK && j == KR_MAX)
			rc = yu_err(c, k, TPH_ERANGE, "more than %d resources", KR_MAX);
		if (rc < 0)
			break;
		if (j == r->n)
			r->name[r->n++] = yu_sv(k), r->v[j] = 0;
		r->v[j] = max ? (q > r->v[j] ? q : r->v[j]) : r->v[j] + q;
		if (r->v[j] > TPH_RES_VALUE_MAX)
			rc = yu_err(c, val, TPH_ERANGE, "the pod's %s sums above 2^53 units",
			            yu_sv(k));
	}
	return rc;
}

void kres_write(kl *l, const char *key, const kres *r)
{
	if (!r->n)
		return;
	kl_key(l, key);
	fputc('{', l->f);
	for (uint32_t i = 0; i < r->n; i++) {
		char q[64];
		tph_quantity_format(r->v[i], tph_res_unit_of(r->name[i], strlen(r->name[i])), q,
		                    sizeof q);
		fputs(i ? ", " : "", l->f);
		kk(l->f, r->name[i]);
		fputs(": ", l->f);
		kq(l->f, q);
	}
	fputc('}', l->f);
}
