/* Loads Volcano's scheduler configuration (actions, tiers of plugins with their enable flags
 * and arguments, per-action configurations) into the structs of conf.h. */
#include "load/conf_ld.h"
#include "base/names.h"
#include "base/diag.h"
#include "base/registry_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *const flag_names[TPH_FLAG_COUNT] = {
    "enableJobOrder",           "enableHierarchy",        "enableJobReady",
    "enableJobPipelined",       "enableTaskOrder",        "enablePreemptable",
    "enableReclaimable",        "enablePreemptive",       "enableQueueOrder",
    "enabledClusterOrder",      "enablePredicate",        "enableBestNode",
    "enableNodeOrder",          "enableTargetJob",        "enableReservedNodes",
    "enableJobEnqueued",        "enabledVictim",          "enableJobStarving",
    "enabledOverused",          "enabledAllocatable",     "enabledHyperNodeOrder",
    "enabledSubJobReady",       "enabledSubJobPipelined", "enabledSubJobOrder",
    "enabledHyperNodeGradient",
};

const char *tph_conf_flag_name(tph_conf_flag f)
{
	return (unsigned)f < TPH_FLAG_COUNT ? flag_names[f] : NULL;
}

bool tph_conf_flag_follows_default(tph_conf_flag f)
{
	return f != TPH_FLAG_HIERARCHY && f != TPH_FLAG_CLUSTER_ORDER;
}

/* ---- arguments ----------------------------------------------------------------------------- */

#define ARG_MAX_DEPTH 64
#define ARG_MAX_NODES 100000u

static int copy_arg(conf_ld *L, const yu_node *n, tph_arg *out, int depth);

/* A string the conf keeps, copied into its own arena: a conf may outlive the document it was
 * read from (a scenario's inline conf, still held by a session after tph_scenario_free). */
int conf_str(conf_ld *L, const yu_node *n, const char **out)
{
	int rc = yu_str(&L->c, n, out);
	if (rc == TPH_OK && !(*out = yu_strndup(&L->conf->arena, *out, n->len)))
		rc = yu_err(&L->c, n, TPH_ENOMEM, "out of memory");
	return rc;
}

int conf_each_row(conf_ld *L, const yu_node *v, size_t size, void *items, uint32_t *n, row_fn fn,
                  const void *arg)
{
	int rc = yu_want_seq(&L->c, v);
	if (rc < 0)
		return rc;
	*n = (uint32_t)yu_seq_len(v);
	char *rows = yu_alloc_array(&L->conf->arena, *n, size);
	memcpy(items, &rows, sizeof rows);
	if (!rows)
		return yu_err(&L->c, v, TPH_ENOMEM, "out of memory");
	int depth = L->c.depth;
	for (uint32_t i = 0; i < *n && rc == TPH_OK; i++) {
		L->c.depth = 0;
		rc = fn(L, yu_at(&L->c, v->u.items[i]), i, rows + i * size, arg);
	}
	L->c.depth = depth;
	return rc;
}

static int copy_arg_items(conf_ld *L, const yu_node *n, tph_arg *out, int depth)
{
	bool map = n->type == YU_MAP;
	int rc = map ? yu_check_unique_keys(&L->c, n) : TPH_OK;
	if (rc < 0)
		return rc;
	out->n = (uint32_t)(map ? yu_map_len(n) : yu_seq_len(n));
	out->items = yu_alloc_array(&L->conf->arena, out->n, sizeof *out->items);
	if (!out->items)
		return yu_err(&L->c, n, TPH_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < out->n && rc == TPH_OK; i++) {
		if (map) {
			const yu_pair *p = &n->u.pairs[i];
			yu_node *k = yu_at(&L->c, p->key);
			rc = conf_str(L, k, &out->items[i].key);
			yu_push(&L->c, yu_sv(k));
			if (rc == TPH_OK)
				rc = copy_arg(L, yu_at(&L->c, p->value), &out->items[i], depth + 1);
		} else {
			yu_push_idx(&L->c, (int32_t)i);
			rc = copy_arg(L, yu_at(&L->c, n->u.items[i]), &out->items[i], depth + 1);
		}
		yu_pop(&L->c);
	}
	return rc;
}

