/* The built-in KAI plugin table: the one place that lists the kai flavour's own plugins. */
#include "tephra/kai.h"

/* Read by the kai session (kernel/src/session/kai/kai_ep.c). */
extern const tph_kai_plugin *const tph_kai_builtin_plugins[];

extern const tph_kai_plugin tph_kai_plugin_elastic;
extern const tph_kai_plugin tph_kai_plugin_gpupack;
extern const tph_kai_plugin tph_kai_plugin_gpusharingorder;
extern const tph_kai_plugin tph_kai_plugin_gpuspread;
extern const tph_kai_plugin tph_kai_plugin_kubeflow;
extern const tph_kai_plugin tph_kai_plugin_minruntime;
extern const tph_kai_plugin tph_kai_plugin_nodeavailability;
extern const tph_kai_plugin tph_kai_plugin_nodeplacement;
extern const tph_kai_plugin tph_kai_plugin_nominatednode;
extern const tph_kai_plugin tph_kai_plugin_podaffinity;
extern const tph_kai_plugin tph_kai_plugin_predicates;
extern const tph_kai_plugin tph_kai_plugin_priority;
extern const tph_kai_plugin tph_kai_plugin_proportion;
extern const tph_kai_plugin tph_kai_plugin_ray;
extern const tph_kai_plugin tph_kai_plugin_resourcetype;
extern const tph_kai_plugin tph_kai_plugin_sg_multinodegang;
extern const tph_kai_plugin tph_kai_plugin_sg_nodelocalgreedy;
extern const tph_kai_plugin tph_kai_plugin_subgrouporder;
extern const tph_kai_plugin tph_kai_plugin_taskorder;
extern const tph_kai_plugin tph_kai_plugin_topology;

/* One plugin per line. */
/* clang-format off */
const tph_kai_plugin *const tph_kai_builtin_plugins[] = {
    &tph_kai_plugin_elastic,
    &tph_kai_plugin_gpupack,
    &tph_kai_plugin_gpusharingorder,
    &tph_kai_plugin_gpuspread,
    &tph_kai_plugin_kubeflow,
    &tph_kai_plugin_minruntime,
    &tph_kai_plugin_nodeavailability,
    &tph_kai_plugin_nodeplacement,
    &tph_kai_plugin_nominatednode,
    &tph_kai_plugin_podaffinity,
    &tph_kai_plugin_predicates,
    &tph_kai_plugin_priority,
    &tph_kai_plugin_proportion,
    &tph_kai_plugin_ray,
    &tph_kai_plugin_resourcetype,
    &tph_kai_plugin_sg_multinodegang,
    &tph_kai_plugin_sg_nodelocalgreedy,
    &tph_kai_plugin_subgrouporder,
    &tph_kai_plugin_taskorder,
    &tph_kai_plugin_topology,
    NULL,
};
/* clang-format on */
