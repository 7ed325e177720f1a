/* Interned uint32 sequences (see seqtab.h): values in the arena, ids and index on the heap. */
#include "seqtab.h"

#include "mem.h"
#include "strtab.h"
#include "tephra/status.h"

#include <string.h>

void tph_seq_init(tph_seqtab *t, tph_arena *a)
{
	memset(t, 0, sizeof *t);
	t->arena = a;
	t->n = 1;
}

static uint32_t hash_of(const uint32_t *v, uint32_t n)
{
	return (uint32_t)tph_hash_bytes(v, (size_t)n * sizeof *v, n);
}

static uint32_t *find(const tph_seqtab *t, const uint32_t *v, uint32_t n, uint32_t h)
{
	for (uint32_t i = h & t->mask;; i = (i + 1) & t->mask) {
		uint32_t id = t->slot[i];
		if (!id)
			return &t->slot[i];
		const uint32_t *s = t->seq[id];
		if (s[0] == n && !memcmp(s + 1, v, (size_t)n * sizeof *v))
			return &t->slot[i];
	}
}

/* Keep the index at most half full (ids n-1 plus the one about to come). */
static int index_room(tph_seqtab *t)
{
	if (t->slot && 2 * (t->n + 1) <= t->mask + 1)
		return TPH_OK;
	uint32_t cap = t->slot ? 2 * (t->mask + 1) : 256;
	uint32_t *slot = tph_calloc(cap, sizeof *slot);
	if (!slot)
		return TPH_ENOMEM;
	tph_free(t->slot);
	t->slot = slot;
	t->mask = cap - 1;
	for (uint32_t id = 1; id < t->n; id++)
		*find(t, t->seq[id] + 1, t->seq[id][0], hash_of(t->seq[id] + 1, t->seq[id][0])) =
		    id;
	return TPH_OK;
}

uint32_t tph_seq_intern(tph_seqtab *t, const uint32_t *v, uint32_t n)
{
	static const uint32_t none[1];
	v = n ? v
	      : none; /* the empty sequence may come as NULL; memcmp and memcpy want a pointer */
	if (index_room(t) || tph_grow(&t->seq, &t->cap, t->n + 1, sizeof *t->seq))
		return 0;
	uint32_t *at = find(t, v, n, hash_of(v, n));
	if (*at)
		return *at;
	uint32_t *s = tph_arena_alloc(t->arena, ((size_t)n + 1) * sizeof *s, sizeof *s);
	if (!s)
		return 0;
	s[0] = n;
	memcpy(s + 1, v, (size_t)n * sizeof *v);
	t->seq[t->n] = s;
	return *at = t->n++;
}

const uint32_t *tph_seq_get(const tph_seqtab *t, uint32_t id, uint32_t *n)
{
	*n = id && id < t->n ? t->seq[id][0] : 0;
	return *n ? t->seq[id] + 1 : NULL;
}

void tph_seq_drop_index(tph_seqtab *t)
{
	tph_free(t->slot);
	t->slot = NULL;
	t->mask = 0;
}

void tph_seq_free(tph_seqtab *t)
{
	tph_seq_drop_index(t);
	tph_free(t->seq);
	t->seq = NULL;
	t->n = 1;
	t->cap = 0;
}
