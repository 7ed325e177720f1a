/* Helpers shared by the kai plugins (plugins/kai/); not part of the public API. */
#ifndef TPH_PLUGINS_KAI_PLUGINS_H
#define TPH_PLUGINS_KAI_PLUGINS_H

#include "tephra/kai.h"

/* KAI's IsCPUOnlyRequest: no whole GPU, no fraction, no GPU memory (nodescore.c). */
bool tph_kai_cpu_only(const tph_kai_view *v, uint32_t t);

/* A job's gang minimum: its pod sets' minMember together (the podgroup's minMember when it
 * has no sub-groups) (orders.c). */
int64_t tph_kai_job_min(const tph_kai_view *v, uint32_t j);

#endif
