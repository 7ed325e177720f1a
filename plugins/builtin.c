/* The built-in plugin table: the one place that lists tephra's own plugins. */
#include "registry.h"

extern const tph_plugin tph_plugin_conformance;
extern const tph_plugin tph_plugin_gang;
extern const tph_plugin tph_plugin_overcommit;
extern const tph_plugin tph_plugin_priority;
extern const tph_plugin tph_plugin_sla;

const tph_plugin *const tph_builtin_plugins[] = {
    &tph_plugin_conformance,
    &tph_plugin_gang,
    &tph_plugin_overcommit,
    &tph_plugin_priority,
    &tph_plugin_sla,
    NULL,
};