static int copy_arg(conf_ld *L, const yu_node *n, tph_arg *out, int depth)
{
	if (++L->arg_nodes > ARG_MAX_NODES)
		return yu_err(&L->c, n, TPH_ERANGE, "arguments too large (alias loop?)");
	if (depth > ARG_MAX_DEPTH)
		return yu_err(&L->c, n, TPH_ERANGE, "arguments nested too deeply");
	out->line = yu_line(&L->c, n);
	out->col = yu_col(&L->c, n);
	out->file = L->conf->file;
	out->text = "";
	if (n->type != YU_SCALAR) {
		out->kind = n->type == YU_MAP ? TPH_ARGV_MAP : TPH_ARGV_SEQ;
		return copy_arg_items(L, n, out, depth);
	}
	out->kind = TPH_ARGV_SCALAR;
	out->quoted = !yu_plain(n);
	out->null = yu_is_null(n);
	out->len = (uint32_t)n->len;
	return conf_str(L, n, &out->text);
}

int conf_read_args(conf_ld *L, const yu_node *v, tph_arg *out)
{
	out->kind = TPH_ARGV_MAP;
	out->text = "";
	out->file = L->conf->file;
	out->line = yu_line(&L->c, v);
	out->col = yu_col(&L->c, v);
	if (yu_is_null(v))
		return TPH_OK;
	int rc = yu_want_map(&L->c, v);
	return rc < 0 ? rc : copy_arg(L, v, out, 0);
}

const tph_arg *tph_arg_get(const tph_arg *map, const char *key)
{
	if (!map || map->kind != TPH_ARGV_MAP)
		return NULL;
	for (uint32_t i = 0; i < map->n; i++)
		if (strcmp(map->items[i].key, key) == 0)
			return &map->items[i];
	return NULL;
}

/* ---- plugins and tiers --------------------------------------------------------------------------
 */

static int find_flag(const char *key)
{
	for (int i = 0; i < TPH_FLAG_COUNT; i++)
		if (strcmp(flag_names[i], key) == 0)
			return i;
	return -1;
}

static int plugin_name(conf_ld *L, const yu_node *v, tph_conf_plugin *p)
{
	int rc = yu_want_scalar(&L->c, v, "a plugin name");
	if (rc == TPH_OK && !tph_registry_plugin_known(yu_sv(v)))
		rc = yu_err(&L->c, v, TPH_EINVAL, "unknown plugin \"%s\"", yu_sv(v));
	return rc < 0 ? rc : conf_str(L, v, &p->name);
}

/* One key of a plugin entry; bits of *seen: the flags, then name, then arguments. */
static int plugin_key(conf_ld *L, const yu_node *k, const yu_node *v, tph_conf_plugin *p,
                      uint32_t *seen)
{
	const char *key = yu_sv(k);
	int bit = strcmp(key, "name") == 0        ? TPH_FLAG_COUNT
	          : strcmp(key, "arguments") == 0 ? TPH_FLAG_COUNT + 1
	                                          : find_flag(key);
	if (bit < 0 && strncmp(key, "enable", 6) == 0)
		return yu_err(&L->c, k, TPH_EINVAL, "unknown enable flag");
	if (bit < 0)
		return yu_err(&L->c, k, TPH_EINVAL, "unknown field");
	if (*seen & (1u << bit))
		return yu_err(&L->c, k, TPH_EINVAL, "duplicate field");
	*seen |= 1u << bit;
	if (bit == TPH_FLAG_COUNT)
		return plugin_name(L, v, p);
	if (bit == TPH_FLAG_COUNT + 1) {
		p->has_args = !yu_is_null(v);
		return conf_read_args(L, v, &p->args);
	}
	if (yu_is_null(v))
		return TPH_OK;
	bool b = false;
	int rc = yu_bool(&L->c, v, &b);
	if (rc == TPH_OK)
		p->flags[bit] = (int8_t)b;
	return rc;
}

