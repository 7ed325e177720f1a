/* Scenario loading, top level: parse the document, read the top-level keys, the conf and the
 * sections in dependency order, apply the `now` default, then fill a fresh cache. Section
 * readers live in scenario_objects.c, scenario_topo.c, scenario_pods.c and scenario_expect.c. */
#include "kai_ld.h"

#include "base/diag.h"

#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- shared helpers ------------------------------------------------------------------------- */

int sc_nomem(sc_ld *L, const yu_node *n)
{
	return yu_err(&L->c, n, TPH_ENOMEM, "out of memory");
}

const char *sc_peek(sc_ld *L, const yu_node *map, const char *key)
{
	yu_node *v = yu_map_find(&L->c, map, key);
	return v && v->type == YU_SCALAR && !yu_is_null(v) && v->len ? yu_sv(v) : NULL;
}

void sc_begin_obj(sc_ld *L, const char *kind, const yu_node *item, bool namespaced, uint32_t i)
{
	const char *ns = NULL;
	if (namespaced) {
		ns = sc_peek(L, item, "namespace");
		ns = ns ? ns : "default";
	}
	yu_set_obj(&L->c, kind, ns, sc_peek(L, item, "name"), (long)i);
	L->c.depth = 0;
}

int sc_each(sc_ld *L, const yu_node *seq, const char *key, sc_item_fn fn)
{
	return sc_each_then(L, seq, key, fn, NULL);
}

int sc_each_then(sc_ld *L, const yu_node *seq, const char *key, sc_item_fn fn, sc_item_fn then)
{
	yu_set_obj(&L->c, "scenario", NULL, NULL, -1);
	yu_push(&L->c, key);
	int rc = yu_want_seq(&L->c, seq);
	yu_pop(&L->c);
	for (uint32_t i = 0; rc == TPH_OK && i < (uint32_t)yu_seq_len(seq); i++) {
		yu_node *item = yu_at(&L->c, seq->u.items[i]);
		rc = fn(L, item, i);
		if (rc == TPH_OK && then)
			rc = then(L, item, i);
	}
	L->c.depth = 0;
	yu_set_obj(&L->c, "scenario", NULL, NULL, -1);
	return rc;
}

int sc_register(sc_ld *L, yu_map *map, const yu_node *at, const char *a, const char *b, uint32_t i,
                const char *what)
{
	uint32_t old;
	int rc = yu_map_put(map, a, strlen(a), b, b ? strlen(b) : 0, i, &old);
	if (rc < 0)
		return sc_nomem(L, at);
	if (rc == 0)
		return yu_err(&L->c, at, TPH_EEXIST, "duplicate %s %s%s%s", what, b ? a : "",
		              b ? "/" : "", b ? b : a);
	return TPH_OK;
}

static const char *str_at(const void *items, uint32_t i, size_t size, size_t off)
{
	return *(const char *const *)((const char *)items + (size_t)i * size + off);
}

int sc_find_repeat(const void *items, uint32_t n, size_t size, size_t off, uint32_t *at)
{
	*at = UINT32_MAX;
	if (n <= 16) {
		for (uint32_t i = 1; i < n && *at == UINT32_MAX; i++)
			for (uint32_t j = 0; j < i && *at == UINT32_MAX; j++)
				if (!strcmp(str_at(items, i, size, off),
				            str_at(items, j, size, off)))
					*at = i;
		return TPH_OK;
	}
	yu_map seen;
	if (yu_map_init(&seen, n) < 0)
		return TPH_ENOMEM;
	int rc = TPH_OK;
	for (uint32_t i = 0; i < n && rc == TPH_OK && *at == UINT32_MAX; i++) {
		const char *s = str_at(items, i, size, off);
		int put = yu_map_put(&seen, s, strlen(s), NULL, 0, i, NULL);
		if (put < 0)
			rc = TPH_ENOMEM;
		else if (put == 0)
			*at = i;
	}
	yu_map_free(&seen);
	return rc;
}

void sc_zero_time(tph_time *t)
{
	if (*t == TPH_GO_ZERO_TIME_MS)
		*t = 0;
}

