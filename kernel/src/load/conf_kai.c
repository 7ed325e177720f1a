/* Loads KAI-Scheduler's SchedulerConfiguration (pkg/scheduler/conf) into a tph_conf of flavour
 * kai: actions from a comma string, tiers flattened into one (KAI scopes nothing by tier),
 * plugins as a name and a string map of arguments (no enable flags), queueDepthPerAction and
 * scenarioSearchBudgets. What the ConfigMap leaves out comes from TPH_CONF_KAI_DEFAULT. */
#include "load/conf_ld.h"
#include "base/names.h"
#include "base/diag.h"

#include <string.h>

/* ---- actions ----------------------------------------------------------------------------- */

static int read_actions(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	*(bool *)dst = true;
	return conf_read_actions((conf_ld *)c, v, tph_kai_action_name_known, "KAI ");
}

/* ---- plugins ----------------------------------------------------------------------------- */

/* KAI's arguments are map[string]string: every value a scalar. */
static int check_string_args(conf_ld *L, const yu_node *v)
{
	for (uint32_t i = 0; i < v->len; i++) {
		const yu_node *k = yu_at(&L->c, v->u.pairs[i].key);
		const yu_node *x = yu_at(&L->c, v->u.pairs[i].value);
		if (x->type == YU_SCALAR)
			continue;
		yu_push(&L->c, k->type == YU_SCALAR ? yu_sv(k) : "?");
		return yu_err(&L->c, x, TPH_EINVAL, "KAI plugin arguments are strings, got %s",
		              yu_kind(x));
	}
	return TPH_OK;
}

static int plugin_key(conf_ld *L, const yu_node *k, const yu_node *v, tph_conf_plugin *p,
                      uint32_t *seen)
{
	const char *key = yu_sv(k);
	int bit = strcmp(key, "name") == 0 ? 0 : strcmp(key, "arguments") == 0 ? 1 : -1;
	if (bit < 0 && strncmp(key, "enable", 6) == 0)
		return yu_err(&L->c, k, TPH_EINVAL, "KAI plugins have no enable flags");
	if (bit < 0)
		return yu_err(&L->c, k, TPH_EINVAL, "unknown field");
	if (*seen & (1u << bit))
		return yu_err(&L->c, k, TPH_EINVAL, "duplicate field");
	*seen |= 1u << bit;
	if (bit == 0) {
		int rc = yu_want_scalar(&L->c, v, "a plugin name");
		if (rc == TPH_OK && v->len == 0)
			rc = yu_err(&L->c, v, TPH_EINVAL, "must not be empty");
		return rc < 0 ? rc : conf_str(L, v, &p->name);
	}
	p->has_args = !yu_is_null(v);
	int rc = p->has_args ? yu_want_map(&L->c, v) : TPH_OK;
	if (rc == TPH_OK && p->has_args)
		rc = check_string_args(L, v);
	return rc < 0 ? rc : conf_read_args(L, v, &p->args);
}

static int read_plugin(conf_ld *L, const yu_node *n, uint32_t idx, void *row, const void *arg)
{
	tph_conf_plugin *p = row;
	int rc = conf_read_plugin(L, n, idx, *(const uint32_t *)arg, p, plugin_key);
	if (rc == TPH_OK && !tph_kai_plugin_name_known(p->name)) {
		yu_warn(&L->c, yu_map_find(&L->c, n, "name"), "unknown KAI plugin \"%s\": skipped",
		        p->name);
		p->name = NULL; /* dropped when the tiers are flattened */
	}
	return rc;
}

static int read_tier(conf_ld *L, const yu_node *n, uint32_t tier, void *row, const void *arg)
{
	return conf_read_tier(L, n, tier, row, read_plugin);
}

/* KAI builds every plugin of every tier in order: one tier holds them all, unknown ones out. */
static int flatten(conf_ld *L, const yu_node *v, tph_conf_tier *tiers, uint32_t n)
{
	uint32_t total = 0;
	for (uint32_t t = 0; t < n; t++)
		total += tiers[t].n_plugins;
	tph_conf *conf = L->conf;
	conf->tiers = yu_alloc_array(&conf->arena, 1, sizeof *conf->tiers);
	tph_conf_plugin *all = yu_alloc_array(&conf->arena, total, sizeof *all);
	if (!conf->tiers || !all)
		return yu_err(&L->c, v, TPH_ENOMEM, "out of memory");
	conf->n_tiers = 1;
	conf->tiers[0] = (tph_conf_tier){.plugins = all, .line = n ? tiers[0].line : 0};
	for (uint32_t t = 0; t < n; t++)
		for (uint32_t i = 0; i < tiers[t].n_plugins; i++)
			if (tiers[t].plugins[i].name)
				all[conf->tiers[0].n_plugins++] = tiers[t].plugins[i];
	return TPH_OK;
}