int conf_read_plugin(conf_ld *L, const yu_node *n, uint32_t idx, uint32_t tier, tph_conf_plugin *p,
                     conf_key_fn key_fn)
{
	snprintf(L->c.obj_buf, sizeof L->c.obj_buf, "conf tier %u plugin", (unsigned)tier + 1);
	yu_node *nm = yu_map_find(&L->c, n, "name");
	bool named = nm && nm->type == YU_SCALAR && !yu_is_null(nm);
	yu_set_obj(&L->c, L->c.obj_buf, NULL, named ? yu_sv(nm) : NULL, (long)idx);
	int rc = yu_want_map(&L->c, n);
	memset(p->flags, -1, sizeof p->flags);
	p->line = yu_line(&L->c, n);
	p->col = yu_col(&L->c, n);
	p->args = (tph_arg){.kind = TPH_ARGV_MAP,
	                    .text = "",
	                    .file = L->conf->file,
	                    .line = p->line,
	                    .col = p->col};
	uint32_t seen = 0;
	for (const yu_pair *q = n->u.pairs; rc == TPH_OK && q < n->u.pairs + n->len; q++) {
		yu_node *k = yu_at(&L->c, q->key);
		if (k->type != YU_SCALAR)
			return yu_err(&L->c, k, TPH_EINVAL, "a key must be a string, got %s",
			              yu_kind(k));
		yu_push(&L->c, yu_sv(k));
		rc = key_fn(L, k, yu_at(&L->c, q->value), p, &seen);
		yu_pop(&L->c);
	}
	if (rc == TPH_OK && !p->name) {
		yu_push(&L->c, "name");
		rc = yu_err(&L->c, n, TPH_EINVAL, "required field is missing");
		yu_pop(&L->c);
	}
	return rc;
}

static int read_plugin(conf_ld *L, const yu_node *n, uint32_t idx, void *row, const void *arg)
{
	return conf_read_plugin(L, n, idx, *(const uint32_t *)arg, row, plugin_key);
}

/* Volcano refuses proportion together with drf in hierarchy mode in one tier. */
static int check_tier(conf_ld *L, const yu_node *n, const tph_conf_tier *t)
{
	bool hdrf = false, proportion = false;
	for (uint32_t i = 0; i < t->n_plugins; i++) {
		const tph_conf_plugin *p = &t->plugins[i];
		hdrf |= strcmp(p->name, "drf") == 0 && p->flags[TPH_FLAG_HIERARCHY] == 1;
		proportion |= strcmp(p->name, "proportion") == 0;
	}
	if (hdrf && proportion)
		return yu_err(&L->c, n, TPH_EINVAL,
		              "proportion and drf with hierarchy enabled conflict");
	return TPH_OK;
}

int conf_read_tier(conf_ld *L, const yu_node *n, uint32_t tier, tph_conf_tier *t, row_fn plugin_fn)
{
	snprintf(L->c.obj_buf, sizeof L->c.obj_buf, "conf tier %u", (unsigned)tier + 1);
	yu_set_obj(&L->c, L->c.obj_buf, NULL, NULL, -1);
	t->line = yu_line(&L->c, n);
	int rc = yu_want_map(&L->c, n);
	bool seen = false;
	for (const yu_pair *q = n->u.pairs; rc == TPH_OK && q < n->u.pairs + n->len; q++) {
		yu_node *k = yu_at(&L->c, q->key);
		yu_node *v = yu_at(&L->c, q->value);
		bool is_plugins = k->type == YU_SCALAR && strcmp(yu_sv(k), "plugins") == 0;
		yu_push(&L->c, k->type == YU_SCALAR ? yu_sv(k) : "?");
		if (!is_plugins)
			rc = yu_err(&L->c, k, TPH_EINVAL, "unknown field");
		else if (seen)
			rc = yu_err(&L->c, k, TPH_EINVAL, "duplicate field");
		else if (!yu_is_null(v))
			rc = conf_each_row(L, v, sizeof *t->plugins, &t->plugins, &t->n_plugins,
			                   plugin_fn, &tier);
		seen = true;
		yu_pop(&L->c);
	}
	return rc;
}

static int read_tier(conf_ld *L, const yu_node *n, uint32_t tier, void *row, const void *arg)
{
	tph_conf_tier *t = row;
	int rc = conf_read_tier(L, n, tier, t, read_plugin);
	if (rc == TPH_OK) {
		snprintf(L->c.obj_buf, sizeof L->c.obj_buf, "conf tier %u", (unsigned)tier + 1);
		yu_set_obj(&L->c, L->c.obj_buf, NULL, NULL, -1);
		rc = check_tier(L, n, t);
	}
	return rc;
}

