/* Checking a KAI session against its kai scenario's expect: section (kai_check.c). */
#ifndef TPH_KAI_CHECK_H
#define TPH_KAI_CHECK_H

#include "session/check_core.h"

/* Every difference between the session's state and decisions and `sc`'s expectations (and
 * every kai probe or expectation not built yet) becomes a line of `r`. */
void tph_kai_check(const tph_scenario *sc, const tph_kai_session *s, tph_check_report *r);
/* The kai probes, answered from the open session before any action. */
void tph_kai_check_probe(const tph_scenario *sc, const tph_kai_session *s, tph_check_report *r);
/* The probes that ask plugins (kai_probe.c): nodeScores, feasibleNodes, job/task/queue order,
 * canReclaim, fairShare. */
void tph_kai_check_plugin_probes(const tph_scenario *sc, const tph_kai_session *s,
                                 tph_check_report *r);

#endif
