/* The built-in KAI plugin table: the one place that lists the kai flavour's own plugins. */
#include "tephra/kai.h"

/* Read by the kai session (kernel/src/session/kai/kai_ep.c). */
extern const tph_kai_plugin *const tph_kai_builtin_plugins[];

extern const tph_kai_plugin tph_kai_plugin_minruntime;

/* One plugin per line. */
/* clang-format off */
const tph_kai_plugin *const tph_kai_builtin_plugins[] = {
    &tph_kai_plugin_minruntime,
    NULL,
};
/* clang-format on */
