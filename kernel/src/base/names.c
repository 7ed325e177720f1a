/* Volcano's plugin and action names, checked against pkg/scheduler/{plugins,actions}/factory.go.
 * Note the numaaware plugin registers as "numa-aware". */
#include "names.h"

#include "tephra/kai.h"

#include <string.h>

const char *const tph_plugin_names[] = {
    "drf",
    "gang",
    "deviceshare",
    "predicates",
    "priority",
    "nodeorder",
    "conformance",
    "binpack",
    "resource-strategy-fit",
    "tdm",
    "overcommit",
    "sla",
    "task-topology",
    "numa-aware",
    "cdp",
    "rescheduling",
    "usage",
    "pdb",
    "nodegroup",
    "network-topology-aware",
    "proportion",
    "capacity",
    "extender",
    "resourcequota",
};
const size_t tph_plugin_name_count = sizeof tph_plugin_names / sizeof tph_plugin_names[0];

const char *const tph_action_names[] = {
    "reclaim",     "allocate",    "backfill", "preempt",
    "gangpreempt", "gangreclaim", "enqueue",  "shuffle",
};
const size_t tph_action_name_count = sizeof tph_action_names / sizeof tph_action_names[0];

static bool in_table(const char *const *tab, size_t n, const char *name)
{
	if (!name)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(tab[i], name) == 0)
			return true;
	return false;
}

bool tph_plugin_name_known(const char *name)
{
	return in_table(tph_plugin_names, tph_plugin_name_count, name);
}

bool tph_action_name_known(const char *name)
{
	return in_table(tph_action_names, tph_action_name_count, name);
}

const char *const tph_kai_plugin_names[] = {
    "predicates",
    "proportion",
    "priority",
    "elastic",
    "kubeflow",
    "ray",
    "nodeavailability",
    "gpusharingorder",
    "gpupack",
    "gpuspread",
    "resourcetype",
    "subgrouporder",
    "taskorder",
    "nominatednode",
    "dynamicresources",
    "nodeplacement",
    "minruntime",
    "topology",
    "snapshot",
    "sg-nodelocalgreedy",
    "sg-multinodegang",
    "podaffinity",
    "numa",
    "reflectjoborder",
};
const size_t tph_kai_plugin_name_count =
    sizeof tph_kai_plugin_names / sizeof tph_kai_plugin_names[0];

const char *const tph_kai_action_names[] = {
    "allocate", "consolidation", "reclaim", "preempt", "stalegangeviction",
};
const size_t tph_kai_action_name_count =
    sizeof tph_kai_action_names / sizeof tph_kai_action_names[0];

bool tph_kai_plugin_name_known(const char *name)
{
	return in_table(tph_kai_plugin_names, tph_kai_plugin_name_count, name);
}

bool tph_kai_action_name_known(const char *name)
{
	return in_table(tph_kai_action_names, tph_kai_action_name_count, name);
}

const char *tph_kai_dim_name(tph_kai_dim d)
{
	static const char *const dims[TPH_KAI_DIMS] = {"gpu", "cpu", "memory"};
	return (unsigned)d < TPH_KAI_DIMS ? dims[d] : NULL;
}

const char *tph_kai_status_name(tph_kai_status s)
{
	static const char *const names[TPH_KAI_TS_COUNT] = {
	    "",          "Pending", "Gated",   "Allocated", "Pipelined",
	    "Binding",   "Bound",   "Running", "Releasing", "StuckInReleasing",
	    "Succeeded", "Failed",  "Unknown",
	};
	return (unsigned)s < TPH_KAI_TS_COUNT ? names[s] : NULL;
}
