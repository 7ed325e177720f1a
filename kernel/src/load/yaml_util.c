/* Loader infrastructure: the arena, the string map, located errors, the mapping walker and
 * document loading. Typed readers live in yaml_read.c. */
#include "yaml_util.h"
#include "base/mem.h"
#include "base/msg_text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* ---- allocation ------------------------------------------------------------------------- */

void *yu_malloc(size_t n)
{
	return tph_malloc(n);
}

void *yu_calloc(size_t n, size_t size)
{
	return tph_calloc(n ? n : 1, size ? size : 1);
}

void yu_free(void *p)
{
	tph_free(p);
}

#define HUGE_PAGE ((uintptr_t)2 << 20)

void yu_huge_pages(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t hi = ((uintptr_t)p + size) & ~(HUGE_PAGE - 1);
	if (hi > lo && hi - lo >= 2 * HUGE_PAGE)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p, (void)size;
#endif
}

struct yu_chunk {
	yu_chunk *next;
	size_t size;
	_Alignas(16) char data[];
};

#define YU_CHUNK_MIN (64u * 1024u)
#define YU_CHUNK_MAX (16u * 1024u * 1024u)

static void *arena_alloc(yu_arena *a, size_t size, size_t align)
{
	if (size > SIZE_MAX / 4)
		return NULL;
	uintptr_t cur = ((uintptr_t)a->cur + (align - 1)) & ~(uintptr_t)(align - 1);
	if (a->cur && cur + size <= (uintptr_t)a->end) {
		a->cur = (char *)(cur + size);
		return (void *)cur;
	}
	size_t csize = a->head ? a->head->size * 2 : YU_CHUNK_MIN;
	if (csize > YU_CHUNK_MAX)
		csize = YU_CHUNK_MAX;
	if (csize < size)
		csize = size;
	yu_chunk *ch = yu_malloc(sizeof *ch + csize);
	if (!ch)
		return NULL;
	if (csize == size) /* filled at once (large arrays); growing chunks may stay half empty */
		yu_huge_pages(ch, sizeof *ch + csize);
	ch->size = csize;
	ch->next = a->head;
	a->head = ch;
	a->cur = ch->data + size;
	a->end = ch->data + csize;
	return ch->data;
}

void *yu_alloc(yu_arena *a, size_t size)
{
	return arena_alloc(a, size ? size : 1, 8);
}

