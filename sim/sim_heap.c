/* The completions ahead of the clock: a binary min-heap on time, ties by pod index so that the
 * order of completions never depends on the order of pushes. */
#include "sim_loop.h"

#include <stdlib.h>

static bool before(const sim_heap *h, uint32_t a, uint32_t b)
{
	return h->t[a] != h->t[b] ? h->t[a] < h->t[b] : h->pod[a] < h->pod[b];
}

static void swap(sim_heap *h, uint32_t a, uint32_t b)
{
	int64_t t = h->t[a];
	uint32_t p = h->pod[a];
	h->t[a] = h->t[b], h->pod[a] = h->pod[b];
	h->t[b] = t, h->pod[b] = p;
}

int sim_heap_push(sim_heap *h, int64_t t, uint32_t pod)
{
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 1024;
		int64_t *nt = realloc(h->t, cap * sizeof *nt);
		if (!nt)
			return -1;
		h->t = nt;
		uint32_t *np = realloc(h->pod, cap * sizeof *np);
		if (!np)
			return -1;
		h->pod = np;
		h->cap = cap;
	}
	uint32_t i = h->n++;
	h->t[i] = t;
	h->pod[i] = pod;
	for (; i && before(h, i, (i - 1) / 2); i = (i - 1) / 2)
		swap(h, i, (i - 1) / 2);
	return 0;
}

uint32_t sim_heap_pop(sim_heap *h)
{
	uint32_t top = h->pod[0], i = 0;
	h->n--;
	h->t[0] = h->t[h->n];
	h->pod[0] = h->pod[h->n];
	for (;;) {
		uint32_t c = 2 * i + 1, m = i;
		if (c < h->n && before(h, c, m))
			m = c;
		if (c + 1 < h->n && before(h, c + 1, m))
			m = c + 1;
		if (m == i)
			return top;
		swap(h, i, m);
		i = m;
	}
}

void sim_heap_free(sim_heap *h)
{
	free(h->t);
	free(h->pod);
	*h = (sim_heap){0};
}
