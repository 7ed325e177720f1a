/* Helpers over libyaml's document API, shared by the scenario and conf loaders.
 *
 * An arena owns everything a loaded object keeps (one free at the end); a small open-addressing
 * map indexes names; a reading context carries the file name, the object being read and the
 * field path, so every error comes out as
 *     FILE:LINE:COL: pod c1/p1: field requests.cpu: not a number ("abc")
 * Typed readers (strings, booleans, integers, floats, quantities, RFC 3339 timestamps, Go
 * durations, string maps and lists) and a table-driven mapping walker that rejects unknown and
 * duplicate keys sit on top. */
#ifndef TPH_YAML_UTIL_H
#define TPH_YAML_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "tephra/args.h" /* tph_parse_duration */
#include "tephra/cluster.h"
#include "tephra/status.h"

/* ---- allocation ------------------------------------------------------------------------- */

/* Every allocation the loaders make goes through these: the kernel allocator (mem.h), so the
 * fault-injection hook covers the loaders. libyaml's own allocations are not covered. */
void *yu_malloc(size_t n);
void *yu_calloc(size_t n, size_t size);
void yu_free(void *p);

/* A hint that the `size` bytes at `p`, about to be written front to back, should get huge
 * pages: a load touches a few hundred megabytes once, and a page fault per 4 KiB costs more
 * than the parsing. Only the aligned middle is advised (the ends may be shared); regions
 * below a few huge pages are left alone. */
void yu_huge_pages(void *p, size_t size);

/* Bump allocator: 8-byte aligned blocks (strings unaligned) that live until yu_arena_free(). A
 * zeroed struct is an empty arena. Every function returns NULL when memory runs out. */
typedef struct yu_chunk yu_chunk;
typedef struct yu_arena {
	yu_chunk *head;
	char *cur;
	char *end;
} yu_arena;

void *yu_alloc(yu_arena *a, size_t size);
/* `n` zeroed elements of `size` bytes (overflow-checked); n == 0 gives a valid empty block. */
void *yu_alloc_array(yu_arena *a, size_t n, size_t size);
/* Copy `n` bytes and a NUL. */
char *yu_strndup(yu_arena *a, const char *s, size_t n);
void yu_arena_free(yu_arena *a);
/* Move every block of `src` into `dst` (freed with it); `src` becomes empty. */
void yu_arena_adopt(yu_arena *dst, yu_arena *src);

/* ---- string map --------------------------------------------------------------------------- */

/* Keys are one or two strings (a, b) — e.g. (namespace, name) — borrowed, not copied; they must
 * outlive the map. Values are uint32 indices. */
typedef struct yu_slot {
	uint64_t h;
	const char *a;
	const char *b;
	uint32_t alen;
	uint32_t blen;
	uint32_t val;
} yu_slot;

typedef struct yu_map {
	yu_slot *slots; /* a == NULL: empty slot */
	uint32_t mask;
	uint32_t count;
} yu_map;

int yu_map_init(yu_map *m, size_t expected);
void yu_map_free(yu_map *m);
/* Insert (a, b) -> val. Returns 1 if inserted, 0 if the key was present (then *old, if not
 * NULL, receives its value and nothing changes), TPH_ENOMEM on failure. */
int yu_map_put(yu_map *m, const char *a, size_t alen, const char *b, size_t blen, uint32_t val,
               uint32_t *old);
/* Insert or overwrite. */
int yu_map_set(yu_map *m, const char *a, size_t alen, const char *b, size_t blen, uint32_t val);
bool yu_map_get(const yu_map *m, const char *a, size_t alen, const char *b, size_t blen,
                uint32_t *val);
/* Start loading the slot a put or get of (a, b) reads first (a hint for bulk inserts, whose
 * every probe misses the cache). */
void yu_map_prefetch(const yu_map *m, const char *a, size_t alen, const char *b, size_t blen);

/* ---- pure parsers --------------------------------------------------------------------------- */

/* RFC 3339 (`2026-01-01T00:10:00Z`, `…T00:10:00.250+02:00`; `t`/`z` accepted) to milliseconds
 * since the epoch, UTC; fractions below a millisecond are truncated. On error returns
 * TPH_EINVAL and sets *why to a static reason. */
int tph_parse_time(const char *s, size_t len, tph_time *out, const char **why);

/* ---- documents ------------------------------------------------------------------------------- */

typedef enum yu_type {
	YU_SCALAR = 1,
	YU_SEQ = 2,
	YU_MAP = 3,
} yu_type;

typedef struct yu_pair {
	uint32_t key;
	uint32_t value;
} yu_pair;

