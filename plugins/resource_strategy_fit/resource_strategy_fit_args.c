/* resource-strategy-fit's arguments: the nested `resources`, `sra` and `proportional` maps,
 * decoded as Volcano's framework.Get (mapstructure) does, then resolved per dimension once. */
#include "resource_strategy_fit.h"
#include "lib/vres.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

uint32_t tph_rsf_dim(const tph_session *s, const char *name, size_t len)
{
	return tph_session_dim_find(s, name, len);
}

/* mapstructure matches a struct field to a map key ignoring case. */
static const char *ci_key(const tph_args *m, const char *field)
{
	for (uint32_t i = 0; m && i < tph_args_count(m); i++) {
		const char *k = tph_args_key_at(m, i);
		if (k && !strcasecmp(k, field))
			return k;
	}
	return NULL;
}

static bool ci_bool(const tph_args *m, const char *field)
{
	bool v = false;
	const char *k = ci_key(m, field);
	if (k)
		tph_args_bool(m, k, &v);
	return v;
}

static int64_t ci_int(const tph_args *m, const char *field, int64_t def)
{
	int64_t v = def;
	const char *k = ci_key(m, field);
	if (k)
		tph_args_int(m, k, &v);
	return v;
}

static const char *ci_string(const tph_args *m, const char *field)
{
	const char *v = "";
	const char *k = ci_key(m, field);
	if (k)
		tph_args_string(m, k, &v);
	return v;
}

static const tph_args *ci_child(const tph_args *m, const char *field)
{
	const char *k = ci_key(m, field);
	return k ? tph_args_child(m, k) : NULL;
}

/* ---- resources ---- */

/* One trailing '*' and not "*" alone; a name without '*' is exact. */
static bool valid_pattern(const char *p)
{
	const char *star = strchr(p, '*');
	if (!star)
		return true;
	return strcmp(p, "*") && !star[1];
}

/* findResourceConfigWithPrefix: the exact key first, else the longest wildcard prefix. */
static const tph_args *find_config(const tph_args *res, const char *name)
{
	size_t best = 0;
	const tph_args *found = NULL;
	for (uint32_t i = 0; i < tph_args_count(res); i++) {
		const char *k = tph_args_key_at(res, i);
		if (!k || !valid_pattern(k))
			continue;
		if (!strcmp(k, name))
			return tph_args_at(res, i);
		size_t len = strlen(k);
		if (k[len ? len - 1 : 0] == '*' && len - 1 > best && !strncmp(name, k, len - 1)) {
			best = len - 1;
			found = tph_args_at(res, i);
		}
	}
	return found;
}

/* Top-level keys are exact (framework.Get); fields inside the maps match ignoring case.
 * `resources` absent or empty: cpu and memory, LeastAllocated, weight 1. */
static void read_resources(rsf_st *st, const tph_session *s, const tph_args *args)
{
	const tph_args *res = tph_args_child(args, "resources");
	if (!res || !tph_args_count(res)) {
		st->has[TPH_RES_CPU] = st->has[TPH_RES_MEMORY] = 1;
		st->w[TPH_RES_CPU] = st->w[TPH_RES_MEMORY] = 1;
		return;
	}
	for (uint32_t d = 0; d < tph_view_of(s)->ndim && d < TPH_RES_MAX; d++) {
		const char *name = tph_session_str(s, tph_view_of(s)->dims->name[d]);
		const tph_args *c = find_config(res, name);
		if (!c)
			continue;
		int64_t w = ci_int(c, "weight", 0);
		st->has[d] = 1;
		st->w[d] = w <= 0 ? 1 : w;
		st->most[d] = !strcmp(ci_string(c, "type"), "MostAllocated");
	}
}

/* ---- sra and proportional ---- */

typedef struct name_ctx {
	rsf_st *st;
	tph_session *s;
	const tph_args *map;
	int rc;
} name_ctx;

static void sra_name(void *ud, const char *name, size_t len)
{
	name_ctx *c = ud;
	char key[256];
	snprintf(key, sizeof key, "%.*s", (int)len, name);
	int64_t w = 1;
	if (c->map)
		tph_args_int(c->map, key, &w);
	w = w < 0 ? 1 : w;
	c->st->sra_sum += w;
	uint32_t d = tph_rsf_dim(c->s, name, len);
	for (uint32_t i = 0; i < c->st->n_sra; i++)
		if (c->st->sra_dim[i] == d)
			return; /* a map in Volcano: counted in the sum, scored once */
	if (d != TPH_NOIDX && c->st->n_sra < TPH_RES_MAX) {
		c->st->sra_dim[c->st->n_sra] = d;
		c->st->sra_w[c->st->n_sra++] = w;
	}
}

static double rate(const tph_args *map, const char *name, size_t len, const char *what)
{
	char key[300];
	snprintf(key, sizeof key, "%.*s.%s", (int)len, name, what);
	double v = 1.0;
	if (map)
		tph_args_float(map, key, &v);
	return v < 0 ? 1.0 : v;
}

static void prop_name(void *ud, const char *name, size_t len)
{
	name_ctx *c = ud;
	rsf_st *st = c->st;
	uint32_t d = tph_rsf_dim(c->s, name, len);
	for (uint32_t i = 0; i < st->n_prop; i++)
		if (st->prop_dim[i] == d)
			return;
	if (d == TPH_NOIDX || st->n_prop >= TPH_RES_MAX)
		return;
	char text[300];
	snprintf(text, sizeof text, "proportional of resource %.*s check failed", (int)len, name);
	tph_reason_code code = tph_reason(c->s, text, true);
	if (code == (tph_reason_code)UINT16_MAX)
		c->rc = TPH_ENOMEM;
	st->prop_dim[st->n_prop] = d;
	st->prop_cpu[st->n_prop] = rate(c->map, name, len, "cpu");
	st->prop_mem[st->n_prop] = rate(c->map, name, len, "memory");
	st->prop_code[st->n_prop++] = code;
}

int tph_rsf_args(rsf_st *st, tph_session *s, const tph_args *args)
{
	int64_t w = 10;
	tph_args_int(args, "resourceStrategyFitWeight", &w);
	st->weight = w < 0 ? 10 : w;
	read_resources(st, s, args);
	const tph_args *sra = tph_args_child(args, "sra");
	if (ci_bool(sra, "enable")) {
		name_ctx c = {st, s, ci_child(sra, "resourceWeight"), TPH_OK};
		st->sra_weight = ci_int(sra, "weight", 0);
		vr_each_name(ci_string(sra, "resources"), sra_name, &c);
	}
	const tph_args *prop = tph_args_child(args, "proportional");
	if (ci_bool(prop, "enable")) {
		name_ctx c = {st, s, ci_child(prop, "resourceProportion"), TPH_OK};
		st->proportional = true;
		vr_each_name(ci_string(prop, "resources"), prop_name, &c);
		return c.rc;
	}
	return TPH_OK;
}
