/* Parallel parsing of large scenario files. A scenario's bulk sits in a few top-level block
 * sequences (pods:, nodes:, podGroups:; a kubectl List's items:). Their bodies are cut into chunks
 * at item lines (a line of exactly the items' indentation followed by "- ") and each chunk parses
 * on its own as a block sequence, in parallel, into its own id range of one node array; the rest of
 * the file (the bodies removed) parses as the main part. The chunks' items are then grafted under
 * the section keys.
 *
 * Equivalence with a sequential parse: the text before each section key is unchanged, so the
 * main part proves the key is a top-level mapping key (checked: found at its line, column 0,
 * with an empty value); a chunk that parses as one block sequence ends every construct it
 * opened, so the next chunk's first line is an item of the same sequence; anchors never cross
 * parts (a chunk that defines one declines the split, an alias to another part fails). Any
 * doubt makes yu_load_parallel fall back to yu_load, so results and messages never depend on
 * the split. A chunk of one-line flow items parses without libyaml (yu_fast_items), which
 * gives the same nodes or declines. */
#include "base/mem.h"
#include "yaml_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t yu_split_min_bytes = (size_t)1 << 20; /* below, the parse takes a few ms anyway */
size_t yu_split_min_chunk = (size_t)256 << 10;
int yu_split_threads;
unsigned long yu_split_done;
unsigned long yu_fast_done;

#define MAX_SECTIONS 4
#define MAX_PARTS    64

/* items: a kubectl List (kernel/cli/kube) */
static const char *const section_keys[] = {"pods", "nodes", "podGroups", "items", NULL};

typedef struct section {
	size_t key_line;  /* 0-based line of "pods:" in the file */
	size_t body, end; /* byte range of the item lines */
	size_t lines;     /* lines in the body */
	uint32_t indent;  /* of the items' "-" */
	int first_part, n_parts;
} section;

typedef struct part {
	const char *text;
	size_t len;
	size_t line; /* 0-based line of text[0] in the file */
	yu_doc doc;
	uint32_t first; /* the first id of its region */
	int rc;
	bool fast; /* read by yu_fast_items */
} part;

typedef struct plan {
	const char *buf;
	size_t len;
	const char *file;
	section sec[MAX_SECTIONS];
	int n_sec;
	part parts[MAX_PARTS]; /* parts[0] is the main part */
	int n_parts;
	char *main_text;
	yu_node *nodes; /* shared by every part */
	uint32_t cap;
	atomic_int next; /* the next part to parse */
} plan;

/* ---- finding the sections ---------------------------------------------------------------- */

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl + 1 : end;
}

static bool blank_or_comment(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p == e || *p == '\n' || *p == '\r' || *p == '#';
}

static bool is_item(const char *p, const char *e, uint32_t indent)
{
	if ((size_t)(e - p) <= indent)
		return false;
	for (uint32_t i = 0; i < indent; i++)
		if (p[i] != ' ')
			return false;
	const char *q = p + indent;
	return *q == '-' && (q + 1 == e || q[1] == ' ' || q[1] == '\n' || q[1] == '\r');
}

/* "pods:" at column 0 with nothing but a comment after it. */
static bool section_key(const char *p, const char *e)
{
	for (int k = 0; section_keys[k]; k++) {
		size_t n = strlen(section_keys[k]);
		if ((size_t)(e - p) > n && memcmp(p, section_keys[k], n) == 0 && p[n] == ':' &&
		    blank_or_comment(p + n + 1, e))
			return true;
	}
	return false;
}

static bool add_part(plan *pl, const char *text, size_t len, size_t line)
{
	if (pl->n_parts >= MAX_PARTS)
		return false;
	pl->parts[pl->n_parts++] = (part){.text = text, .len = len, .line = line};
	return true;
}

/* Walk a section body from its first item line; cut a chunk at an item line once it holds
 * `target` bytes. Returns the end of the body. */
static const char *cut_body(plan *pl, section *s, const char *q, size_t line, size_t target)
{
	const char *end = pl->buf + pl->len, *start = q;
	size_t start_line = line;
	s->first_part = pl->n_parts;
	for (; q < end; line++) {
		const char *e = line_end(q, end);
		bool content = !blank_or_comment(q, e);
		if (content && *q != ' ' && *q != '\t' && !(s->indent == 0 && is_item(q, e, 0)))
			break;
		if (content && (size_t)(q - start) >= target && is_item(q, e, s->indent)) {
			if (!add_part(pl, start, (size_t)(q - start), start_line))
				return NULL;
			start = q;
			start_line = line;
		}
		q = e;
	}
	if (!add_part(pl, start, (size_t)(q - start), start_line))
		return NULL;
	s->n_parts = pl->n_parts - s->first_part;
	s->end = (size_t)(q - pl->buf);
	s->lines = line - (s->key_line + 1);
	return q;
}

