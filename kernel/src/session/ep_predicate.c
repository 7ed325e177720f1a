/* Predicates without the resource fit, for the eviction actions (see ep_predicate.h), and the
 * predicate step of every span tph_filter_nodes() filters after its fit. Nodes go to each
 * callback in spans of SPAN, spans to OpenMP workers; inside a span the survivors of
 * one plugin are the next one's input, so verdicts do not depend on the thread count. */
#include "ep_predicate.h"

#include "ep.h"

#include <string.h>

#define SPAN          TPH_SPAN
#define CALL(type, e) ((type)(e)->fn)

uint32_t tph_predicate_span(const tph_session *s, tph_idx task, tph_idx *live, uint32_t *pos,
                            uint32_t m, tph_reason_code *reason)
{
	tph_reason_code rc[SPAN];
	const tph_ep_list *l = &s->ep[TPH_EP_PREDICATE];
	for (uint32_t p = 0; p < l->n && m; p++) {
		memset(rc, 0, m * sizeof *rc);
		CALL(tph_predicate_fn, &l->e[p])(l->e[p].st, s, task, live, m, rc);
		uint32_t k = 0;
		for (uint32_t j = 0; j < m; j++) {
			if (rc[j] != TPH_PASS) {
				reason[pos[j]] = rc[j];
				continue;
			}
			live[k] = live[j];
			pos[k++] = pos[j];
		}
		m = k;
	}
	return m;
}

static void predicate_span(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                           tph_reason_code *out)
{
	tph_idx live[SPAN];
	uint32_t pos[SPAN];
	for (uint32_t i = 0; i < n; i++) {
		out[i] = TPH_PASS;
		live[i] = nodes[i];
		pos[i] = i;
	}
	tph_predicate_span(s, task, live, pos, n, out);
}

typedef struct pred_call {
	const tph_session *s;
	tph_idx task;
	const tph_idx *nodes;
	tph_reason_code *out;
} pred_call;

static void pred_span(void *cv, uint32_t k, uint32_t b, uint32_t e)
{
	const pred_call *c = cv;
	(void)k;
	predicate_span(c->s, c->task, c->nodes + b, e - b, c->out + b);
}

/* Small calls (most of preempt's) stay on the session's thread without entering OpenMP. */
void tph_predicate_nodes(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                         tph_reason_code *out)
{
	pred_call c = {s, task, nodes, out};
	tph_session_parallel(s, n, pred_span, &c);
}

tph_reason_code tph_predicate_node(const tph_session *s, tph_idx task, tph_idx node)
{
	tph_reason_code r;
	predicate_span(s, task, &node, 1, &r);
	return r;
}

bool tph_predicate_blocks_preempt(const tph_session *s, tph_reason_code code)
{
	return code != TPH_PASS && tph_reason_unresolvable(s, code);
}