static int read_tiers(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	conf_ld *L = (conf_ld *)c; /* the context is the loader's first member */
	tph_conf *conf = L->conf;
	int rc =
	    conf_each_row(L, v, sizeof *conf->tiers, &conf->tiers, &conf->n_tiers, read_tier, NULL);
	if (rc != TPH_OK && !conf->tiers)
		return rc;
	yu_set_obj(&L->c, "conf", NULL, NULL, -1);
	return rc;
}

/* ---- actions and configurations
 * ------------------------------------------------------------------ */

static int add_action(conf_ld *L, const yu_node *v, const char *s, size_t len,
                      bool (*known)(const char *), const char *whose)
{
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0)
		return yu_err(&L->c, v, TPH_EINVAL, "empty action name in \"%s\"", yu_sv(v));
	tph_conf *conf = L->conf;
	char *name = yu_strndup(&conf->arena, s, len);
	if (!name)
		return yu_err(&L->c, v, TPH_ENOMEM, "out of memory");
	if (!known(name))
		return yu_err(&L->c, v, TPH_EINVAL, "unknown %saction \"%s\"", whose, name);
	conf->actions[conf->n_actions++] = name;
	return TPH_OK;
}

int conf_read_actions(conf_ld *L, const yu_node *v, bool (*known)(const char *), const char *whose)
{
	int rc = yu_want_scalar(&L->c, v, "a comma-separated string");
	if (rc < 0)
		return rc;
	const char *s = yu_sv(v);
	size_t len = v->len, blank = 0, commas = 0;
	for (size_t i = 0; i < len; i++) {
		blank += isspace((unsigned char)s[i]) != 0;
		commas += s[i] == ',';
	}
	if (blank == len)
		return TPH_OK;
	L->conf->actions = yu_alloc_array(&L->conf->arena, commas + 1, sizeof(char *));
	if (!L->conf->actions)
		return yu_err(&L->c, v, TPH_ENOMEM, "out of memory");
	for (size_t start = 0; rc == TPH_OK && start <= len;) {
		const char *comma = memchr(s + start, ',', len - start);
		size_t end = comma ? (size_t)(comma - s) : len;
		rc = add_action(L, v, s + start, end - start, known, whose);
		start = end + 1;
	}
	return rc;
}

/* A comma-separated string, as Volcano splits it; a blank string is no action at all. */
static int read_actions(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	/* the context is the loader's first member */
	return conf_read_actions((conf_ld *)c, v, tph_action_name_known, "");
}

static int config_key(conf_ld *L, const yu_node *k, const yu_node *v, tph_conf_action_args *a,
                      unsigned *seen)
{
	const char *key = yu_sv(k);
	unsigned bit = strcmp(key, "name") == 0 ? 1u : strcmp(key, "arguments") == 0 ? 2u : 0u;
	if (!bit)
		return yu_err(&L->c, k, TPH_EINVAL, "unknown field");
	if (*seen & bit)
		return yu_err(&L->c, k, TPH_EINVAL, "duplicate field");
	*seen |= bit;
	if (bit == 2u)
		return conf_read_args(L, v, &a->args);
	int rc = yu_want_scalar(&L->c, v, "an action name");
	if (rc == TPH_OK && !tph_action_name_known(yu_sv(v)))
		rc = yu_err(&L->c, v, TPH_EINVAL, "unknown action \"%s\"", yu_sv(v));
	return rc < 0 ? rc : conf_str(L, v, &a->name);
}

static int read_configuration(conf_ld *L, const yu_node *n, tph_conf_action_args *a)
{
	yu_node *nm = yu_map_find(&L->c, n, "name");
	bool named = nm && nm->type == YU_SCALAR && !yu_is_null(nm);
	yu_set_obj(&L->c, "conf configuration", NULL, named ? yu_sv(nm) : NULL, -1);
	a->line = yu_line(&L->c, n);
	a->col = yu_col(&L->c, n);
	a->args = (tph_arg){.kind = TPH_ARGV_MAP,
	                    .text = "",
	                    .file = L->conf->file,
	                    .line = a->line,
	                    .col = a->col};
	int rc = yu_want_map(&L->c, n);
	unsigned seen = 0;
	for (const yu_pair *q = n->u.pairs; rc == TPH_OK && q < n->u.pairs + n->len; q++) {
		yu_node *k = yu_at(&L->c, q->key);
		if (k->type != YU_SCALAR)
			return yu_err(&L->c, k, TPH_EINVAL, "a key must be a string, got %s",
			              yu_kind(k));
		yu_push(&L->c, yu_sv(k));
		rc = config_key(L, k, yu_at(&L->c, q->value), a, &seen);
		yu_pop(&L->c);
	}
	if (rc == TPH_OK && !a->name) {
		yu_push(&L->c, "name");
		rc = yu_err(&L->c, n, TPH_EINVAL, "required field is missing");
		yu_pop(&L->c);
	}
	return rc;
}

