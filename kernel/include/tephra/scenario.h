/* Scenario files: one YAML document holding a cluster snapshot, the scheduler configuration
 * to run over it and, optionally, what the session must decide (`expect:`) and what its
 * extension points must answer (`probe:`). The format is shared/spec/scenario-format.md.
 *
 * Loading validates the whole file first — every field, default and reference — and then fills
 * a fresh cluster cache; on any error nothing is kept, *out is NULL and the diag holds one
 * message `FILE:LINE:COL: OBJECT: field FIELD: why`. Warnings (a pod whose podGroup does not
 * exist, ...) go to the diag's warning sink. A loaded scenario owns its cache and its conf.
 * `flavour: kai` (shared/spec/kai-format.md) loads KAI's objects and conf (docs/kai.md). */
#ifndef TEPHRA_SCENARIO_H
#define TEPHRA_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "tephra/cluster.h"
#include "tephra/conf.h"
#include "tephra/status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

typedef struct tph_scenario tph_scenario;

/* Load a scenario file. A `confFile:` in it is read relative to the file's directory.
 * A large file (8 MiB and up) has its big sections parsed on several threads, so an allocator
 * installed with tph_set_allocator() must be thread-safe. */
int tph_scenario_load_file(const char *path, tph_scenario **out, tph_diag *d);

/* Load a scenario from `len` bytes (need not be NUL-terminated). `display_name` names it in
 * messages (NULL: "<buffer>"); a `confFile:` is read relative to its directory part, or to the
 * working directory if it has none. */
int tph_scenario_load_buffer(const char *buf, size_t len, const char *display_name,
                             tph_scenario **out, tph_diag *d);

/* Free a scenario and give up its hold on its cache and its conf (tph_cluster_destroy,
 * tph_conf_free): snapshots and sessions still open keep what they use. NULL is a no-op. */
void tph_scenario_free(tph_scenario *s);

/* The display name of the file (as given to the loader). */
const char *tph_scenario_file(const tph_scenario *s);

/* The scenario's `name:` ("" when absent). */
const char *tph_scenario_name(const tph_scenario *s);

/* The session clock: `now:`, else the latest creationTimestamp of any pod, podgroup or
 * queue, else 0 (the epoch). */
tph_time tph_scenario_now(const tph_scenario *s);

/* The cache the scenario filled; owned by the scenario. */
tph_cluster *tph_scenario_cluster(tph_scenario *s);

/* The scheduler configuration (`conf:` or `confFile:`), or NULL when the scenario has none
 * (the host then chooses one, e.g. TPH_CONF_VOLCANO_DEFAULT). Owned by the scenario. */
const tph_conf *tph_scenario_conf(const tph_scenario *s);

/* Which scheduler's scenario it is (`flavour:`); its conf, if any, has the same flavour. */
tph_conf_flavour tph_scenario_flavour(const tph_scenario *s);

/* A kai scenario's objects as the descriptor arrays tph_kai_snapshot_build takes (owned by the
 * scenario); NULL for a volcano scenario. */
const struct tph_kai_cluster_desc *tph_scenario_kai_cluster(const tph_scenario *s);

/* What an enable flag left out of the conf means (`enableFlagsDefault:`, default true). */
bool tph_scenario_enable_flags_default(const tph_scenario *s);

/* Whether the file has an `expect:` / a `probe:` section (even an empty one). */
bool tph_scenario_has_expect(const tph_scenario *s);
bool tph_scenario_has_probe(const tph_scenario *s);

/* The scenario's PodDisruptionBudgets (`podDisruptionBudgets:`), in file order; i < count. */
uint32_t tph_scenario_pdb_count(const tph_scenario *s);
const tph_pdb_desc *tph_scenario_pdb(const tph_scenario *s, uint32_t i);

/* One canned answer of the HTTP extender (`extenderResponses:`), served by a test harness for
 * every POST to /<verb> with Content-Type application/json. */
typedef struct tph_extender_response {
	const char *verb;
	int32_t status;   /* HTTP status, default 200 */
	const char *body; /* what is sent: a mapping's JSON text, a string as written; "" absent */
	bool json;        /* the body was a mapping (serialised as JSON) */
} tph_extender_response;

/* The scenario's extender answers, one per verb, in file order; i < count. */
uint32_t tph_scenario_extender_response_count(const tph_scenario *s);
const tph_extender_response *tph_scenario_extender_response(const tph_scenario *s, uint32_t i);

/* Milliseconds spent parsing the YAML, checking and decoding it, and filling the cache. */
void tph_scenario_load_times(const tph_scenario *s, double *parse_ms, double *decode_ms,
                             double *build_ms);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
