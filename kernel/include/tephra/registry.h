/* External plugins: shared objects that export TPH_PLUGIN_ENTRY (see plugin.h), and in-process
 * descriptors a host registers. Both join one process-wide registry and can then be named in a
 * conf's tiers.
 *
 * Order: load or register a plugin BEFORE loading any conf or scenario that names it. Loading a
 * conf checks each plugin name against the registry as it stands then (tph_conf_load_*,
 * tph_scenario_load_*), so a name only a not-yet-loaded plugin provides fails there with
 * `unknown plugin "NAME"`, long before tph_session_open would load opts.plugin_dir.
 *
 * Overrides: a session looks external plugins up before the built-in ones, so an external
 * plugin named like a built-in (`binpack`) replaces it in every session opened afterwards. The
 * load or registration says so with one warning through the diag's sink
 * (`plugin binpack from ./x.so overrides the built-in`; the sink runs under the registry's lock
 * and must not call back into it). Two external plugins may not share a name. */
#ifndef TEPHRA_REGISTRY_H
#define TEPHRA_REGISTRY_H

#include "tephra/plugin.h"
#include "tephra/status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

/* Load one shared object, or every `*.so` in a directory (in name order). Loading an object
 * that is loaded already is a no-op, however its path is spelt (a file, then the directory
 * holding it; a host's load, then the session's opts.plugin_dir): it neither fails nor warns
 * again. Errors name the file and say what is wrong: not loadable, no entry symbol, an ABI
 * version other than TPH_PLUGIN_ABI, a name another external plugin has. */
int tph_plugins_load(const char *path, tph_diag *d);

/* Register an in-process plugin (a host's own, or a test's). `p` must outlive every session
 * that names it. Same checks as for shared objects; registering the same descriptor again is
 * a no-op. */
int tph_plugins_register(const tph_plugin *p, tph_diag *d);

/* Unload every external plugin. Sessions run the plugins' code until they are freed: while any
 * session is open (opened and not yet freed, on any thread) nothing is unloaded and the call
 * returns TPH_EINVAL. */
int tph_plugins_unload_all(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