/* A section: the key line, blank or comment lines, then an item line that fixes the indent. */
static const char *try_section(plan *pl, const char *p, size_t line, size_t target)
{
	const char *end = pl->buf + pl->len, *q = line_end(p, end);
	size_t ql = line + 1;
	section *s = &pl->sec[pl->n_sec];
	*s = (section){.key_line = line, .body = (size_t)(q - pl->buf)};
	while (q < end && blank_or_comment(q, line_end(q, end)))
		q = line_end(q, end), ql++;
	if (q == end)
		return NULL;
	const char *e = line_end(q, end);
	while (s->indent < (uint32_t)(e - q) && q[s->indent] == ' ')
		s->indent++;
	if (!is_item(q, e, s->indent))
		return NULL;
	/* the blank lines before the first item go with the body (they are removed from main) */
	return cut_body(pl, s, pl->buf + s->body, line + 1, target);
}

static bool find_sections(plan *pl, size_t target)
{
	const char *p = pl->buf, *end = pl->buf + pl->len;
	size_t line = 0, bulk = 0;
	pl->n_parts = 1; /* the main part */
	while (p < end) {
		const char *e = line_end(p, end);
		if (pl->n_sec < MAX_SECTIONS && section_key(p, e)) {
			int parts_before = pl->n_parts;
			const char *after = try_section(pl, p, line, target);
			if (after) {
				section *s = &pl->sec[pl->n_sec++];
				bulk += s->end - s->body;
				line += 1 + s->lines;
				p = after;
				continue;
			}
			pl->n_parts = parts_before;
		}
		p = e;
		line++;
	}
	return pl->n_sec > 0 && bulk >= pl->len / 2 && pl->n_parts > 2;
}

/* ---- parsing the parts ------------------------------------------------------------------------
 */

static int build_main(plan *pl)
{
	size_t removed = 0;
	for (int k = 0; k < pl->n_sec; k++)
		removed += pl->sec[k].end - pl->sec[k].body;
	size_t len = pl->len - removed, at = 0, from = 0;
	pl->main_text = yu_malloc(len + 1);
	if (!pl->main_text)
		return TPH_ENOMEM;
	for (int k = 0; k < pl->n_sec; k++) {
		memcpy(pl->main_text + at, pl->buf + from, pl->sec[k].body - from);
		at += pl->sec[k].body - from;
		from = pl->sec[k].end;
	}
	memcpy(pl->main_text + at, pl->buf + from, pl->len - from);
	pl->parts[0] = (part){.text = pl->main_text, .len = len, .line = 0};
	return TPH_OK;
}

/* Give every part a region of the shared node array: half a node per byte, a bound that
 * scenario text never reaches (a part that fills its region makes the split decline). */
static int assign_regions(plan *pl)
{
	uint64_t total = 0;
	for (int i = 0; i < pl->n_parts; i++)
		total += pl->parts[i].len / 2 + 64;
	if (total >= YU_NONE)
		return TPH_ERANGE;
	pl->nodes = yu_malloc((size_t)total * sizeof(yu_node));
	if (!pl->nodes)
		return TPH_ENOMEM;
	pl->cap = (uint32_t)total;
	uint32_t base = 0;
	for (int i = 0; i < pl->n_parts; i++) {
		part *pt = &pl->parts[i];
		uint32_t size = (uint32_t)(pt->len / 2 + 64);
		/* a chunk's items sit in the root mapping: one collection around them */
		pt->doc = (yu_doc){.nodes = pl->nodes,
		                   .n = base,
		                   .cap = base + size,
		                   .root = YU_NONE,
		                   .fixed = true,
		                   .line_shift = i ? (uint32_t)pt->line : 0,
		                   .depth = i ? 1 : 0};
		pt->first = base;
		/* huge pages only where nodes surely go: a node per 16 bytes is sparse for YAML,
		 * and a huge page touched at the end of what a part fills would be wasted */
		yu_huge_pages(pl->nodes + base, pt->len / 16 * sizeof(yu_node));
		base += size;
	}
	return TPH_OK;
}

