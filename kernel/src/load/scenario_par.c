/* Parallel decoding of large sections (pods, podGroups): items are independent until their
 * names go into the loader's maps, so blocks of items decode on several threads, each with
 * its own copy of the loader, and the names are registered afterwards in item order. A
 * thread's warnings are held with their item and given out in item order as the names are
 * registered; anything a thread cannot finish cleanly (an error, no memory) sends the whole
 * section back to the serial decoder. Results, messages and warnings never depend on the
 * threads. */
#include "base/mem.h"
#include "scenario_ld.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

uint32_t sc_par_min_items = 8192;
unsigned long sc_par_done;

#define BLOCK     1024 /* items a thread takes at a time, at most */
#define MAX_LANES 8

typedef struct held {
	uint32_t item, seq; /* seq: order among the warnings of one lane */
	const char *msg;
} held;

typedef struct lane {
	yu_arena arena; /* what its decoders allocate; the scenario's once all went well */
	tph_time latest;
	uint32_t item; /* being decoded */
	held *warns;   /* in item order: a lane takes blocks in increasing order */
	uint32_t n_warns, cap_warns;
	bool oom;
} lane;

typedef struct par {
	const sc_ld *L;
	const yu_node *seq;
	sc_item_fn decode;
	uint32_t block;   /* items a thread takes at a time: a few blocks per thread */
	atomic_uint next; /* the next block's first item */
	atomic_bool failed;
	lane lanes[MAX_LANES];
	atomic_int lane_ids;
} par;

static void hold_warning(void *ud, const char *msg)
{
	lane *ln = ud;
	const char *copy = yu_strndup(&ln->arena, msg, strlen(msg));
	if (!copy || tph_grow(&ln->warns, &ln->cap_warns, ln->n_warns + 1, sizeof *ln->warns)) {
		ln->oom = true;
		return;
	}
	ln->warns[ln->n_warns] = (held){ln->item, ln->n_warns, copy};
	ln->n_warns++;
}

static void decode_blocks(par *p, sc_ld *T, lane *ln)
{
	uint32_t n = (uint32_t)yu_seq_len(p->seq);
	for (;;) {
		uint32_t first = atomic_fetch_add(&p->next, p->block);
		if (first >= n || atomic_load(&p->failed))
			return;
		uint32_t end = n - first < p->block ? n : first + p->block;
		for (ln->item = first; ln->item < end; ln->item++) {
			yu_node *item = yu_at(&T->c, p->seq->u.items[ln->item]);
			if (p->decode(T, item, ln->item) != TPH_OK || ln->oom) {
				atomic_store(&p->failed, true);
				return;
			}
		}
	}
}

static void *lane_main(void *arg)
{
	par *p = arg;
	lane *ln = &p->lanes[atomic_fetch_add(&p->lane_ids, 1)];
	sc_ld T = *p->L;
	tph_diag d = {.warn = hold_warning, .warn_ud = ln};
	T.c.arena = &ln->arena;
	T.c.d = &d;
	decode_blocks(p, &T, ln);
	ln->latest = T.latest;
	return NULL;
}

/* Decode every item on `threads` threads; false when any of them failed. */
static bool run_lanes(par *p, int threads)
{
	pthread_t tid[MAX_LANES];
	int started = 0;
	for (int t = 1; t < threads && t < MAX_LANES; t++)
		if (pthread_create(&tid[started], NULL, lane_main, p) == 0)
			started++;
	lane_main(p);
	for (int t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	return !atomic_load(&p->failed);
}

static int by_item(const void *a, const void *b)
{
	const held *x = a, *y = b;
	if (x->item != y->item)
		return x->item < y->item ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Every lane's warnings in one array, in item order (NULL with *n == 0 when none). */
static int gather_warnings(par *p, held **out, uint32_t *n)
{
	uint32_t total = 0;
	for (int k = 0; k < MAX_LANES; k++)
		total += p->lanes[k].n_warns;
	*out = NULL;
	*n = total;
	if (!total)
		return TPH_OK;
	held *all = yu_malloc(total * sizeof *all);
	if (!all)
		return TPH_ENOMEM;
	for (int k = 0, at = 0; k < MAX_LANES; at += (int)p->lanes[k].n_warns, k++)
		if (p->lanes[k].n_warns)
			memcpy(all + at, p->lanes[k].warns, p->lanes[k].n_warns * sizeof *all);
	qsort(all, total, sizeof *all, by_item);
	*out = all;
	return TPH_OK;
}

/* Register the names in item order, giving out each item's warnings just before, as a
 * serial decode would have. */
static int finish_all(sc_ld *L, const yu_node *seq, sc_item_fn finish, const held *w, uint32_t n_w)
{
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < (uint32_t)yu_seq_len(seq); i++) {
		for (; n_w && w->item == i; w++, n_w--)
			tph_diag_warn(L->c.d, "%s", w->msg);
		rc = finish(L, yu_at(&L->c, seq->u.items[i]), i);
	}
	L->c.depth = 0;
	yu_set_obj(&L->c, "scenario", NULL, NULL, -1);
	return rc;
}

/* The parallel attempt: TPH_OK with every item decoded and the names registered, or
 * TPH_DECLINED with the items zeroed again. */
static int try_parallel(sc_ld *L, const yu_node *seq, sc_item_fn decode, sc_item_fn finish,
                        void *items, size_t size, int threads)
{
	par *p = yu_calloc(1, sizeof *p);
	if (!p)
		return TPH_DECLINED;
	uint32_t block = (uint32_t)yu_seq_len(seq) / (uint32_t)(4 * threads);
	*p = (par){.L = L,
	           .seq = seq,
	           .decode = decode,
	           .block = block < 16      ? 16
	                    : block > BLOCK ? BLOCK
	                                    : block};
	atomic_init(&p->next, 0);
	atomic_init(&p->failed, false);
	atomic_init(&p->lane_ids, 0);
	held *w = NULL;
	uint32_t n_w = 0;
	bool ok = run_lanes(p, threads) && gather_warnings(p, &w, &n_w) == TPH_OK;
	for (int k = 0; k < MAX_LANES; k++) {
		if (ok && p->lanes[k].latest > L->latest)
			L->latest = p->lanes[k].latest;
		if (ok) /* the held messages live in the lane arenas */
			yu_arena_adopt(L->c.arena, &p->lanes[k].arena);
		else
			yu_arena_free(&p->lanes[k].arena);
		yu_free(p->lanes[k].warns);
	}
	yu_free(p);
	if (!ok) {
		memset(items, 0, yu_seq_len(seq) * size);
		return TPH_DECLINED;
	}
	sc_par_done++;
	int rc = finish_all(L, seq, finish, w, n_w);
	yu_free(w);
	return rc;
}

int sc_each_par(sc_ld *L, const yu_node *seq, const char *key, sc_item_fn decode, sc_item_fn finish,
                void *items, size_t size)
{
	int threads = yu_threads();
	if (seq->type == YU_SEQ && yu_seq_len(seq) >= sc_par_min_items && threads > 1) {
		int rc = try_parallel(L, seq, decode, finish, items, size, threads);
		if (rc != TPH_DECLINED)
			return rc;
	}
	return sc_each_then(L, seq, key, decode, finish);
}
