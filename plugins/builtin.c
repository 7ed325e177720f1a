/* The built-in plugin table: the one place that lists tephra's own plugins. */
#include "tephra/plugin.h"

/* Read by the registry (kernel/src/base/registry.c). */
extern const tph_plugin *const tph_builtin_plugins[];

extern const tph_plugin tph_plugin_conformance;
extern const tph_plugin tph_plugin_gang;
extern const tph_plugin tph_plugin_overcommit;
extern const tph_plugin tph_plugin_priority;
extern const tph_plugin tph_plugin_sla;
extern const tph_plugin tph_plugin_drf;
extern const tph_plugin tph_plugin_proportion;
extern const tph_plugin tph_plugin_predicates;
extern const tph_plugin tph_plugin_nodeorder;
extern const tph_plugin tph_plugin_binpack;
extern const tph_plugin tph_plugin_resource_strategy_fit;
extern const tph_plugin tph_plugin_resourcequota;
extern const tph_plugin tph_plugin_capacity;
extern const tph_plugin tph_plugin_network_topology_aware;
extern const tph_plugin tph_plugin_tdm;
extern const tph_plugin tph_plugin_task_topology;
extern const tph_plugin tph_plugin_nodegroup;
extern const tph_plugin tph_plugin_usage;
extern const tph_plugin tph_plugin_pdb;
extern const tph_plugin tph_plugin_cdp;
extern const tph_plugin tph_plugin_extender;
extern const tph_plugin tph_plugin_rescheduling;
extern const tph_plugin tph_plugin_numa_aware;
extern const tph_plugin tph_plugin_deviceshare;

const tph_plugin *const tph_builtin_plugins[] = {
    &tph_plugin_conformance,
    &tph_plugin_gang,
    &tph_plugin_overcommit,
    &tph_plugin_priority,
    &tph_plugin_sla,
    &tph_plugin_drf,
    &tph_plugin_proportion,
    &tph_plugin_predicates,
    &tph_plugin_nodeorder,
    &tph_plugin_binpack,
    &tph_plugin_resource_strategy_fit,
    &tph_plugin_resourcequota,
    &tph_plugin_capacity,
    &tph_plugin_network_topology_aware,
    &tph_plugin_tdm,
    &tph_plugin_task_topology,
    &tph_plugin_nodegroup,
    &tph_plugin_usage,
    &tph_plugin_pdb,
    &tph_plugin_cdp,
    &tph_plugin_extender,
    &tph_plugin_rescheduling,
    &tph_plugin_numa_aware,
    &tph_plugin_deviceshare,
    NULL,
};
