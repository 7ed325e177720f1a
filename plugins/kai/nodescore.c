/* KAI's simple NodeOrder plugins, each a fixed score tier (KAI-NOTES section 6):
 * nominatednode 10^7 for the node the pod is nominated to, nodeavailability 1000 when the task
 * fits the node's idle resources now, resourcetype 10 for a CPU-only pod on a node without
 * GPUs. The tiers are apart enough that the summed score orders them lexicographically. */
#include "kai_plugins.h"

/* KAI's IsCPUOnlyRequest: no whole GPU, no fraction, no GPU memory. */
bool tph_kai_cpu_only(const tph_kai_view *v, uint32_t t)
{
	return v->tasks.gpus[t] == 0 && v->tasks.gpu_fraction[t] <= 0 &&
	       v->tasks.gpu_memory_mib[t] <= 0;
}

static int nominated(void *state, const tph_kai_session *s, uint32_t t, uint32_t node,
                     double *score)
{
	(void)state;
	*score = tph_kai_session_view(s)->tasks.nominated_node[t] == (int32_t)node ? 1e7 : 0;
	return 0;
}

static int availability(void *state, const tph_kai_session *s, uint32_t t, uint32_t node,
                        double *score)
{
	(void)state;
	*score = tph_kai_task_allocatable(s, t, node) ? 1000 : 0;
	return 0;
}

static int resource_type(void *state, const tph_kai_session *s, uint32_t t, uint32_t node,
                         double *score)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	(void)state;
	*score = tph_kai_cpu_only(v, t) && v->nodes.gpus[node] == 0 ? 10 : 0;
	return 0;
}

static int reg(tph_kai_session *s, tph_kai_node_order_fn fn, void **state, tph_diag *d,
               const char *name)
{
	*state = NULL;
	int rc = tph_kai_add_local_node_order(s, fn, NULL, NULL);
	return rc < 0 ? tph_diag_set(d, rc, "%s: cannot register", name) : TPH_OK;
}

static int open_nominated(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	return reg(s, nominated, state, d, "nominatednode");
}

static int open_availability(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	return reg(s, availability, state, d, "nodeavailability");
}

static int open_resource_type(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	return reg(s, resource_type, state, d, "resourcetype");
}

const tph_kai_plugin tph_kai_plugin_nominatednode = {TPH_KAI_PLUGIN_ABI, "nominatednode",
                                                     open_nominated, NULL};
const tph_kai_plugin tph_kai_plugin_nodeavailability = {TPH_KAI_PLUGIN_ABI, "nodeavailability",
                                                        open_availability, NULL};
const tph_kai_plugin tph_kai_plugin_resourcetype = {TPH_KAI_PLUGIN_ABI, "resourcetype",
                                                    open_resource_type, NULL};
