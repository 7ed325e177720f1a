/* The room on a node's shared GPUs, for plugins that estimate capacity without placing a pod
 * (topology's per-node accommodation; KAI's NodeInfo.AvailableSharedGPUFractions). The
 * devices themselves are kai_gpu.c's. */
#include "kai_int.h"

double tph_kai_session_shared_gpus_free(const tph_kai_session *s, uint32_t node)
{
	double room = 0;
	for (uint32_t g = s->dev_first[node]; g < s->dev_first[node + 1]; g++) {
		double left = 1 - s->dev_used[g] + s->dev_rel[g];
		if (s->dev_used[g] > 1e-9 && left > 0)
			room += left;
	}
	return room;
}