void *yu_alloc_array(yu_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = yu_alloc(a, n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

char *yu_strndup(yu_arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1, 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void yu_arena_adopt(yu_arena *dst, yu_arena *src)
{
	if (!src->head)
		return;
	if (!dst->head) {
		*dst = *src;
	} else {
		yu_chunk *tail = src->head;
		while (tail->next)
			tail = tail->next;
		tail->next = dst->head->next; /* keep dst's current block first */
		dst->head->next = src->head;
	}
	*src = (yu_arena){0};
}

void yu_arena_free(yu_arena *a)
{
	yu_chunk *ch = a->head;
	while (ch) {
		yu_chunk *next = ch->next;
		yu_free(ch);
		ch = next;
	}
	a->head = NULL;
	a->cur = a->end = NULL;
}

/* ---- string map --------------------------------------------------------------------------- */

static uint64_t hash_bytes(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t hash_key(const char *a, size_t alen, const char *b, size_t blen)
{
	uint64_t h = hash_bytes(0xcbf29ce484222325ULL, a, alen);
	h = hash_bytes(h ^ 0x2f, b ? b : "", blen);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

static int map_alloc(yu_map *m, size_t cap)
{
	m->slots = yu_malloc(cap * sizeof *m->slots);
	if (!m->slots)
		return TPH_ENOMEM;
	yu_huge_pages(m->slots, cap * sizeof *m->slots);
	memset(m->slots, 0, cap * sizeof *m->slots);
	m->mask = (uint32_t)(cap - 1);
	m->count = 0;
	return TPH_OK;
}

int yu_map_init(yu_map *m, size_t expected)
{
	size_t cap = 16;
	while (cap < expected * 2 && cap < ((size_t)1 << 31))
		cap <<= 1;
	return map_alloc(m, cap);
}

void yu_map_free(yu_map *m)
{
	yu_free(m->slots);
	m->slots = NULL;
	m->mask = m->count = 0;
}

static yu_slot *map_probe(const yu_map *m, uint64_t h, const char *a, size_t alen, const char *b,
                          size_t blen)
{
	for (uint32_t i = (uint32_t)h & m->mask;; i = (i + 1) & m->mask) {
		yu_slot *s = &m->slots[i];
		if (!s->a)
			return s;
		if (s->h == h && s->alen == alen && s->blen == blen && memcmp(s->a, a, alen) == 0 &&
		    (blen == 0 || memcmp(s->b, b, blen) == 0))
			return s;
	}
}

static int map_grow(yu_map *m)
{
	yu_map old = *m;
	if (map_alloc(m, ((size_t)old.mask + 1) * 2) < 0) {
		*m = old;
		return TPH_ENOMEM;
	}
	for (size_t i = 0; i <= old.mask; i++) {
		yu_slot *s = &old.slots[i];
		if (s->a)
			*map_probe(m, s->h, s->a, s->alen, s->b, s->blen) = *s;
	}
	m->count = old.count;
	yu_free(old.slots);
	return TPH_OK;
}

void yu_map_prefetch(const yu_map *m, const char *a, size_t alen, const char *b, size_t blen)
{
	__builtin_prefetch(&m->slots[(uint32_t)hash_key(a, alen, b, blen) & m->mask]);
}

int yu_map_put(yu_map *m, const char *a, size_t alen, const char *b, size_t blen, uint32_t val,
               uint32_t *old)
{
	if ((size_t)(m->count + 1) * 2 > (size_t)m->mask + 1 && map_grow(m) < 0)
		return TPH_ENOMEM;
	uint64_t h = hash_key(a, alen, b, blen);
	yu_slot *s = map_probe(m, h, a, alen, b, blen);
	if (s->a) {
		if (old)
			*old = s->val;
		return 0;
	}
	*s = (yu_slot){h, a, b, (uint32_t)alen, (uint32_t)blen, val};
	m->count++;
	return 1;
}

int yu_map_set(yu_map *m, const char *a, size_t alen, const char *b, size_t blen, uint32_t val)
{
	int rc = yu_map_put(m, a, alen, b, blen, val, NULL);
	if (rc == 0)
		map_probe(m, hash_key(a, alen, b, blen), a, alen, b, blen)->val = val;
	return rc < 0 ? rc : TPH_OK;
}

bool yu_map_get(const yu_map *m, const char *a, size_t alen, const char *b, size_t blen,
                uint32_t *val)
{
	if (!m->slots)
		return false;
	yu_slot *s = map_probe(m, hash_key(a, alen, b, blen), a, alen, b, blen);
	if (!s->a)
		return false;
	if (val)
		*val = s->val;
	return true;
}

/* ---- context and errors -----------------------------------------------------------------------
 */

void yu_ctx_init(yu_ctx *c, const yu_doc *doc, const char *file, yu_arena *arena, tph_diag *d)
{
	memset(c, 0, sizeof *c);
	c->doc = doc;
	c->file = file;
	c->arena = arena;
	c->d = d;
}

void yu_set_obj(yu_ctx *c, const char *kind, const char *ns, const char *name, long index)
{
	c->obj_kind = kind;
	c->obj_ns = ns;
	c->obj_name = name;
	c->obj_index = index;
}

static size_t fmt_path(const yu_ctx *c, char *buf, size_t cap)
{
	size_t len = 0;
	for (int i = 0; i < c->depth && len < cap; i++) {
		if (i >= YU_PATH_MAX) {
			len += (size_t)snprintf(buf + len, cap - len, ".…");
			break;
		}
		const yu_path_elem *e = &c->path[i];
		if (e->key)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "." : "", e->key);
		else
			len += (size_t)snprintf(buf + len, cap - len, "[%d]", (int)e->idx);
	}
	return len;
}

static size_t fmt_prefix(const yu_ctx *c, const yu_node *n, char *buf, size_t cap)
{
	size_t len = (size_t)snprintf(buf, cap, "%s:%u:%u: ", c->file ? c->file : "<input>",
	                              (unsigned)yu_line(c, n), (unsigned)yu_col(c, n));
	if (c->obj_kind && len < cap) {
		char ns[TPH_MSG_NAME_MAX + 4], name[TPH_MSG_NAME_MAX + 4];
		if (c->obj_name)
			len +=
			    (size_t)snprintf(buf + len, cap - len, "%s %s%s%s: ", c->obj_kind,
			                     c->obj_ns ? tph_msg_name(c->obj_ns, ns) : "",
			                     c->obj_ns ? "/" : "", tph_msg_name(c->obj_name, name));
		else if (c->obj_index >= 0)
			len += (size_t)snprintf(buf + len, cap - len, "%s #%ld: ", c->obj_kind,
			                        c->obj_index + 1);
		else
			len += (size_t)snprintf(buf + len, cap - len, "%s: ", c->obj_kind);
	}
	if (c->depth > 0 && len < cap) {
		len += (size_t)snprintf(buf + len, cap - len, "field ");
		if (len < cap)
			len += fmt_path(c, buf + len, cap - len);
		if (len < cap)
			len += (size_t)snprintf(buf + len, cap - len, ": ");
	}
	return len < cap ? len : cap - 1;
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 0)))
#endif
static void
vformat(const yu_ctx *c, const yu_node *n, char *buf, size_t cap, const char *fmt, va_list ap)
{
	size_t len = fmt_prefix(c, n, buf, cap);
	vsnprintf(buf + len, cap - len, fmt, ap);
}

int yu_err(yu_ctx *c, const yu_node *n, int status, const char *fmt, ...)
{
	if (!c->d)
		return status;
	char buf[sizeof c->d->msg];
	va_list ap;
	va_start(ap, fmt);
	vformat(c, n, buf, sizeof buf, fmt, ap);
	va_end(ap);
	return tph_diag_set(c->d, status, "%s", buf); /* escapes it */
}

void yu_warn(yu_ctx *c, const yu_node *n, const char *fmt, ...)
{
	if (c->d && c->d->warn == TPH_WARN_SILENT) {
		c->d->warnings++; /* nobody listens: count without formatting */
		return;
	}
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vformat(c, n, buf, sizeof buf, fmt, ap);
	va_end(ap);
	tph_diag_warn(c->d, "%s", buf);
}

uint32_t yu_line(const yu_ctx *c, const yu_node *n)
{
	return (uint32_t)((int)n->line + c->line_base + 1);
}

uint32_t yu_col(const yu_ctx *c, const yu_node *n)
{
	return (uint32_t)((int)n->col + c->col_base + 1);
}

/* ---- node helpers ------------------------------------------------------------------------------
 */

bool yu_is_null(const yu_node *n)
{
	if (n->type != YU_SCALAR || !yu_plain(n))
		return false;
	const char *s = yu_sv(n);
	return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	       strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

yu_node *yu_map_find(const yu_ctx *c, const yu_node *map, const char *key)
{
	if (map->type != YU_MAP)
		return NULL;
	for (const yu_pair *p = map->u.pairs; p < map->u.pairs + map->len; p++) {
		yu_node *k = yu_at(c, p->key);
		if (k && k->type == YU_SCALAR && strcmp(yu_sv(k), key) == 0)
			return yu_at(c, p->value);
	}
	return NULL;
}

int yu_want_map(yu_ctx *c, const yu_node *n)
{
	if (n->type == YU_MAP)
		return TPH_OK;
	return yu_err(c, n, TPH_EINVAL, "expected a mapping, got %s", yu_kind(n));
}

int yu_want_seq(yu_ctx *c, const yu_node *n)
{
	if (n->type == YU_SEQ)
		return TPH_OK;
	return yu_err(c, n, TPH_EINVAL, "expected a sequence, got %s", yu_kind(n));
}

int yu_want_scalar(yu_ctx *c, const yu_node *n, const char *what)
{
	if (n->type == YU_SCALAR && !yu_is_null(n))
		return TPH_OK;
	return yu_err(c, n, TPH_EINVAL, "expected %s, got %s", what, yu_kind(n));
}

/* ---- the mapping walker -------------------------------------------------------------------------
 */

static const yu_field *find_field(const yu_field *tab, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i].key[0] == key[0] && strcmp(tab[i].key, key) == 0)
			return &tab[i];
	return NULL;
}

static int walk_pair(yu_ctx *c, const yu_pair *p, const yu_field *tab, size_t n, void *base,
                     uint64_t *seen)
{
	yu_node *k = yu_at(c, p->key);
	yu_node *v = yu_at(c, p->value);
	if (k->type != YU_SCALAR)
		return yu_err(c, k, TPH_EINVAL, "a key must be a string, got %s", yu_kind(k));
	const yu_field *f = find_field(tab, n, yu_sv(k));
	yu_push(c, yu_sv(k));
	int rc = TPH_OK;
	if (!f) {
		rc = yu_err(c, k, TPH_EINVAL, "unknown field");
	} else if (*seen & (1ull << (f - tab))) {
		rc = yu_err(c, k, TPH_EINVAL, "duplicate field");
	} else {
		*seen |= 1ull << (f - tab);
		if (!yu_is_null(v))
			rc = f->fn(c, v, (char *)base + f->off, f->aux);
		else if (f->flags & YU_REQUIRED)
			rc = yu_err(c, v, TPH_EINVAL, "required, got null");
	}
	yu_pop(c);
	return rc;
}

int yu_walk(yu_ctx *c, const yu_node *map, const yu_field *tab, size_t n, void *base)
{
	int rc = yu_want_map(c, map);
	if (rc < 0)
		return rc;
	uint64_t seen = 0;
	for (const yu_pair *p = map->u.pairs; p < map->u.pairs + map->len; p++) {
		rc = walk_pair(c, p, tab, n, base, &seen);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < n; i++) {
		if ((tab[i].flags & YU_REQUIRED) && !(seen & (1ull << i))) {
			yu_push(c, tab[i].key);
			rc = yu_err(c, map, TPH_EINVAL, "required field is missing");
			yu_pop(c);
			return rc;
		}
	}
	return TPH_OK;
}

/* ---- files
 * ---------------------------------------------------------------------------------------- */

/* One allocation of the file's size (plus slack for files that grow while read). */
int yu_read_file(const char *path, char **buf, size_t *len, tph_diag *d)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return tph_diag_set(d, errno == ENOENT ? TPH_ENOENT : TPH_EIO,
		                    "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	bool known = fstat(fileno(f), &st) == 0;
	/* a device (/dev/zero) never ends; a pipe does, and is how `<(...)` arrives */
	if (known && (S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
		fclose(f);
		return tph_diag_set(d, TPH_EINVAL, "%s: %s", path,
		                    S_ISDIR(st.st_mode) ? "is a directory, not a file"
		                                        : "is a device, not a file or a pipe");
	}
	/* room for the NUL and one more byte, so reading to the end does not look like a full
	 * buffer (which would copy it into one twice the size) */
	size_t cap = known && st.st_size > 0 ? (size_t)st.st_size + 2 : 4096;
	size_t n = 0;
	char *b = yu_malloc(cap);
	int rc = b ? TPH_OK : tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", path);
	while (rc == TPH_OK) {
		if (n + 1 >= cap) {
			char *nb = yu_malloc(cap * 2);
			if (!nb) {
				rc = tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", path);
				break;
			}
			memcpy(nb, b, n);
			yu_free(b);
			b = nb;
			cap *= 2;
		}
		size_t got = fread(b + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				rc = tph_diag_set(d, TPH_EIO, "%s: read error", path);
			break;
		}
	}
	fclose(f);
	if (rc < 0) {
		yu_free(b);
		return rc;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return TPH_OK;
}