/* Rows after the first for one action are kept but never found (the first wins). */
static int configuration_row(conf_ld *L, const yu_node *item, uint32_t i, void *row,
                             const void *arg)
{
	tph_conf_action_args *a = row;
	int rc = read_configuration(L, item, a);
	if (rc == TPH_OK && tph_conf_find_action_args(L->conf, a->name))
		yu_warn(&L->c, item, "action \"%s\" configured twice; the first wins", a->name);
	if (rc == TPH_OK)
		L->conf->n_configurations++;
	return rc;
}

static int read_configurations(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	conf_ld *L = (conf_ld *)c; /* the context is the loader's first member */
	tph_conf *conf = L->conf;
	uint32_t n;
	int rc = conf_each_row(L, v, sizeof *conf->configurations, &conf->configurations, &n,
	                       configuration_row, NULL);
	if (rc != TPH_OK && !conf->configurations)
		return rc;
	yu_set_obj(&L->c, "conf", NULL, NULL, -1);
	return rc;
}

static int read_metrics(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	conf_ld *L = (conf_ld *)c; /* the context is the loader's first member */
	L->conf->has_metrics = true;
	return conf_read_args(L, v, &L->conf->metrics);
}

/* ---- entry points
 * --------------------------------------------------------------------------------- */

static const yu_field root_fields[] = {
    {"actions", read_actions, 0, NULL, 0},
    {"tiers", read_tiers, 0, NULL, 0},
    {"configurations", read_configurations, 0, NULL, 0},
    {"metrics", read_metrics, 0, NULL, 0},
};

/* A conf that says nothing of actions runs none, as a typo in its key would: an empty one,
 * comments only, or a mapping without `actions`. `actions: ""` runs none on purpose (the
 * probe-only scenarios of the spec). */
#define NO_ACTIONS "conf has no actions (write actions: \"\" to run none)"

int conf_new(const char *file, bool efd, tph_conf **out, tph_diag *d)
{
	tph_conf *conf = yu_calloc(1, sizeof *conf);
	if (!conf || !(conf->file = yu_strndup(&conf->arena, file, strlen(file)))) {
		yu_free(conf);
		return tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", file);
	}
	conf->enable_flags_default = efd;
	atomic_init(&conf->refs, 1);
	*out = conf;
	return TPH_OK;
}

int tph_conf_from_node(yu_ctx *c, const yu_node *root, bool enable_flags_default, tph_conf **out)
{
	*out = NULL;
	tph_conf *conf = NULL;
	int rc = conf_new(c->file ? c->file : "<input>", enable_flags_default, &conf, c->d);
	if (rc < 0)
		return rc;
	conf_ld L = {.c = *c, .conf = conf};
	L.c.arena = &conf->arena;
	L.c.depth = 0;
	yu_set_obj(&L.c, "conf", NULL, NULL, -1);
	rc = yu_walk(&L.c, root, root_fields, sizeof root_fields / sizeof root_fields[0], &L);
	if (rc == TPH_OK && !yu_map_find(&L.c, root, "actions")) {
		yu_set_obj(&L.c, NULL, NULL, NULL, -1); /* the message names it */
		rc = yu_err(&L.c, root, TPH_EINVAL, NO_ACTIONS);
	}
	if (rc < 0) {
		tph_conf_free(conf);
		return rc;
	}
	*out = conf;
	return TPH_OK;
}

int tph_conf_load_embedded(const char *text, size_t len, const char *file, int line_base,
                           int col_base, bool enable_flags_default, tph_conf **out, tph_diag *d)
{
	*out = NULL;
	yu_doc doc;
	int rc = yu_load(text, len, file, line_base, col_base, &doc, d);
	if (rc < 0)
		return rc;
	yu_node *root = (doc.root == YU_NONE ? NULL : &doc.nodes[doc.root]);
	if (!root || yu_is_null(root)) {
		rc = tph_diag_set(d, TPH_EINVAL, "%s:%d:%d: " NO_ACTIONS ": it is empty", file,
		                  line_base + 1, col_base + 1);
	} else {
		yu_ctx c;
		yu_ctx_init(&c, &doc, file, NULL, d);
		c.line_base = line_base;
		c.col_base = col_base;
		rc = tph_conf_from_node(&c, root, enable_flags_default, out);
	}
	yu_doc_free(&doc);
	return rc;
}

