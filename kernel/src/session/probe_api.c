/* The public probes (tephra/probe.h): thin wrappers over the dispatchers of ep.h, the
 * statement and the profile counters, so benchmarks and hosts can time or ask one extension
 * point pass without reaching into the session's internals. */
#include "ep.h"
#include "base/mem.h"
#include "prof.h"
#include "statement.h"
#include "tephra/probe.h"

uint32_t tph_session_candidates(const tph_session *s, const tph_idx **nodes)
{
	*nodes = s->ready_nodes;
	return s->n_ready;
}

const char *tph_session_task_status(const tph_session *s, tph_idx task)
{
	return task < s->tasks.n ? tph_task_status_names[s->tasks.status[task]] : NULL;
}

/* The fit and predicates write a reason per node; probes drop them, so one scratch column
 * per call is enough. */
uint32_t tph_session_filter(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                            tph_idx *feasible_out)
{
	if (!nodes) {
		nodes = s->ready_nodes;
		n = s->n_ready;
	}
	if (task >= s->tasks.n || !n)
		return 0;
	tph_heap_acct *prev = tph_heap_enter(&s->heap);
	tph_reason_code *why = tph_malloc((size_t)n * sizeof *why);
	uint32_t k = why ? tph_filter_nodes(s, task, nodes, n, why, feasible_out) : 0;
	tph_free(why);
	tph_heap_leave(prev);
	return k;
}

void tph_session_score(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                       double *total_out)
{
	if (task >= s->tasks.n || n > s->nodes.n)
		return;
	tph_heap_acct *prev = tph_heap_enter(&s->heap);
	tph_score_nodes(s, task, nodes, n, total_out);
	tph_heap_leave(prev);
}

tph_session_memory tph_session_mem(const tph_session *s)
{
	return (tph_session_memory){s->arena.allocated, s->heap.live, tph_heap_peak(&s->heap)};
}

size_t tph_session_bytes(const tph_session *s)
{
	return s->arena.allocated + s->heap.live;
}

/* ---- statements ---- */

struct tph_probe_stmt {
	tph_statement st;
};

/* A probe statement and its operations are session memory, charged like an action's. */
int tph_probe_stmt_begin(tph_session *s, tph_probe_stmt **out)
{
	tph_heap_acct *prev = tph_heap_enter(&s->heap);
	*out = tph_calloc(1, sizeof **out);
	tph_heap_leave(prev);
	if (!*out)
		return TPH_ENOMEM;
	tph_stmt_init(&(*out)->st, s);
	return TPH_OK;
}

int tph_probe_stmt_allocate(tph_probe_stmt *p, tph_idx task, tph_idx node)
{
	tph_session *s = p->st.s;
	if (task >= s->tasks.n || node >= s->nodes.n || s->tasks.status[task] != TPH_TS_PENDING)
		return TPH_EINVAL;
	tph_heap_acct *prev = tph_heap_enter(&s->heap);
	int rc = tph_stmt_allocate(&p->st, task, node);
	tph_heap_leave(prev);
	return rc;
}

void tph_probe_stmt_discard(tph_probe_stmt *p)
{
	tph_session *s = p->st.s;
	tph_heap_acct *prev = tph_heap_enter(&s->heap);
	tph_stmt_discard(&p->st);
	tph_heap_leave(prev);
	tph_stmt_init(&p->st, s);
}

void tph_probe_stmt_end(tph_probe_stmt *p)
{
	if (!p)
		return;
	tph_heap_acct *prev = tph_heap_enter(&p->st.s->heap);
	tph_stmt_discard(&p->st);
	tph_free(p);
	tph_heap_leave(prev);
}

/* ---- profile ---- */

int tph_session_profile(const tph_session *s, const tph_profile_row **rows, uint32_t *n)
{
	*n = 0;
	*rows = NULL;
	struct tph_prof *p = s->prof;
	if (!p)
		return TPH_DECLINED;
	for (uint32_t e = 0; e < TPH_EP_COUNT; e++)
		if (p->calls[e])
			p->rows[(*n)++] = (tph_profile_row){tph_ep_table[e].name, p->calls[e],
			                                    p->nodes[e], p->ms[e]};
	*rows = p->rows;
	return TPH_OK;
}