/* A compact node (24 bytes): a document is one array of these plus one arena for texts and
 * child lists. Aliases share the anchored node's id. */
typedef struct yu_node {
	uint8_t type;  /* yu_type */
	uint8_t style; /* a scalar's yaml_scalar_style_t */
	uint32_t line; /* 0-based, as libyaml's marks */
	uint32_t col;  /* 0-based */
	uint32_t len;  /* scalar bytes, sequence items or mapping pairs */
	union {
		const char *str;       /* a scalar's text, NUL-terminated */
		const uint32_t *items; /* a sequence's item ids */
		const yu_pair *pairs;  /* a mapping's key and value ids */
	} u;
} yu_node;

#define YU_NONE UINT32_MAX

typedef struct yu_doc {
	yu_node *nodes;
	uint32_t n; /* next id */
	uint32_t cap;
	uint32_t root;       /* YU_NONE: an empty stream */
	yu_arena arena;      /* child lists */
	yu_arena strs;       /* scalar texts (equal short texts shared); adopt it to keep them */
	bool fixed;          /* nodes borrowed: fill ids [n, cap) only, never grow or free them */
	uint32_t line_shift; /* added to every node's line (a part of a larger file) */
	uint32_t depth;      /* collections around it in that file, for YU_MAX_DEPTH */
	uint32_t anchors;    /* distinct anchor names defined */
} yu_doc;

/* Equal short texts share one copy: keys and common values repeat on every object. A cache is
 * YU_TEXT_CACHE zeroed slots; yu_text copies `len` bytes and a NUL into `a` unless the cache
 * holds an equal text (NULL when memory runs out). */
#define YU_TEXT_CACHE 4096

typedef struct yu_text_slot {
	const char *s;
	uint32_t len;
	uint32_t h;
} yu_text_slot;

const char *yu_text(yu_text_slot *cache, yu_arena *a, const char *v, size_t len);

/* Bounds on a document, far above any real scenario (10k-standard: 3M nodes, 12 levels,
 * scalars under 300 bytes; Kubernetes caps an object's annotations at 256 KiB in total). Each
 * is checked as libyaml hands out events, before it reads far past the construct: it keeps
 * at most one line or 1024 bytes ahead of its events, so a bomb stops within that much input
 * (100,000 nested flow sequences cost libyaml quadratic time, 47 s unchecked). An excess is
 * `FILE:LINE:COL: YAML error: ...` at the construct. */
#define YU_MAX_DEPTH  1000       /* nested collections */
#define YU_MAX_SCALAR (1u << 20) /* bytes of one scalar */
#define YU_MAX_NODES  (1u << 26) /* nodes of one document (aliases not expanded) */
/* YU_MAX_NODES, lowered by tests (a document that reaches the real one takes gigabytes). */
extern uint32_t yu_max_nodes;

/* Parse `buf` into `doc` from libyaml's events (one document; a second one is an error).
 * Syntax errors are reported as `FILE:LINE:COL: YAML syntax error: ...`, with lines and
 * columns shifted by the bases. On success free `doc` with yu_doc_free(); on error nothing is
 * left to free. */
int yu_load(const char *buf, size_t len, const char *file, int line_base, int col_base, yu_doc *doc,
            tph_diag *d);
void yu_doc_free(yu_doc *doc);

/* yu_load into a document the caller prepared (nodes, n, cap, fixed, line_shift set; root
 * YU_NONE; arenas empty). A fixed region that fills up fails with TPH_ERANGE. */
int yu_load_into(const char *buf, size_t len, const char *file, int line_base, int col_base,
                 yu_doc *doc, tph_diag *d);

/* The fast path for one chunk of the split: a block sequence whose items are one-line flow
 * mappings (`  - {name: p1, requests: {cpu: "2"}}`) with plain scalars of a safe alphabet and
 * double-quoted scalars without escapes, read into `doc` (prepared as for yu_load_into) as
 * yu_load_into would. TPH_DECLINED, with `doc` as it was, for anything else. */
int yu_fast_items(const char *buf, size_t len, yu_doc *doc);

/* yu_load for large inputs: the bulky top-level block sequences (pods:, nodes:, podGroups:)
 * are cut at item lines and parsed in parallel, then grafted into one document equal to what
 * yu_load gives; any input the split cannot prove equivalent is parsed by yu_load. */
int yu_load_parallel(const char *buf, size_t len, const char *file, yu_doc *doc, tph_diag *d);

/* Tuning (tests lower them): the input size from which yu_load_parallel splits, the smallest
 * chunk it cuts, and the number of threads (0: the online CPUs, at most 8). */
