/* Pod columns shared between the cache and its snapshots, copy on write. A snapshot of a cache
 * without pod tombstones has task t in slot t, so the columns no session writes (names, keys,
 * specs, metas, creation, request rows) can be read where the cache keeps them instead of
 * copied and paged in afresh. The cache keeps the promise that a snapshot never changes by
 * detaching before any write a snapshot could see: a put over a slot some snapshot reads, a
 * fresh slot below that bound, compaction, growth (realloc), a new resource name (the rows are
 * laid out again) and free. A remove writes only the live byte and the key map, which no
 * snapshot reads. */
#include "cache/cluster_int.h"

#include "base/mem.h"

#include <string.h>

/* The task columns (tph_task_store) a session never writes, read in place by snapshots. */
static const uint8_t pod_shared[] = {K_KEY,    P_NAME,     P_NS,   P_UID,  P_ROLE, P_PG,
                                     P_PCLASS, P_CREATION, P_SPEC, P_META, P_NZ,   P_REQ};

tph_colshare *tph_pods_share(tph_cluster *c)
{
	tph_kind *k = &c->pods;
	if (k->share)
		return k->share; /* nothing has been written since it was made */
	tph_colshare *sh = tph_calloc(1, sizeof *sh);
	if (!sh)
		return NULL;
	atomic_init(&sh->refs, 1); /* the kind's */
	for (size_t i = 0; i < sizeof pod_shared; i++)
		sh->col[pod_shared[i]] = k->col[pod_shared[i]];
	k->share = sh;
	return sh;
}

void tph_colshare_hold(tph_colshare *sh, uint32_t n)
{
	atomic_fetch_add_explicit(&sh->refs, 1, memory_order_relaxed);
	if (n > sh->n)
		sh->n = n;
}

void tph_colshare_drop(tph_colshare *sh)
{
	/* acq_rel: the last holder frees what the others read before they let go */
	if (!sh || atomic_fetch_sub_explicit(&sh->refs, 1, memory_order_acq_rel) > 1)
		return;
	for (uint32_t i = 0; i < TPH_KIND_MAXCOLS; i++)
		tph_free(sh->col[i]);
	tph_free(sh);
}

int tph_kind_detach(tph_cluster *c, tph_kind *k, uint32_t cap)
{
	tph_colshare *sh = k->share;
	if (!sh)
		return TPH_OK;
	/* Only the cache adds holders, so a set it alone holds stays so: its columns are the
	 * kind's again, uncopied (acquire: the snapshots' reads come before). */
	if (atomic_load_explicit(&sh->refs, memory_order_acquire) == 1) {
		tph_free(sh);
		k->share = NULL;
		return TPH_OK;
	}
	void *own[TPH_KIND_MAXCOLS] = {0};
	for (uint32_t i = 0; i < k->ncols; i++) {
		if (!sh->col[i])
			continue;
		size_t sz = tph_kind_col_size(c, k, i);
		if (!(own[i] = tph_malloc((size_t)cap * sz))) {
			for (uint32_t j = 0; j < i; j++)
				tph_free(own[j]);
			return TPH_ENOMEM;
		}
		memcpy(own[i], sh->col[i], (size_t)k->n * sz);
	}
	for (uint32_t i = 0; i < k->ncols; i++)
		if (own[i])
			k->col[i] = own[i];
	k->share = NULL;
	tph_colshare_drop(sh);
	return TPH_OK;
}
