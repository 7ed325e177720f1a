/* The built-in action table: the one place that lists tephra's own actions. */
#include "registry.h"

const tph_action *const tph_builtin_actions[] = {
    NULL,
};