int tph_conf_load_string(const char *text, size_t len, const char *display_name,
                         bool enable_flags_default, tph_conf **out, tph_diag *d)
{
	tph_diag_begin(d);
	if (!out)
		return tph_diag_set(d, TPH_EINVAL, "conf: no output");
	*out = NULL;
	if (!text && len)
		return tph_diag_set(d, TPH_EINVAL, "conf: no text");
	return tph_conf_load_embedded(text, len, display_name ? display_name : "<conf>", 0, 0,
	                              enable_flags_default, out, d);
}

int tph_conf_load_file(const char *path, bool enable_flags_default, tph_conf **out, tph_diag *d)
{
	tph_diag_begin(d);
	if (!out || !path)
		return tph_diag_set(d, TPH_EINVAL, "conf: no path or no output");
	*out = NULL;
	char *buf;
	size_t len;
	int rc = yu_read_file(path, &buf, &len, d);
	if (rc < 0)
		return rc;
	rc = tph_conf_load_string(buf, len, path, enable_flags_default, out, d);
	yu_free(buf);
	return rc;
}

void tph_conf_hold(const tph_conf *conf)
{
	/* the count is not part of the conf's value: holding a const conf is fine */
	atomic_fetch_add_explicit(&((tph_conf *)conf)->refs, 1, memory_order_relaxed);
}

void tph_conf_free(tph_conf *conf)
{
	if (!conf || atomic_fetch_sub_explicit(&conf->refs, 1, memory_order_acq_rel) > 1)
		return;
	yu_arena_free(&conf->arena);
	yu_free(conf);
}

/* ---- accessors
 * ------------------------------------------------------------------------------------- */

const tph_conf_action_args *tph_conf_find_action_args(const tph_conf *conf, const char *action)
{
	for (uint32_t i = 0; conf && i < conf->n_configurations; i++)
		if (strcmp(conf->configurations[i].name, action) == 0)
			return &conf->configurations[i];
	return NULL;
}

uint32_t tph_conf_action_count(const tph_conf *conf)
{
	return conf ? conf->n_actions : 0;
}

const char *tph_conf_action(const tph_conf *conf, uint32_t i)
{
	return conf && i < conf->n_actions ? conf->actions[i] : NULL;
}

uint32_t tph_conf_tier_count(const tph_conf *conf)
{
	return conf ? conf->n_tiers : 0;
}

uint32_t tph_conf_plugin_count(const tph_conf *conf, uint32_t tier)
{
	return conf && tier < conf->n_tiers ? conf->tiers[tier].n_plugins : 0;
}

static const tph_conf_plugin *plugin_at(const tph_conf *conf, uint32_t tier, uint32_t i)
{
	if (!conf || tier >= conf->n_tiers || i >= conf->tiers[tier].n_plugins)
		return NULL;
	return &conf->tiers[tier].plugins[i];
}

const char *tph_conf_plugin_name(const tph_conf *conf, uint32_t tier, uint32_t i)
{
	const tph_conf_plugin *p = plugin_at(conf, tier, i);
	return p ? p->name : NULL;
}

int tph_conf_flag_raw(const tph_conf *conf, uint32_t tier, uint32_t i, tph_conf_flag f)
{
	const tph_conf_plugin *p = plugin_at(conf, tier, i);
	return p && (unsigned)f < TPH_FLAG_COUNT ? p->flags[f] : -1;
}

bool tph_conf_flag_on(const tph_conf *conf, uint32_t tier, uint32_t i, tph_conf_flag f)
{
	int raw = tph_conf_flag_raw(conf, tier, i, f);
	if (raw >= 0)
		return raw == 1;
	return plugin_at(conf, tier, i) && tph_conf_flag_follows_default(f) &&
	       conf->enable_flags_default;
}

bool tph_conf_enable_flags_default(const tph_conf *conf)
{
	return conf && conf->enable_flags_default;
}
