/* External plugins: shared objects that export TPH_PLUGIN_ENTRY (see plugin.h). Loaded plugins
 * join the process-wide registry and can then be named in a conf's tiers. */
#ifndef TEPHRA_REGISTRY_H
#define TEPHRA_REGISTRY_H

#include "tephra/plugin.h"
#include "tephra/status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

/* Load one shared object, or every `*.so` in a directory (in name order). Loading the same
 * path twice is a no-op. Errors name the file and say what is wrong: not loadable, no entry
 * symbol, an ABI version other than TPH_PLUGIN_ABI, a plugin name already registered. */
int tph_plugins_load(const char *path, tph_diag *d);

/* Register an in-process plugin (a host's own, or a test's). `p` must outlive every session
 * that names it. Same checks as for shared objects. */
int tph_plugins_register(const tph_plugin *p, tph_diag *d);

/* Unload every external plugin (no session may be open). */
void tph_plugins_unload_all(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
