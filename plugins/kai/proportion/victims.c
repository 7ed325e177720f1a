/* The resource vectors a reclaim scenario takes from one victim job (KAI's proportion.go
 * getVictimResources and splitVictimTasks): what the scenario validator checks one by one. */
#include <string.h>

#include "proportion_int.h"

static void add(double *to, const double *v)
{
	for (int r = 0; r < KAI_NRES; r++)
		to[r] += v[r];
}

uint32_t kai_victim_vectors(uint32_t queue, const kai_victim_task *t, uint32_t nt,
                            const uint32_t *min_avail, uint32_t *count, uint32_t nps,
                            bool skip_moved, kai_victim_res *out)
{
	uint32_t n = 0;
	bool any_core = false;
	double core[KAI_NRES] = {0};
	memset(count, 0, nps * sizeof *count);
	for (uint32_t i = 0; i < nt; i++) {
		bool is_core = count[t[i].podset]++ < min_avail[t[i].podset];
		if (skip_moved && t[i].moved)
			continue;
		if (is_core) {
			add(core, t[i].v);
			any_core = true;
			continue;
		}
		out[n] = (kai_victim_res){.queue = queue};
		memcpy(out[n].v, t[i].v, sizeof out[n].v);
		out[n].involved = kai_involved(t[i].v);
		n++;
	}
	if (any_core) {
		out[n] = (kai_victim_res){.queue = queue};
		memcpy(out[n].v, core, sizeof core);
		out[n].involved = kai_involved(core);
		n++;
	}
	return n;
}