void sc_note_creation(sc_ld *L, tph_time *t)
{
	sc_zero_time(t);
	if (*t > L->latest)
		L->latest = *t;
}

void *sc_alloc_items(sc_ld *L, const yu_node *seq, size_t size, uint32_t *n)
{
	size_t cnt = seq->type == YU_SEQ ? yu_seq_len(seq) : 0;
	void *arr = yu_alloc_array(&L->sc->arena, cnt, size);
	if (!arr)
		sc_nomem(L, seq);
	*n = (uint32_t)cnt;
	return arr;
}

int sc_f_preempt_never(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	static const char *const policies[] = {"PreemptLowerPriority", "Never", NULL};
	int which;
	int rc = yu_enum(c, v, policies, &which);
	if (rc == TPH_OK)
		*(bool *)dst = which == 1;
	return rc;
}

int sc_f_key(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	int rc = yu_want_scalar(c, v, "a string");
	if (rc == TPH_OK && v->len == 0)
		rc = yu_err(c, v, TPH_EINVAL, "must not be empty");
	return rc < 0 ? rc : yu_str(c, v, (const char **)dst);
}

int sc_f_unsupported(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_err(c, v, TPH_ENOTSUP, "not supported by tephra");
}

int sc_seq(yu_ctx *c, const yu_node *v, size_t size, void **items, uint32_t *n,
           int (*fn)(yu_ctx *c, yu_node *item, void *dst))
{
	int rc = yu_want_seq(c, v);
	if (rc < 0)
		return rc;
	size_t cnt = yu_seq_len(v);
	char *arr = yu_alloc_array(c->arena, cnt, size);
	if (!arr)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	for (size_t i = 0; i < cnt && rc == TPH_OK; i++) {
		yu_push_idx(c, (int32_t)i);
		rc = fn(c, yu_at(c, v->u.items[i]), arr + i * size);
		yu_pop(c);
	}
	*items = arr;
	*n = (uint32_t)cnt;
	return rc;
}

/* ---- top level ------------------------------------------------------------------------------- */

int sc_f_stash(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	*(yu_node **)dst = v;
	return TPH_OK;
}

#define SEC(key, id)                                                                      \
	{                                                                                 \
		key, sc_f_stash, offsetof(sc_ld, sec) + (id) * sizeof(yu_node *), NULL, 0 \
	}

static const yu_field top_fields[] = {
    SEC("flavour", SEC_FLAVOUR),
    SEC("name", SEC_NAME),
    SEC("now", SEC_NOW),
    SEC("conf", SEC_CONF),
    SEC("confFile", SEC_CONF_FILE),
    SEC("enableFlagsDefault", SEC_EFD),
    SEC("nodeSampling", SEC_SAMPLING),
    SEC("priorityClasses", SEC_PCLASSES),
    SEC("queues", SEC_QUEUES),
    SEC("nodes", SEC_NODES),
    SEC("hyperNodes", SEC_HYPERNODES),
    SEC("resourceQuotas", SEC_QUOTAS),
    SEC("podDisruptionBudgets", SEC_PDBS),
    SEC("shard", SEC_SHARD),
    SEC("extenderResponses", SEC_EXT_RESPONSES),
    SEC("podGroups", SEC_PODGROUPS),
    SEC("pods", SEC_PODS),
    SEC("expect", SEC_EXPECT),
    SEC("probe", SEC_PROBE),
    SC_KAI_ONLY("schedulerParams"),
    SC_KAI_ONLY("topologies"),
};

/* The indentation a literal block's header fixes (`|2`: two more than the line holding it), or
 * -1 without an indicator. `at` is the start of the indicator's line. */
static int block_indicator(const sc_ld *L, size_t at, const yu_node *v)
{
	size_t indent = 0, p = at + v->col;
	while (at + indent < L->len && L->buf[at + indent] == ' ')
		indent++;
	if (p >= L->len || L->buf[p] != '|')
		return -1; /* not where libyaml's column says: non-ASCII before it */
	for (p++; p < L->len && (L->buf[p] == '+' || L->buf[p] == '-'); p++)
		;
	return p < L->len && L->buf[p] >= '1' && L->buf[p] <= '9' ? (int)indent + (L->buf[p] - '0')
	                                                          : -1;
}

