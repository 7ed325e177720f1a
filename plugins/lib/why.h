/* Refusal reasons with numbers for the enqueue plugins (tph_job_reason): Volcano's event text
 * (util.FormatResourceNames) followed by the figures that failed. Called only when a plugin
 * refuses, never in a per-node loop. */
#ifndef TPH_PLUGINS_WHY_H
#define TPH_PLUGINS_WHY_H

#include <stddef.h>
#include <stdint.h>

#include "tephra/plugin.h"

/* A value of dimension d as a Kubernetes quantity ("4", "1500m", "8Gi"); INT64_MAX reads
 * "unlimited". */
size_t why_qty(const tph_session *s, uint32_t d, int64_t v, char *buf, size_t cap);

/* Say why `job` is refused: "<prefix>: <verb> cpu (<scope>: cpu <base> <base_name> + <req>
 * requested > <limit_name> <limit>)" over the dimensions where req > 0 and base + req passes
 * limit (INT64_MAX: unlimited). Rows are exact values per session dimension. */
typedef struct why_over_args {
	const char *prefix, *verb, *scope, *base_name, *limit_name;
	const int64_t *base, *req, *limit;
} why_over_args;
void why_over(const tph_session *s, tph_idx job, const why_over_args *a);

#endif