static int read_tiers(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	conf_ld *L = (conf_ld *)c;
	tph_conf_tier *tiers = NULL;
	uint32_t n = 0;
	*(bool *)dst = true;
	int rc = yu_is_null(v) ? TPH_OK
	                       : conf_each_row(L, v, sizeof *tiers, &tiers, &n, read_tier, NULL);
	yu_set_obj(&L->c, "conf", NULL, NULL, -1);
	return rc < 0 ? rc : flatten(L, v, tiers, n);
}

/* ---- queueDepthPerAction and scenarioSearchBudgets ----------------------------------------- */

static int read_depth(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	conf_ld *L = (conf_ld *)c;
	tph_conf *conf = L->conf;
	int rc = yu_want_map(c, v);
	if (rc == TPH_OK)
		rc = yu_check_unique_keys(c, v);
	if (rc < 0)
		return rc;
	conf->queue_depth = yu_alloc_array(&conf->arena, v->len, sizeof *conf->queue_depth);
	if (!conf->queue_depth)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	for (uint32_t i = 0; rc == TPH_OK && i < v->len; i++) {
		const yu_node *k = yu_at(c, v->u.pairs[i].key);
		tph_conf_depth *e = &conf->queue_depth[i];
		yu_push(c, yu_sv(k));
		if (!tph_kai_action_name_known(yu_sv(k)))
			rc = yu_err(c, k, TPH_EINVAL, "unknown KAI action \"%s\"", yu_sv(k));
		if (rc == TPH_OK)
			rc = conf_str(L, k, &e->action);
		if (rc == TPH_OK)
			rc = yu_i32(c, yu_at(c, v->u.pairs[i].value), 1, INT32_MAX, &e->depth);
		yu_pop(c);
	}
	conf->n_queue_depth = v->len;
	return rc;
}

static int duration_ms(yu_ctx *c, const yu_node *v, int64_t *ms)
{
	int64_t ns;
	int rc = yu_duration(c, v, &ns);
	if (rc == TPH_OK && ns < 0)
		rc = yu_err(c, v, TPH_EINVAL, "must not be negative (\"%s\")", yu_sv(v));
	*ms = ns / 1000000;
	return rc;
}

static int f_duration_ms(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return duration_ms(c, v, dst);
}

/* A map of name -> duration (per action or per generator, "default" for the rest). */
static int read_budget_map(conf_ld *L, const yu_node *v, tph_conf_budget **out, uint32_t *n)
{
	yu_ctx *c = &L->c;
	int rc = yu_want_map(c, v);
	if (rc == TPH_OK)
		rc = yu_check_unique_keys(c, v);
	if (rc < 0)
		return rc;
	*out = yu_alloc_array(&L->conf->arena, v->len, sizeof **out);
	if (!*out)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	for (uint32_t i = 0; rc == TPH_OK && i < v->len; i++) {
		const yu_node *k = yu_at(c, v->u.pairs[i].key);
		yu_push(c, yu_sv(k));
		rc = conf_str(L, k, &(*out)[i].name);
		if (rc == TPH_OK)
			rc = duration_ms(c, yu_at(c, v->u.pairs[i].value), &(*out)[i].ms);
		yu_pop(c);
	}
	*n = v->len;
	return rc;
}

static int f_action_budgets(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_conf_kai_budgets *b = dst;
	return read_budget_map((conf_ld *)c, v, &b->action, &b->n_action);
}

static int f_generator_budgets(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_conf_kai_budgets *b = dst;
	return read_budget_map((conf_ld *)c, v, &b->generator, &b->n_generator);
}

static const yu_field budget_fields[] = {
    {"maxActionSearchDuration", f_action_budgets, 0, NULL, 0},
    YU_F("maxJobSearchDuration", f_duration_ms, tph_conf_kai_budgets, job_ms, NULL, 0),
    YU_F("minJobSearchDuration", f_duration_ms, tph_conf_kai_budgets, min_job_ms, NULL, 0),
    {"maxGeneratorSearchDuration", f_generator_budgets, 0, NULL, 0},
};

static int read_budgets(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_walk(c, v, budget_fields, sizeof budget_fields / sizeof budget_fields[0],
	               &((conf_ld *)c)->conf->budgets);
}