extern size_t yu_split_min_bytes;
extern size_t yu_split_min_chunk;
extern int yu_split_threads;
/* Threads for parallel loading: yu_split_threads if set, else $TPH_LOAD_THREADS, else the
 * online CPUs; at most 8. */
int yu_threads(void);

/* How many loads took the parallel path, and how many chunks of those the fast path
 * (statistics for tests and benchmarks). */
extern unsigned long yu_split_done;
extern unsigned long yu_fast_done;

/* ---- reading context --------------------------------------------------------------------------
 */

#define YU_PATH_MAX 12

typedef struct yu_path_elem {
	const char *key; /* NULL: a sequence index */
	int32_t idx;
} yu_path_elem;

typedef struct yu_ctx {
	const yu_doc *doc;
	const char *file; /* display name in messages */
	tph_diag *d;
	yu_arena *arena;      /* where readers copy what they return */
	int line_base;        /* added to libyaml's 0-based line before printing it 1-based */
	int col_base;         /* added to libyaml's 0-based column */
	const char *obj_kind; /* "pod", "conf tier 1 plugin", NULL: none */
	const char *obj_ns;   /* NULL: not namespaced */
	const char *obj_name; /* NULL: unnamed, shown as "#<obj_index + 1>" */
	long obj_index;
	char obj_buf[64]; /* storage for a formatted obj_kind */
	int depth;
	yu_path_elem path[YU_PATH_MAX];
} yu_ctx;

void yu_ctx_init(yu_ctx *c, const yu_doc *doc, const char *file, yu_arena *arena, tph_diag *d);
/* Name the object being read (strings are borrowed; formatted only if an error happens). */
void yu_set_obj(yu_ctx *c, const char *kind, const char *ns, const char *name, long index);

static inline void yu_push(yu_ctx *c, const char *key)
{
	if (c->depth < YU_PATH_MAX)
		c->path[c->depth] = (yu_path_elem){key, 0};
	c->depth++;
}

static inline void yu_push_idx(yu_ctx *c, int32_t idx)
{
	if (c->depth < YU_PATH_MAX)
		c->path[c->depth] = (yu_path_elem){NULL, idx};
	c->depth++;
}

static inline void yu_pop(yu_ctx *c)
{
	c->depth--;
}