/* TPH_YAML_FAST=0 sends every chunk to libyaml: the way to rule the fast path out when a
 * load looks wrong, and to measure what it saves. */
static bool fast_allowed(void)
{
	const char *env = getenv("TPH_YAML_FAST");
	return !env || strcmp(env, "0") != 0;
}

static void *worker(void *arg)
{
	plan *pl = arg;
	for (;;) {
		int i = atomic_fetch_add(&pl->next, 1);
		if (i >= pl->n_parts)
			return NULL;
		part *pt = &pl->parts[i];
		tph_diag scratch = {0};
		pt->rc =
		    i && fast_allowed() ? yu_fast_items(pt->text, pt->len, &pt->doc) : TPH_DECLINED;
		pt->fast = pt->rc == TPH_OK;
		if (pt->rc == TPH_DECLINED)
			pt->rc =
			    yu_load_into(pt->text, pt->len, pl->file, 0, 0, &pt->doc, &scratch);
	}
}

int yu_threads(void)
{
	if (yu_split_threads > 0)
		return yu_split_threads;
	const char *env = getenv("TPH_LOAD_THREADS");
	if (env && atoi(env) > 0)
		return atoi(env) > 8 ? 8 : atoi(env);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

static void run_parts(plan *pl, int threads)
{
	pthread_t tid[8];
	int started = 0;
	atomic_init(&pl->next, 0);
	for (int t = 1; t < threads && t <= 8; t++)
		if (pthread_create(&tid[started], NULL, worker, pl) == 0)
			started++;
	worker(pl);
	for (int t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
}

/* ---- grafting ---------------------------------------------------------------------------------
 */

/* The main part's line L is a file line plus the lines of every body removed above it. */
static void fix_main_lines(plan *pl)
{
	yu_doc *m = &pl->parts[0].doc;
	for (uint32_t id = 0; id < m->n; id++) {
		size_t line = pl->nodes[id].line, shift = 0, removed = 0;
		for (int k = 0; k < pl->n_sec; k++) {
			if (line + removed > pl->sec[k].key_line)
				shift += pl->sec[k].lines;
			removed += pl->sec[k].lines;
		}
		pl->nodes[id].line = (uint32_t)(line + shift);
	}
}

/* The value node of the root mapping's key on `line` (column 0), or NULL. */
static yu_node *section_value(plan *pl, const yu_node *root, const section *s)
{
	for (uint32_t i = 0; i < root->len; i++) {
		const yu_node *k = &pl->nodes[root->u.pairs[i].key];
		yu_node *v = &pl->nodes[root->u.pairs[i].value];
		if (k->type == YU_SCALAR && k->line == s->key_line && k->col == 0)
			return v->type == YU_SCALAR && v->len == 0 && yu_plain(v) ? v : NULL;
	}
	return NULL;
}

/* libyaml gives a missing value (`- ? k` with no `:`) the position of the token after it. In the
 * whole file that is the next item's "-", at the items' indent; a chunk ends before that line, so
 * there it is the chunk's end, column 0. Such values are the last nodes a chunk made. */
static void fix_chunk_ends(plan *pl, const section *s)
{
	for (int i = s->first_part; i + 1 < s->first_part + s->n_parts; i++) {
		const part *pt = &pl->parts[i];
		uint32_t next_line = (uint32_t)pl->parts[i + 1].line;
		for (uint32_t id = pt->doc.n; id-- > pt->first && pl->nodes[id].line == next_line;)
			if (pl->nodes[id].col == 0)
				pl->nodes[id].col = s->indent;
	}
}

static int graft(plan *pl, const section *s, yu_node *v)
{
	uint32_t n = 0;
	for (int i = s->first_part; i < s->first_part + s->n_parts; i++) {
		const yu_doc *d = &pl->parts[i].doc;
		if (d->root == YU_NONE || pl->nodes[d->root].type != YU_SEQ || d->anchors)
			return TPH_DECLINED;
		n += pl->nodes[d->root].len;
	}
	fix_chunk_ends(pl, s);
	uint32_t *items = yu_alloc_array(&pl->parts[0].doc.arena, n, sizeof *items);
	if (!items)
		return TPH_ENOMEM;
	uint32_t at = 0;
	for (int i = s->first_part; i < s->first_part + s->n_parts; i++) {
		const yu_node *r = &pl->nodes[pl->parts[i].doc.root];
		memcpy(items + at, r->u.items, r->len * sizeof *items);
		at += r->len;
	}
	const yu_node *first = &pl->nodes[pl->parts[s->first_part].doc.root];
	*v = (yu_node){.type = YU_SEQ, .line = first->line, .col = first->col, .len = n};
	v->u.items = items;
	return TPH_OK;
}

static int assemble(plan *pl, yu_doc *out)
{
	uint64_t nodes = 0; /* each part kept to yu_max_nodes; the whole must be too */
	for (int i = 0; i < pl->n_parts; i++) {
		if (pl->parts[i].rc != TPH_OK)
			return TPH_DECLINED;
		/* a chunk's root sequence gives way to the section's value in the main part */
		nodes += pl->parts[i].doc.n - pl->parts[i].first -
		         (i && pl->parts[i].doc.root != YU_NONE);
	}
	if (nodes > yu_max_nodes)
		return TPH_DECLINED;
	fix_main_lines(pl);
	yu_doc *m = &pl->parts[0].doc;
	if (m->root == YU_NONE || pl->nodes[m->root].type != YU_MAP)
		return TPH_DECLINED;
	for (int k = 0; k < pl->n_sec; k++) {
		yu_node *v = section_value(pl, &pl->nodes[m->root], &pl->sec[k]);
		int rc = v ? graft(pl, &pl->sec[k], v) : TPH_DECLINED;
		if (rc != TPH_OK)
			return rc;
	}
	*out = (yu_doc){.nodes = pl->nodes, .n = pl->cap, .cap = pl->cap, .root = m->root};
	for (int i = 0; i < pl->n_parts; i++) {
		yu_arena_adopt(&out->arena, &pl->parts[i].doc.arena);
		yu_arena_adopt(&out->strs, &pl->parts[i].doc.strs);
	}
	pl->nodes = NULL; /* now the document's */
	for (int i = 0; i < pl->n_parts; i++)
		yu_fast_done += pl->parts[i].fast;
	return TPH_OK;
}

static void release(plan *pl)
{
	for (int i = 0; i < pl->n_parts; i++)
		if (pl->parts[i].rc == TPH_OK)
			yu_doc_free(&pl->parts[i].doc); /* fixed: the arenas only */
	yu_free(pl->nodes);
	yu_free(pl->main_text);
}

/* A line break other than "\n" and "\r\n": libyaml also counts a lone '\r' and the Unicode
 * breaks NEL, LS and PS as new lines, where the cutting above counts '\n' only. */
static bool odd_breaks(const char *buf, size_t len)
{
	const char *end = buf + len;
	for (const char *p = buf; (p = memchr(p, '\r', (size_t)(end - p))); p++)
		if (p + 1 == end || p[1] != '\n')
			return true;
	for (const char *p = buf; (p = memchr(p, '\xc2', (size_t)(end - p))); p++)
		if (end - p > 1 && p[1] == '\x85')
			return true;
	for (const char *p = buf; (p = memchr(p, '\xe2', (size_t)(end - p))); p++)
		if (end - p > 2 && p[1] == '\x80' && (p[2] == '\xa8' || p[2] == '\xa9'))
			return true;
	return false;
}

int yu_load_parallel(const char *buf, size_t len, const char *file, yu_doc *doc, tph_diag *d)
{
	int threads = yu_threads();
	/* one thread still splits: the chunks can take the fast path (yaml_fast.c) */
	if (len < yu_split_min_bytes || odd_breaks(buf, len))
		return yu_load(buf, len, file, 0, 0, doc, d);
	plan *pl = yu_calloc(1, sizeof *pl);
	if (!pl)
		return yu_load(buf, len, file, 0, 0, doc, d);
	*pl = (plan){.buf = buf, .len = len, .file = file};
	size_t target = len / (size_t)(threads * 2);
	int rc = TPH_DECLINED;
	if (find_sections(pl, target > yu_split_min_chunk ? target : yu_split_min_chunk) &&
	    build_main(pl) == TPH_OK && assign_regions(pl) == TPH_OK) {
		run_parts(pl, threads);
		rc = assemble(pl, doc);
	}
	release(pl);
	yu_free(pl);
	if (rc == TPH_OK)
		yu_split_done++;
	return rc == TPH_OK ? TPH_OK : yu_load(buf, len, file, 0, 0, doc, d);
}
