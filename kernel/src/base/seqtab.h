/* Interned sequences of uint32: equal sequences get one id and are stored once. The fit records
 * of a session (session/fitlog.c) use it, because tasks of one job, and the same task
 * across attempts, keep failing for the same reasons on the same nodes: a record costs a
 * 4-byte id per task, and only distinct sequences cost storage. Session thread only. */
#ifndef TPH_SEQTAB_H
#define TPH_SEQTAB_H

#include "arena.h"

#include <stdint.h>

typedef struct tph_seqtab {
	tph_arena *arena;     /* the sequences' storage: [n, values...] */
	const uint32_t **seq; /* [id]; id 0 is never handed out ("no record") */
	uint32_t n, cap;      /* ids handed out + 1, capacity of seq */
	uint32_t *slot;       /* open addressing over ids (0 empty); NULL once dropped */
	uint32_t mask;
} tph_seqtab;

/* An empty table storing into `a`. */
void tph_seq_init(tph_seqtab *t, tph_arena *a);
/* The id of v[0..n), storing it if new; 0 when out of memory. */
uint32_t tph_seq_intern(tph_seqtab *t, const uint32_t *v, uint32_t n);
/* The values of id (*n of them); id 0 is the empty sequence. */
const uint32_t *tph_seq_get(const tph_seqtab *t, uint32_t id, uint32_t *n);
/* Free the lookup index (no intern after this; tph_seq_get still works) ... */
void tph_seq_drop_index(tph_seqtab *t);
/* ... and the id table too. */
void tph_seq_free(tph_seqtab *t);

#endif
