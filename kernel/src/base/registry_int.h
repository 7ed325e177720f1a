/* Plugin and action registries: the built-in tables plus plugins loaded from shared objects. */
#ifndef TPH_REGISTRY_H
#define TPH_REGISTRY_H

#include <stdbool.h>

#include "tephra/plugin.h"
#include "tephra/status.h"

/* The built-in tables (plugins/builtin.c and kernel/actions/builtin.c), NULL-terminated. */
extern const tph_plugin *const tph_builtin_plugins[];
extern const tph_action *const tph_builtin_actions[];

/* Find a plugin by name: external plugins first (so a host can override), then built-ins.
 * A name Volcano knows but tephra has not built yet fails with TPH_ENOTSUP, any other unknown
 * name with TPH_ENOENT; `d` says which. */
int tph_registry_plugin(const char *name, const tph_plugin **out, tph_diag *d);
/* A name a conf may use: one Volcano registers, a built-in, or a registered external plugin. */
bool tph_registry_plugin_known(const char *name);
int tph_registry_action(const char *name, const tph_action **out, tph_diag *d);
/* A session opened / was freed: tph_plugins_unload_all refuses while any is open. */
void tph_registry_session_open(void);
void tph_registry_session_free(void);

#endif
