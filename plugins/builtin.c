/* The built-in plugin table: the one place that lists tephra's own plugins. */
#include "registry.h"

const tph_plugin *const tph_builtin_plugins[] = {
    NULL,
};