/* Write `FILE:LINE:COL: OBJECT: field PATH: <msg>` to the diag; returns `status`. */
int yu_err(yu_ctx *c, const yu_node *n, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Emit a located warning in the same shape. */
void yu_warn(yu_ctx *c, const yu_node *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* 1-based line and column of a node as printed in messages. */
uint32_t yu_line(const yu_ctx *c, const yu_node *n);
uint32_t yu_col(const yu_ctx *c, const yu_node *n);

/* ---- nodes -------------------------------------------------------------------------------------
 */

static inline yu_node *yu_at(const yu_ctx *c, uint32_t id)
{
	return &c->doc->nodes[id];
}

static inline const char *yu_sv(const yu_node *n)
{
	return n->u.str;
}

static inline bool yu_plain(const yu_node *n)
{
	return n->style == YAML_PLAIN_SCALAR_STYLE;
}

static inline size_t yu_seq_len(const yu_node *n)
{
	return n->len;
}

static inline size_t yu_map_len(const yu_node *n)
{
	return n->len;
}

/* A plain scalar that YAML reads as null: empty, `~`, `null`, `Null`, `NULL`. */
bool yu_is_null(const yu_node *n);
/* "a mapping", "a sequence", "null", "a boolean", "a number" or "a string". */
const char *yu_kind(const yu_node *n);
/* The value under `key` in a mapping whose keys are scalars, or NULL. */
yu_node *yu_map_find(const yu_ctx *c, const yu_node *map, const char *key);

int yu_want_map(yu_ctx *c, const yu_node *n);
int yu_want_seq(yu_ctx *c, const yu_node *n);
int yu_want_scalar(yu_ctx *c, const yu_node *n, const char *what);

/* ---- typed readers (errors name the current object and path) ----------------------------------
 */

/* Strings point into the document's string arena: whoever keeps them adopts that arena
 * (yu_arena_adopt) before the document is freed. */
int yu_str(yu_ctx *c, const yu_node *n, const char **out);  /* any scalar */
int yu_name(yu_ctx *c, const yu_node *n, const char **out); /* non-empty, no '/' */
int yu_bool(yu_ctx *c, const yu_node *n, bool *out);
int yu_int(yu_ctx *c, const yu_node *n, int64_t lo, int64_t hi, int64_t *out);
int yu_i32(yu_ctx *c, const yu_node *n, int32_t lo, int32_t hi, int32_t *out);
int yu_float(yu_ctx *c, const yu_node *n, double *out);
int yu_time(yu_ctx *c, const yu_node *n, tph_time *out);
int yu_duration(yu_ctx *c, const yu_node *n, int64_t *ns);
/* One of `names` (NULL-terminated); *out is its index. */
int yu_enum(yu_ctx *c, const yu_node *n, const char *const *names, int *out);
int yu_quantity(yu_ctx *c, const yu_node *n, const char *res, size_t res_len, int64_t *out);
/* A mapping whose keys are all scalars, none repeated (linear in the number of keys). */
int yu_check_unique_keys(yu_ctx *c, const yu_node *map);
int yu_res_list(yu_ctx *c, const yu_node *n, tph_res_list *out);
int yu_kv_list(yu_ctx *c, const yu_node *n, tph_kv_list *out);
int yu_str_list(yu_ctx *c, const yu_node *n, tph_str_list *out);

/* The JSON text of a node, copied into the context's arena (yaml_json.c): mappings as objects,
 * sequences as arrays, quoted scalars as strings, plain ones as null, booleans and numbers
 * where the loader reads them so (a number keeps its digits), else as strings. Duplicate keys
 * and nesting beyond 100 levels are errors. */
int yu_json(yu_ctx *c, const yu_node *n, const char **out);

/* Resolve YAML merge keys (a plain `<<` key whose value is a mapping or a sequence of them) in
 * every mapping of `doc`, as go-yaml does: a mapping keeps its own pairs and gains each merged
 * pair whose key it lacks, earlier sources first (yaml_merge.c). `c` (over `doc`) names the
 * file in errors: a merge of something else, or of a mapping into itself. */
int yu_resolve_merges(yu_ctx *c, yu_doc *doc);

/* ---- table-driven mappings ---------------------------------------------------------------------
 */

typedef int (*yu_field_fn)(yu_ctx *c, yu_node *v, void *dst, const void *aux);

typedef struct yu_field {
	const char *key;
	yu_field_fn fn;
	size_t off;      /* where in the target struct the handler writes */
	const void *aux; /* handler data (enum names, ...) */
	unsigned flags;
} yu_field;

#define YU_REQUIRED 1u

#define YU_F(key, fn, type, member, aux, flags)             \
	{                                                   \
		key, fn, offsetof(type, member), aux, flags \
	}

/* Walk a mapping: every key must be a scalar naming an entry of `tab` (at most 64 entries),
 * at most once. A null value counts as absent (the handler is not called; a required field
 * is then missing). Handlers run with the key pushed on the path. */
int yu_walk(yu_ctx *c, const yu_node *map, const yu_field *tab, size_t n, void *base);

/* Handlers for yu_walk. */
int yu_f_str(yu_ctx *c, yu_node *v, void *dst, const void *aux);      /* const char * */
int yu_f_name(yu_ctx *c, yu_node *v, void *dst, const void *aux);     /* const char * */
int yu_f_bool(yu_ctx *c, yu_node *v, void *dst, const void *aux);     /* bool */
int yu_f_bool_not(yu_ctx *c, yu_node *v, void *dst, const void *aux); /* bool, negated */
/* int: 1 true, 2 false; absent leaves the 0 of "unset" (tph_pod_preemptable) */
int yu_f_tristate(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int yu_f_i32(yu_ctx *c, yu_node *v, void *dst, const void *aux);        /* int32, any */
int yu_f_i32_nonneg(yu_ctx *c, yu_node *v, void *dst, const void *aux); /* int32 >= 0 */
int yu_f_i32_pos(yu_ctx *c, yu_node *v, void *dst, const void *aux);    /* int32 >= 1 */
int yu_f_float(yu_ctx *c, yu_node *v, void *dst, const void *aux);      /* double */
int yu_f_time(yu_ctx *c, yu_node *v, void *dst, const void *aux);       /* tph_time */
int yu_f_enum(yu_ctx *c, yu_node *v, void *dst, const void *aux);       /* int; aux: names */
int yu_f_res(yu_ctx *c, yu_node *v, void *dst, const void *aux);        /* tph_res_list */
int yu_f_kv(yu_ctx *c, yu_node *v, void *dst, const void *aux);         /* tph_kv_list */
int yu_f_strs(yu_ctx *c, yu_node *v, void *dst, const void *aux);       /* tph_str_list */

/* Read a whole file into a NUL-terminated heap buffer (free with yu_free). */
int yu_read_file(const char *path, char **buf, size_t *len, tph_diag *d);

#endif