/* Where the content of a literal block scalar starts: the line after its indicator, at the
 * indentation its header gives or else that of its first non-blank line (libyaml gives the
 * indicator's position). */
static void block_origin(const sc_ld *L, const yu_node *v, int *line, int *col)
{
	size_t i = 0, len = L->len, at = 0;
	for (size_t l = 0; l <= v->line && i < len; i++)
		if (L->buf[i] == '\n' && ++l == v->line)
			at = i + 1;
	*line = (int)v->line + 1;
	*col = block_indicator(L, v->line ? at : 0, v);
	if (*col >= 0)
		return;
	*col = 0;
	while (i < len) {
		size_t s = i;
		while (i < len && L->buf[i] == ' ')
			i++;
		if (i < len && L->buf[i] != '\n' && L->buf[i] != '\r') {
			*col = (int)(i - s);
			return;
		}
		while (i < len && L->buf[i] != '\n')
			i++;
		i++;
	}
}

static int load_conf_text(sc_ld *L, const yu_node *v)
{
	int line = (int)v->line, col = (int)v->col;
	if (v->style == YAML_LITERAL_SCALAR_STYLE)
		block_origin(L, v, &line, &col);
	tph_scenario *sc = L->sc;
	if (L->kai)
		return tph_kai_conf_load_embedded(yu_sv(v), v->len, sc->file, line, col, &sc->conf,
		                                  L->c.d);
	return tph_conf_load_embedded(yu_sv(v), v->len, sc->file, line, col,
	                              sc->enable_flags_default, &sc->conf, L->c.d);
}

