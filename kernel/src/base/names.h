/* The names Volcano registers for its plugins and actions (pkg/scheduler/plugins/factory.go and
 * pkg/scheduler/actions/factory.go). The conf loader checks names against these tables; the
 * plugin and action registries use them to say which Volcano names tephra knows. */
#ifndef TPH_NAMES_H
#define TPH_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Every plugin name Volcano registers, in its factory's registration order. */
extern const char *const tph_plugin_names[];
extern const size_t tph_plugin_name_count;

/* Every action name Volcano registers, in its factory's registration order. */
extern const char *const tph_action_names[];
extern const size_t tph_action_name_count;

/* True if `name` (NUL-terminated) is a plugin name Volcano registers. NULL is not. */
bool tph_plugin_name_known(const char *name);

/* True if `name` (NUL-terminated) is an action name Volcano registers. NULL is not. */
bool tph_action_name_known(const char *name);

/* KAI-Scheduler's names (the kai flavour has registries of its own): every plugin its factory
 * registers (pkg/scheduler/plugins/factory.go) and every action (pkg/scheduler/actions). */
extern const char *const tph_kai_plugin_names[];
extern const size_t tph_kai_plugin_name_count;
extern const char *const tph_kai_action_names[];
extern const size_t tph_kai_action_name_count;
bool tph_kai_plugin_name_known(const char *name);
bool tph_kai_action_name_known(const char *name);

#endif