/* ---- entry points ---------------------------------------------------------------------------- */

typedef struct kai_seen {
	bool actions, tiers;
} kai_seen;

static const yu_field root_fields[] = {
    YU_F("actions", read_actions, kai_seen, actions, NULL, 0),
    YU_F("tiers", read_tiers, kai_seen, tiers, NULL, 0),
    {"queueDepthPerAction", read_depth, 0, NULL, 0},
    {"scenarioSearchBudgets", read_budgets, 0, NULL, 0},
};

/* KAI's defaults for what the ConfigMap leaves out: read from TPH_CONF_KAI_DEFAULT's text. */
static int fill_defaults(conf_ld *L, const kai_seen *seen)
{
	static const char text[] = TPH_CONF_KAI_DEFAULT;
	yu_doc doc;
	int rc = yu_load(text, sizeof text - 1, "<KAI default conf>", 0, 0, &doc, L->c.d);
	if (rc < 0)
		return rc;
	yu_ctx saved = L->c;
	L->c.doc = &doc;
	L->c.file = "<KAI default conf>";
	L->c.line_base = L->c.col_base = 0;
	const yu_node *root = &doc.nodes[doc.root];
	kai_seen dummy = {0};
	if (!seen->actions)
		rc = read_actions(&L->c, yu_map_find(&L->c, root, "actions"), &dummy.actions, NULL);
	if (rc == TPH_OK && !seen->tiers)
		rc = read_tiers(&L->c, yu_map_find(&L->c, root, "tiers"), &dummy.tiers, NULL);
	L->c = saved;
	yu_doc_free(&doc);
	return rc;
}

int tph_kai_conf_from_node(yu_ctx *c, const yu_node *root, tph_conf **out)
{
	*out = NULL;
	tph_conf *conf = NULL;
	int rc = conf_new(c->file ? c->file : "<input>", false, &conf, c->d);
	if (rc < 0)
		return rc;
	conf->flavour = TPH_CONF_KAI;
	conf_ld L = {.c = *c, .conf = conf};
	L.c.arena = &conf->arena;
	L.c.depth = 0;
	yu_set_obj(&L.c, "conf", NULL, NULL, -1);
	kai_seen seen = {0};
	if (root && !yu_is_null(root))
		rc = yu_walk(&L.c, root, root_fields, sizeof root_fields / sizeof root_fields[0],
		             &seen);
	if (rc == TPH_OK && (!seen.actions || !seen.tiers))
		rc = fill_defaults(&L, &seen);
	if (rc < 0) {
		tph_conf_free(conf);
		return rc;
	}
	*out = conf;
	return TPH_OK;
}

int tph_kai_conf_load_embedded(const char *text, size_t len, const char *file, int line_base,
                               int col_base, tph_conf **out, tph_diag *d)
{
	*out = NULL;
	yu_doc doc;
	int rc = yu_load(text, len, file, line_base, col_base, &doc, d);
	if (rc < 0)
		return rc;
	yu_ctx c;
	yu_ctx_init(&c, &doc, file, NULL, d);
	c.line_base = line_base;
	c.col_base = col_base;
	rc = tph_kai_conf_from_node(&c, doc.root == YU_NONE ? NULL : &doc.nodes[doc.root], out);
	yu_doc_free(&doc);
	return rc;
}

int tph_conf_load_kai_string(const char *text, size_t len, const char *display_name, tph_conf **out,
                             tph_diag *d)
{
	tph_diag_begin(d);
	if (!out)
		return tph_diag_set(d, TPH_EINVAL, "conf: no output");
	*out = NULL;
	if (!text && len)
		return tph_diag_set(d, TPH_EINVAL, "conf: no text");
	return tph_kai_conf_load_embedded(text, len, display_name ? display_name : "<conf>", 0, 0,
	                                  out, d);
}

int tph_conf_load_kai_file(const char *path, tph_conf **out, tph_diag *d)
{
	tph_diag_begin(d);
	if (!out || !path)
		return tph_diag_set(d, TPH_EINVAL, "conf: no path or no output");
	*out = NULL;
	char *buf;
	size_t len;
	int rc = yu_read_file(path, &buf, &len, d);
	if (rc == TPH_OK)
		rc = tph_conf_load_kai_string(buf, len, path, out, d);
	yu_free(buf);
	return rc;
}

tph_conf_flavour tph_conf_flavour_of(const tph_conf *conf)
{
	return conf ? conf->flavour : TPH_CONF_VOLCANO;
}
