/* String interning with dense ids. Ids index plain arrays, so name -> object maps are an array
 * lookup (no hashing) once a string is interned. Interned strings never move or die while the
 * table lives. Interning is single-threaded (the cache's owner); reading the text of an id
 * handed out earlier is safe from any thread at the same time, because the pointers live in
 * fixed chunks that never move (sessions read old snapshots while the host keeps interning). */
#ifndef TPH_STRTAB_H
#define TPH_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/* tph_sid, TPH_SID_EMPTY and TPH_SID_NONE (also the OOM result of interning). */
#include "tephra/columns.h"

#define TPH_STRTAB_CHUNK_SHIFT 14
#define TPH_STRTAB_CHUNK       (1u << TPH_STRTAB_CHUNK_SHIFT)
#define TPH_STRTAB_MAX_CHUNKS  (1u << (32 - TPH_STRTAB_CHUNK_SHIFT))

/* The ids of recently interned strings by hash: a load interns the same namespaces, nodes
 * and roles again and again, and a small table that stays in cache answers those without a
 * probe of the large one. */
#define TPH_STRTAB_MEMO 1024

typedef struct tph_strtab_memo {
	uint64_t hash;
	tph_sid id; /* TPH_SID_NONE: empty */
} tph_strtab_memo;

typedef struct tph_strtab {
	const char ***chunks; /* [id >> SHIFT][id & (CHUNK-1)]: never moved once written */
	uint32_t *len;        /* [id], interning thread only */
	uint64_t *hash;       /* [id], interning thread only */
	uint32_t n, cap;
	uint64_t *slots; /* open addressing: id + 1 in the low half (0 = empty), the hash's high
	                    half above, so a probe rejects other strings without touching them */
	uint32_t mask;
	tph_arena chars;       /* string bytes; never reset */
	tph_strtab_memo *memo; /* [TPH_STRTAB_MEMO], interning thread only */
} tph_strtab;

int tph_strtab_init(tph_strtab *t);
void tph_strtab_free(tph_strtab *t);
/* The id of `s` (len bytes), interning it if new; TPH_SID_NONE when out of memory. */
tph_sid tph_strtab_intern(tph_strtab *t, const char *s, size_t len);
tph_sid tph_strtab_intern_cstr(tph_strtab *t, const char *s);
/* Start loading the cache lines interning `s` reads first: a bulk load that interns several
 * new strings per object (each a cache miss) overlaps their misses this way. A hint only. */
void tph_strtab_prefetch(const tph_strtab *t, const char *s, size_t len);
/* Make room for `more` new strings without rehashing on the way (a hint: TPH_ENOMEM leaves
 * the table as it was and interning still works). */
int tph_strtab_reserve(tph_strtab *t, uint32_t more);
/* The id of `s`, or TPH_SID_NONE if it was never interned. */
tph_sid tph_strtab_find(const tph_strtab *t, const char *s, size_t len);

static inline const char *tph_strtab_str(const tph_strtab *t, tph_sid id)
{
	return id < t->n ? t->chunks[id >> TPH_STRTAB_CHUNK_SHIFT][id & (TPH_STRTAB_CHUNK - 1)]
	                 : "";
}

uint64_t tph_hash_bytes(const void *p, size_t n, uint64_t seed);

#endif