static int load_conf_file(sc_ld *L, const yu_node *v)
{
	tph_scenario *sc = L->sc;
	const char *rel;
	int rc = yu_want_scalar(&L->c, v, "a path");
	if (rc == TPH_OK && v->len == 0)
		rc = yu_err(&L->c, v, TPH_EINVAL, "must not be empty");
	if (rc == TPH_OK)
		rc = yu_str(&L->c, v, &rel);
	if (rc < 0)
		return rc;
	size_t dl = strlen(sc->dir), rl = strlen(rel);
	char *path = yu_alloc(&sc->arena, dl + rl + 2);
	if (!path)
		return sc_nomem(L, v);
	if (rel[0] == '/')
		memcpy(path, rel, rl + 1);
	else
		memcpy(path, sc->dir, dl), path[dl] = '/', memcpy(path + dl + 1, rel, rl + 1);
	/* A device or a FIFO named by the file could be endless or block forever. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return yu_err(&L->c, v, TPH_EINVAL, "%s: not a regular file", path);
	char *buf;
	size_t len;
	tph_diag tmp = {0};
	rc = yu_read_file(path, &buf, &len, &tmp);
	if (rc < 0)
		return yu_err(&L->c, v, rc, "%s", tmp.msg);
	rc = L->kai ? tph_conf_load_kai_string(buf, len, path, &sc->conf, L->c.d)
	            : tph_conf_load_string(buf, len, path, sc->enable_flags_default, &sc->conf,
	                                   L->c.d);
	yu_free(buf);
	return rc;
}

static int load_conf(sc_ld *L)
{
	yu_node *conf = L->sec[SEC_CONF], *file = L->sec[SEC_CONF_FILE];
	int rc = TPH_OK;
	if (conf && file) {
		yu_node *later =
		    conf->line > file->line || (conf->line == file->line && conf->col > file->col)
		        ? conf
		        : file;
		yu_push(&L->c, later == conf ? "conf" : "confFile");
		rc = yu_err(&L->c, later, TPH_EINVAL, "conf and confFile are mutually exclusive");
	} else if (file) {
		yu_push(&L->c, "confFile");
		rc = load_conf_file(L, file);
	} else if (conf && conf->type == YU_SCALAR) {
		rc = load_conf_text(L, conf);
	} else if (conf) {
		yu_push(&L->c, "conf");
		rc = yu_want_map(&L->c, conf);
		if (rc == TPH_OK && L->kai)
			rc = tph_kai_conf_from_node(&L->c, conf, &L->sc->conf);
		else if (rc == TPH_OK)
			rc = tph_conf_from_node(&L->c, conf, L->sc->enable_flags_default,
			                        &L->sc->conf);
	}
	L->c.depth = 0;
	return rc;
}

int sc_load_header(sc_ld *L)
{
	tph_scenario *sc = L->sc;
	int rc = TPH_OK;
	sc->name = "";
	sc->enable_flags_default = true;
	if (L->sec[SEC_NAME]) {
		yu_push(&L->c, "name");
		rc = yu_str(&L->c, L->sec[SEC_NAME], &sc->name);
		yu_pop(&L->c);
	}
	if (rc == TPH_OK && L->sec[SEC_NOW]) {
		yu_push(&L->c, "now");
		rc = yu_time(&L->c, L->sec[SEC_NOW], &sc->now);
		sc->now_given = true;
		yu_pop(&L->c);
	}
	if (rc == TPH_OK && L->sec[SEC_EFD]) {
		yu_push(&L->c, "enableFlagsDefault");
		rc = yu_bool(&L->c, L->sec[SEC_EFD], &sc->enable_flags_default);
		yu_pop(&L->c);
	}
	if (rc == TPH_OK && L->sec[SEC_SAMPLING]) {
		static const char *const modes[] = {"full", "volcano", NULL};
		int m = 0;
		yu_push(&L->c, "nodeSampling");
		rc = yu_enum(&L->c, L->sec[SEC_SAMPLING], modes, &m);
		sc->sampling = m ? TPH_SAMPLING_VOLCANO : TPH_SAMPLING_FULL;
		yu_pop(&L->c);
	}
	return rc == TPH_OK ? load_conf(L) : rc;
}

static size_t sec_len(const sc_ld *L, int id)
{
	const yu_node *n = L->sec[id];
	return n && n->type == YU_SEQ ? yu_seq_len(n) : 0;
}

int sc_init_maps(sc_ld *L)
{
	if (yu_map_init(&L->names, sec_len(L, SEC_NODES) + sec_len(L, SEC_HYPERNODES)) < 0 ||
	    yu_map_init(&L->topologies, sec_len(L, SEC_KAI_TOPOLOGIES)) < 0 ||
	    yu_map_init(&L->pods, sec_len(L, SEC_PODS)) < 0 ||
	    yu_map_init(&L->podgroups, sec_len(L, SEC_PODGROUPS)) < 0 ||
	    yu_map_init(&L->queues, sec_len(L, SEC_QUEUES)) < 0 ||
	    yu_map_init(&L->pclasses, sec_len(L, SEC_PCLASSES)) < 0 ||
	    yu_map_init(&L->quotas, sec_len(L, SEC_QUOTAS)) < 0 ||
	    yu_map_init(&L->pdbs, sec_len(L, SEC_PDBS)) < 0)
		return tph_diag_set(L->c.d, TPH_ENOMEM, "%s: out of memory", L->sc->file);
	return TPH_OK;
}

static void free_maps(sc_ld *L)
{
	yu_map_free(&L->names);
	yu_map_free(&L->topologies);
	yu_map_free(&L->pods);
	yu_map_free(&L->podgroups);
	yu_map_free(&L->queues);
	yu_map_free(&L->pclasses);
	yu_map_free(&L->quotas);
	yu_map_free(&L->pdbs);
}

/* Queues, then their parents checked, before anything that names a queue is read. */
static int load_queues(sc_ld *L, const yu_node *n)
{
	int rc = sc_load_queues(L, n);
	return rc == TPH_OK ? sc_check_queue_parents(L) : rc;
}

static const sc_step section_order[] = {
    {SEC_PCLASSES, sc_load_pclasses},   {SEC_QUEUES, load_queues},
    {SEC_NODES, sc_load_nodes},         {SEC_HYPERNODES, sc_load_hypernodes},
    {SEC_QUOTAS, sc_load_quotas},       {SEC_PDBS, sc_load_pdbs},
    {SEC_SHARD, sc_load_shard},         {SEC_EXT_RESPONSES, sc_load_ext_responses},
    {SEC_PODGROUPS, sc_load_podgroups}, {SEC_PODS, sc_load_pods},
    {SEC_EXPECT, sc_load_expect},       {SEC_PROBE, sc_load_probe},
};

int sc_decode_sections(sc_ld *L, const yu_node *root, const yu_field *top, size_t n_top,
                       const sc_step *order, size_t n_order)
{
	int rc = yu_walk(&L->c, root, top, n_top, L);
	if (rc == TPH_OK)
		rc = sc_load_header(L);
	if (rc == TPH_OK)
		rc = sc_init_maps(L);
	for (size_t i = 0; rc == TPH_OK && i < n_order; i++) {
		const yu_node *n = L->sec[order[i].id];
		if (n)
			rc = order[i].fn(L, n);
	}
	if (rc == TPH_OK && !L->sc->now_given)
		L->sc->now = L->latest;
	return rc;
}

/* The flavour decides how the rest of the file reads, so it is checked before anything else
 * (a kai scenario's keys are unknown to the volcano reader). */
static int check_flavour(sc_ld *L, const yu_node *root)
{
	static const char *const flavours[] = {"volcano", "kai", NULL};
	yu_node *v = yu_map_find(&L->c, root, "flavour");
	if (!v || yu_is_null(v))
		return TPH_OK;
	int which;
	yu_push(&L->c, "flavour");
	int rc = yu_enum(&L->c, v, flavours, &which);
	yu_pop(&L->c);
	L->kai = rc == TPH_OK && which == 1;
	L->sc->flavour = L->kai ? TPH_CONF_KAI : TPH_CONF_VOLCANO;
	return rc;
}

int sc_f_other_flavour(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	const char *flavour = aux;
	return yu_err(c, v, TPH_EINVAL, "only a %s scenario has this key", flavour);
}

static int decode(sc_ld *L, const yu_node *root)
{
	yu_set_obj(&L->c, "scenario", NULL, NULL, -1);
	if (root->type != YU_MAP)
		return yu_err(&L->c, root, TPH_EINVAL, "a scenario must be a mapping, got %s",
		              yu_kind(root));
	int rc = check_flavour(L, root);
	if (rc == TPH_OK && L->kai)
		return sc_kai_decode(L, root);
	if (rc == TPH_OK)
		rc = sc_decode_sections(L, root, top_fields,
		                        sizeof top_fields / sizeof top_fields[0], section_order,
		                        sizeof section_order / sizeof section_order[0]);
	return rc;
}

/* ---- entry points ---------------------------------------------------------------------------- */

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int scenario_new(const char *name, tph_scenario **out, tph_diag *d)
{
	tph_scenario *sc = yu_calloc(1, sizeof *sc);
	if (!sc)
		return tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", name);
	const char *slash = strrchr(name, '/');
	sc->file = yu_strndup(&sc->arena, name, strlen(name));
	sc->dir =
	    slash ? yu_strndup(&sc->arena, name, slash == name ? 1 : (size_t)(slash - name)) : ".";
	sc->expect.bind_count = sc->expect.eviction_count = -1;
	*out = sc;
	if (!sc->file || !sc->dir) {
		tph_scenario_free(sc);
		*out = NULL;
		return tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", name);
	}
	return TPH_OK;
}

/* Decode the document, free it (its pages are then reused by the cache), fill the cache. */
static int load_doc(tph_scenario *sc, const char *buf, size_t len, yu_doc *doc, tph_diag *d)
{
	yu_node *root = doc->root == YU_NONE ? NULL : &doc->nodes[doc->root];
	if (!root || yu_is_null(root)) {
		yu_doc_free(doc);
		return tph_diag_set(d, TPH_EINVAL, "%s:1:1: scenario: the file is empty", sc->file);
	}
	sc_ld L = {.sc = sc, .buf = buf, .len = len};
	yu_ctx_init(&L.c, doc, sc->file, &sc->arena, d);
	double t0 = now_ms();
	int rc = decode(&L, root);
	yu_arena_adopt(&sc->arena, &doc->strs); /* the decoded strings point into it */
	yu_doc_free(doc);
	L.c.doc = NULL;
	double t1 = now_ms();
	if (rc == TPH_OK)
		rc = sc_build(&L);
	sc->decode_ms = t1 - t0;
	sc->build_ms = now_ms() - t1;
	free_maps(&L);
	return rc;
}

int tph_scenario_load_buffer(const char *buf, size_t len, const char *display_name,
                             tph_scenario **out, tph_diag *d)
{
	tph_diag_begin(d);
	if (!out || (!buf && len))
		return tph_diag_set(d, TPH_EINVAL, "scenario: no buffer or no output");
	*out = NULL;
	tph_scenario *sc;
	int rc = scenario_new(display_name ? display_name : "<buffer>", &sc, d);
	if (rc < 0)
		return rc;
	yu_doc doc;
	double t0 = now_ms();
	rc = yu_load_parallel(buf, len, sc->file, &doc, d);
	sc->parse_ms = now_ms() - t0;
	if (rc == TPH_OK)
		rc = load_doc(sc, buf, len, &doc, d); /* frees doc */
	if (rc < 0) {
		tph_scenario_free(sc);
		return rc;
	}
	*out = sc;
	return TPH_OK;
}

int tph_scenario_load_file(const char *path, tph_scenario **out, tph_diag *d)
{
	tph_diag_begin(d);
	if (!out || !path)
		return tph_diag_set(d, TPH_EINVAL, "scenario: no path or no output");
	*out = NULL;
	char *buf;
	size_t len;
	int rc = yu_read_file(path, &buf, &len, d);
	if (rc < 0)
		return rc;
	rc = tph_scenario_load_buffer(buf, len, path, out, d);
	yu_free(buf);
	return rc;
}

void tph_scenario_free(tph_scenario *s)
{
	if (!s)
		return;
	if (s->cluster)
		tph_cluster_destroy(s->cluster);
	tph_conf_free(s->conf);
	yu_arena_free(&s->arena);
	yu_free(s);
}

/* ---- accessors
 * ------------------------------------------------------------------------------------ */

const char *tph_scenario_file(const tph_scenario *s)
{
	return s->file;
}

const char *tph_scenario_name(const tph_scenario *s)
{
	return s->name ? s->name : "";
}

tph_time tph_scenario_now(const tph_scenario *s)
{
	return s->now;
}

tph_cluster *tph_scenario_cluster(tph_scenario *s)
{
	return s->cluster;
}

const tph_conf *tph_scenario_conf(const tph_scenario *s)
{
	return s->conf;
}

const tph_kai_cluster_desc *tph_scenario_kai_cluster(const tph_scenario *s)
{
	return s->kai ? &s->kai->cluster : NULL;
}

tph_conf_flavour tph_scenario_flavour(const tph_scenario *s)
{
	return s->flavour;
}

bool tph_scenario_enable_flags_default(const tph_scenario *s)
{
	return s->enable_flags_default;
}

bool tph_scenario_has_expect(const tph_scenario *s)
{
	return s->expect.present;
}

bool tph_scenario_has_probe(const tph_scenario *s)
{
	return s->probe.present;
}

uint32_t tph_scenario_pdb_count(const tph_scenario *s)
{
	return s->n_pdbs;
}

const tph_pdb_desc *tph_scenario_pdb(const tph_scenario *s, uint32_t i)
{
	return i < s->n_pdbs ? &s->pdbs[i].d : NULL;
}

uint32_t tph_scenario_extender_response_count(const tph_scenario *s)
{
	return s->n_ext_responses;
}

const tph_extender_response *tph_scenario_extender_response(const tph_scenario *s, uint32_t i)
{
	return i < s->n_ext_responses ? &s->ext_responses[i].r : NULL;
}

void tph_scenario_load_times(const tph_scenario *s, double *parse_ms, double *decode_ms,
                             double *build_ms)
{
	if (parse_ms)
		*parse_ms = s->parse_ms;
	if (decode_ms)
		*decode_ms = s->decode_ms;
	if (build_ms)
		*build_ms = s->build_ms;
}
