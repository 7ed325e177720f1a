/* Column blocks: the large per-node columns that actions build and drop during a session (the
 * allocate fast path's shape columns, the equivalence classes' verdict columns), carved from a
 * few big regions that ask for transparent huge pages. Faulting a fresh column in 4 KiB page by
 * page cost the session 6-12% of its time; a 2 MiB page is zeroed in one fault for about a
 * seventh of the CPU time of its 512 small ones. */
#ifndef TPH_COLMEM_H
#define TPH_COLMEM_H

#include "mem.h"

#include <stdbool.h>
#include <stddef.h>

/* Blocks of at least this many bytes come from the pool; smaller ones are plain tph_malloc
 * blocks (a huge page for a small session's few KiB would only add to its memory). */
#define TPH_COL_MIN ((size_t)16 << 10)

/* A block of n bytes, 64-byte aligned, zeroed when `zero`; NULL on OOM. It comes from the pool
 * of the heap account entered on this thread (mem.h) when there is one and n >= TPH_COL_MIN,
 * else from tph_malloc. Either way the account is charged n bytes, as tph_malloc would charge
 * them, so a session's peak and live figures count the columns it holds, not the pool's
 * reserve. */
void *tph_col_alloc(size_t n, bool zero);
/* Give back a block from tph_col_alloc (NULL: nothing). A pool block goes on its pool's free
 * list for the next block of the same size; call it on the thread that holds the account. */
void tph_col_free(void *p);
/* Free the regions of a's pool: every block from it is gone (tph_heap_release calls it). */
void tph_colpool_release(tph_heap_acct *a);

#endif
