/* Checking a session against a scenario's probe: (right after open) and expect: (after close).
 * Every difference becomes one readable line in the report. */
#ifndef TPH_CHECK_CORE_H
#define TPH_CHECK_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "load/scenario_int.h"
#include "session/session_int.h"

typedef struct tph_check_report {
	char *buf; /* malloc'd lines, each "  <what>: <difference>\n" */
	size_t len, cap;
	uint32_t failures;
} tph_check_report;

void tph_report_fail(tph_check_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void tph_report_free(tph_check_report *r);

/* Object lookups by the keys the scenario uses (not hot paths). TPH_NOIDX when absent. */
tph_idx tph_check_task(const tph_session *s, const tph_sc_ref *ref);
tph_idx tph_check_node(const tph_session *s, const tph_sc_ref *ref);
tph_idx tph_check_job(const tph_session *s, const char *key);
tph_idx tph_check_queue(const tph_session *s, const char *name);

/* Probes, answered from the open session before any action. */
void tph_check_probe(const tph_scenario *sc, tph_session *s, tph_check_report *r);
/* Expectations, checked after close. */
void tph_check_expect(const tph_scenario *sc, const tph_session *s, tph_check_report *r);

#endif
