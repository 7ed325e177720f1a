/* Profile counters (tph_session_opts.profile): calls per extension point, nodes evaluated and
 * time in filtering and scoring. s->prof is NULL unless profiling, so each dispatcher pays one
 * predictable branch and nothing inside its per-node loops. Only the session's thread writes
 * the counters (the dispatchers count before and after their parallel regions). */
#ifndef TPH_PROF_H
#define TPH_PROF_H

#include "session/session_int.h"
#include "tephra/probe.h"

struct tph_prof {
	uint64_t calls[TPH_EP_COUNT];
	uint64_t nodes[TPH_EP_COUNT];
	double ms[TPH_EP_COUNT];
	tph_profile_row rows[TPH_EP_COUNT]; /* tph_session_profile()'s answer */
};

/* Count one dispatcher call of `ep` over `nodes` nodes taking `ms`. */
static inline void tph_prof_add(const tph_session *s, tph_ep ep, uint64_t nodes, double ms)
{
	struct tph_prof *p = s->prof;
	p->calls[ep]++;
	p->nodes[ep] += nodes;
	p->ms[ep] += ms;
}

/* The one line a dispatcher adds. */
#define TPH_PROF(s, ep)                                  \
	do {                                             \
		if ((s)->prof)                           \
			tph_prof_add((s), (ep), 0, 0.0); \
	} while (0)

#endif
