/* The simulator's bump arena: pod and podgroup templates, names and the annotations sessions
 * set live as long as the workload, and are dropped together. */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

struct sim_chunk {
	struct sim_chunk *next;
	max_align_t data[];
};

#define CHUNK_BYTES ((size_t)1 << 20)

void *sim_alloc(sim_arena *a, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!a->head || a->used + n > a->cap) {
		size_t cap = n > CHUNK_BYTES ? n : CHUNK_BYTES;
		struct sim_chunk *c = malloc(sizeof *c + cap);
		if (!c) {
			a->failed = true;
			return NULL;
		}
		c->next = a->head;
		a->head = c;
		a->used = 0;
		a->cap = cap;
	}
	void *p = (char *)a->head->data + a->used;
	a->used += n;
	memset(p, 0, n);
	return p;
}

char *sim_strdup(sim_arena *a, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = sim_alloc(a, n);
	if (p)
		memcpy(p, s, n);
	return p;
}

void sim_arena_free(sim_arena *a)
{
	while (a->head) {
		struct sim_chunk *next = a->head->next;
		free(a->head);
		a->head = next;
	}
	a->used = a->cap = 0;
}
