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

/* The report lists the first TPH_REPORT_MAX_LINES differences and counts them all. */
#define TPH_REPORT_MAX_LINES 1000
void tph_report_fail(tph_check_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void tph_report_free(tph_check_report *r);
/* An order probe: pos[i] is the listed position of the object the session's order puts i-th;
 * the first one out of place is reported as `<what>: expected <key> at position <i>, got ..`. */
void tph_report_order(tph_check_report *r, const char *what, const tph_sc_refs *refs,
                      const uint32_t *pos);

/* Object lookups by the keys the scenario uses (not hot paths). TPH_NOIDX when absent. */
tph_idx tph_check_task(const tph_session *s, const tph_sc_ref *ref);
tph_idx tph_check_node(const tph_session *s, const tph_sc_ref *ref);
tph_idx tph_check_job(const tph_session *s, const char *key);
tph_idx tph_check_queue(const tph_session *s, const char *name);

/* Keys with their list index, sorted (by key, then index) for lookups in lists of any length
 * (check_keys.c). tph_keyed_new gives n + 1 zeroed entries (tph_free), or NULL. */
typedef struct tph_keyed {
	const char *key;
	uint32_t i;
} tph_keyed;
tph_keyed *tph_keyed_new(uint32_t n);
void tph_keyed_sort(tph_keyed *v, uint32_t n);
/* The smallest index listed with `key`, or UINT32_MAX. */
uint32_t tph_keyed_find(const tph_keyed *v, uint32_t n, const char *key);

/* pos[0..n) (indexes into ids) sorted stably by cmp over the ids: a merge sort, since probe
 * orders may list every task. TPH_ENOMEM or TPH_OK. */
typedef int (*tph_order_fn)(const tph_session *s, tph_idx a, tph_idx b);
int tph_stable_order(uint32_t *pos, uint32_t n, const tph_idx *ids, tph_order_fn cmp,
                     const tph_session *s);

/* Probes, answered from the open session before any action. */
void tph_check_probe(const tph_scenario *sc, tph_session *s, tph_check_report *r);
/* Expectations, checked after close. */
void tph_check_expect(const tph_scenario *sc, const tph_session *s, tph_check_report *r);

#endif
