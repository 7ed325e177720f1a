/* Open-addressing intern table; ids are dense and stable for the table's lifetime. */
#include "strtab.h"

#include "mem.h"
#include "tephra/status.h"

#include <stdbool.h>
#include <string.h>

uint64_t tph_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	/* FNV-1a over 8-byte words with a final avalanche: cheap and good enough for names. */
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
		b += 8;
		n -= 8;
	}
	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

int tph_strtab_init(tph_strtab *t)
{
	memset(t, 0, sizeof *t);
	if (tph_arena_init(&t->chars, (size_t)256 << 10) != TPH_OK)
		return TPH_ENOMEM;
	t->slots = tph_calloc(64, sizeof *t->slots);
	t->chunks = tph_calloc(TPH_STRTAB_MAX_CHUNKS, sizeof *t->chunks);
	t->memo = tph_malloc(TPH_STRTAB_MEMO * sizeof *t->memo);
	if (!t->slots || !t->chunks || !t->memo) {
		tph_free(t->slots);
		tph_free(t->chunks);
		tph_free(t->memo);
		tph_arena_destroy(&t->chars);
		memset(t, 0, sizeof *t); /* a failed init leaves nothing for free() to see twice */
		return TPH_ENOMEM;
	}
	t->mask = 63;
	for (uint32_t i = 0; i < TPH_STRTAB_MEMO; i++)
		t->memo[i] = (tph_strtab_memo){0, TPH_SID_NONE};
	if (tph_strtab_intern(t, "", 0) != TPH_SID_EMPTY) {
		tph_strtab_free(t);
		return TPH_ENOMEM;
	}
	return TPH_OK;
}

void tph_strtab_free(tph_strtab *t)
{
	for (uint32_t c = 0; t->chunks && c < TPH_STRTAB_MAX_CHUNKS && t->chunks[c]; c++)
		tph_free(t->chunks[c]);
	tph_free(t->chunks);
	tph_free(t->len);
	tph_free(t->hash);
	tph_free(t->slots);
	tph_free(t->memo);
	tph_arena_destroy(&t->chars);
	memset(t, 0, sizeof *t);
}

#define SLOT_ID(v)   ((uint32_t)(v))
#define SLOT_HIGH(h) ((h)&0xffffffff00000000ull)

static uint32_t probe(const tph_strtab *t, const char *s, size_t len, uint64_t h)
{
	for (uint32_t i = (uint32_t)h & t->mask;; i = (i + 1) & t->mask) {
		uint64_t v = t->slots[i];
		if (!v)
			return i;
		uint32_t id = SLOT_ID(v) - 1;
		if (SLOT_HIGH(v) == SLOT_HIGH(h) && t->len[id] == len &&
		    !memcmp(tph_strtab_str(t, id), s, len))
			return i;
	}
}

tph_sid tph_strtab_find(const tph_strtab *t, const char *s, size_t len)
{
	uint32_t slot = probe(t, s, len, tph_hash_bytes(s, len, 0));
	return t->slots[slot] ? SLOT_ID(t->slots[slot]) - 1 : TPH_SID_NONE;
}

/* Rebuild the slots with `nmask + 1` of them. */
static int rehash_to(tph_strtab *t, uint32_t nmask)
{
	uint64_t *ns = tph_calloc((size_t)nmask + 1, sizeof *ns);
	if (!ns)
		return TPH_ENOMEM;
	for (uint32_t id = 0; id < t->n; id++) {
		uint32_t i = (uint32_t)t->hash[id] & nmask;
		while (ns[i])
			i = (i + 1) & nmask;
		ns[i] = SLOT_HIGH(t->hash[id]) | (id + 1);
	}
	tph_free(t->slots);
	t->slots = ns;
	t->mask = nmask;
	return TPH_OK;
}

static int rehash(tph_strtab *t)
{
	return rehash_to(t, t->mask * 2 + 1);
}

void tph_strtab_prefetch(const tph_strtab *t, const char *s, size_t len)
{
	uint64_t h = tph_hash_bytes(s, len, 0);
	__builtin_prefetch(&t->memo[(h >> 32) & (TPH_STRTAB_MEMO - 1)]);
	__builtin_prefetch(&t->slots[(uint32_t)h & t->mask]);
}

int tph_strtab_reserve(tph_strtab *t, uint32_t more)
{
	uint64_t want = ((uint64_t)t->n + more) * 4 / 3 + 1, cap = (uint64_t)t->mask + 1;
	while (cap < want && cap <= UINT32_MAX / 2)
		cap *= 2;
	return cap == (uint64_t)t->mask + 1 ? TPH_OK : rehash_to(t, (uint32_t)(cap - 1));
}

static int reserve_id(tph_strtab *t)
{
	uint32_t c = t->n >> TPH_STRTAB_CHUNK_SHIFT;
	if (!t->chunks[c] && !(t->chunks[c] = tph_calloc(TPH_STRTAB_CHUNK, sizeof(char *))))
		return TPH_ENOMEM;
	if (t->n < t->cap)
		return TPH_OK;
	uint32_t c2 = t->cap, c3 = t->cap;
	if (tph_grow(&t->len, &c2, t->n + 1, sizeof *t->len) ||
	    tph_grow(&t->hash, &c3, t->n + 1, sizeof *t->hash))
		return TPH_ENOMEM;
	t->cap = c2 < c3 ? c2 : c3;
	return TPH_OK;
}

/* Intern through the large table. */
static tph_sid insert(tph_strtab *t, const char *s, size_t len, uint64_t h)
{
	uint32_t slot = probe(t, s, len, h);
	if (t->slots[slot])
		return SLOT_ID(t->slots[slot]) - 1;
	if ((uint64_t)(t->n + 1) * 4 > (uint64_t)(t->mask + 1) * 3) {
		if (rehash(t) != TPH_OK)
			return TPH_SID_NONE;
		slot = probe(t, s, len, h);
	}
	if (t->n >= TPH_SID_NONE - 1 || reserve_id(t) != TPH_OK)
		return TPH_SID_NONE;
	char *copy = tph_arena_strndup(&t->chars, s, len);
	if (!copy)
		return TPH_SID_NONE;
	tph_sid id = t->n;
	t->chunks[id >> TPH_STRTAB_CHUNK_SHIFT][id & (TPH_STRTAB_CHUNK - 1)] = copy;
	t->n++; /* publish after the pointer is in place */
	t->len[id] = (uint32_t)len;
	t->hash[id] = h;
	t->slots[slot] = SLOT_HIGH(h) | (id + 1);
	return id;
}

static bool is(const tph_strtab *t, tph_sid id, const char *s, size_t len)
{
	return t->len[id] == len && !memcmp(tph_strtab_str(t, id), s, len);
}

tph_sid tph_strtab_intern(tph_strtab *t, const char *s, size_t len)
{
	uint64_t h = tph_hash_bytes(s, len, 0);
	tph_strtab_memo *m = &t->memo[(h >> 32) & (TPH_STRTAB_MEMO - 1)];
	if (m->hash == h && m->id != TPH_SID_NONE && is(t, m->id, s, len))
		return m->id;
	tph_sid id = insert(t, s, len, h);
	if (id != TPH_SID_NONE)
		*m = (tph_strtab_memo){h, id};
	return id;
}

tph_sid tph_strtab_intern_cstr(tph_strtab *t, const char *s)
{
	return tph_strtab_intern(t, s, strlen(s));
}
