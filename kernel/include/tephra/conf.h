/* The scheduler configuration: Volcano's volcano-scheduler.conf format, unchanged.
 *
 *     actions: "enqueue, allocate, backfill"
 *     tiers:
 *     - plugins:
 *       - name: gang
 *         enableJobOrder: true
 *         arguments: {...}
 *     configurations:
 *     - name: allocate
 *       arguments: {...}
 *
 * Action names are checked against the names Volcano registers; plugin names against those, the
 * built-in plugins and the external plugins registered when the conf is loaded (so load or
 * register external plugins first: tephra/registry.h). Every key of a plugin entry other than
 * `name`, `arguments` and the enable flags below is an error, as is any unknown top-level key
 * (`metrics` is accepted and kept). `arguments` are kept verbatim for the plugins, which read
 * them with typed getters. A loaded conf is immutable (but for tph_conf_set_plugin_arg before
 * any session uses it) and may be shared by any number of sessions, on any threads; each
 * session holds it until the session is freed. */
#ifndef TEPHRA_CONF_H
#define TEPHRA_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tephra/status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

typedef struct tph_conf tph_conf;

/* The enable flags of a plugin entry, in the order of Volcano's conf.PluginOption. The key
 * spelling is Volcano's (note the `enabled...` ones); see tph_conf_flag_name(). */
typedef enum tph_conf_flag {
	TPH_FLAG_JOB_ORDER = 0,      /* enableJobOrder */
	TPH_FLAG_HIERARCHY,          /* enableHierarchy (absent: off, whatever the default) */
	TPH_FLAG_JOB_READY,          /* enableJobReady */
	TPH_FLAG_JOB_PIPELINED,      /* enableJobPipelined */
	TPH_FLAG_TASK_ORDER,         /* enableTaskOrder */
	TPH_FLAG_PREEMPTABLE,        /* enablePreemptable */
	TPH_FLAG_RECLAIMABLE,        /* enableReclaimable */
	TPH_FLAG_PREEMPTIVE,         /* enablePreemptive */
	TPH_FLAG_QUEUE_ORDER,        /* enableQueueOrder */
	TPH_FLAG_CLUSTER_ORDER,      /* enabledClusterOrder (absent: off, whatever the default) */
	TPH_FLAG_PREDICATE,          /* enablePredicate */
	TPH_FLAG_BEST_NODE,          /* enableBestNode */
	TPH_FLAG_NODE_ORDER,         /* enableNodeOrder */
	TPH_FLAG_TARGET_JOB,         /* enableTargetJob */
	TPH_FLAG_RESERVED_NODES,     /* enableReservedNodes */
	TPH_FLAG_JOB_ENQUEUED,       /* enableJobEnqueued */
	TPH_FLAG_VICTIM,             /* enabledVictim */
	TPH_FLAG_JOB_STARVING,       /* enableJobStarving */
	TPH_FLAG_OVERUSED,           /* enabledOverused */
	TPH_FLAG_ALLOCATABLE,        /* enabledAllocatable */
	TPH_FLAG_HYPERNODE_ORDER,    /* enabledHyperNodeOrder */
	TPH_FLAG_SUBJOB_READY,       /* enabledSubJobReady */
	TPH_FLAG_SUBJOB_PIPELINED,   /* enabledSubJobPipelined */
	TPH_FLAG_SUBJOB_ORDER,       /* enabledSubJobOrder */
	TPH_FLAG_HYPERNODE_GRADIENT, /* enabledHyperNodeGradient */
	TPH_FLAG_COUNT
} tph_conf_flag;

/* Volcano's YAML key for a flag ("enableJobOrder"), or NULL if out of range. */
const char *tph_conf_flag_name(tph_conf_flag f);

/* Whether an absent flag follows the conf's enable-flags default. Volcano's loader
 * (ApplyPluginConfDefaults) sets every unset flag to true except enableHierarchy and
 * enabledClusterOrder, which stay unset and so read as off. */
bool tph_conf_flag_follows_default(tph_conf_flag f);

/* Volcano's built-in configuration (used by Volcano when no conf file is given). */
#define TPH_CONF_VOLCANO_DEFAULT                     \
	"actions: \"enqueue, allocate, backfill\"\n" \
	"tiers:\n"                                   \
	"- plugins:\n"                               \
	"  - name: priority\n"                       \
	"  - name: gang\n"                           \
	"  - name: conformance\n"                    \
	"- plugins:\n"                               \
	"  - name: overcommit\n"                     \
	"  - name: drf\n"                            \
	"  - name: predicates\n"                     \
	"  - name: proportion\n"                     \
	"  - name: nodeorder\n"

/* Which scheduler a conf configures: a session decides as its conf's scheduler does. */
typedef enum tph_conf_flavour {
	TPH_CONF_VOLCANO = 0, /* volcano-scheduler.conf */
	TPH_CONF_KAI = 1,     /* KAI-Scheduler's SchedulerConfiguration */
} tph_conf_flavour;

tph_conf_flavour tph_conf_flavour_of(const tph_conf *conf);

/* KAI's built-in configuration (conf_util.defaultSchedulerConf), used by KAI when its ConfigMap
 * is empty or omits actions or tiers. */
#define TPH_CONF_KAI_DEFAULT                                                          \
	"actions: \"allocate, consolidation, reclaim, preempt, stalegangeviction\"\n" \
	"tiers:\n"                                                                    \
	"- plugins:\n"                                                                \
	"  - name: predicates\n"                                                      \
	"  - name: proportion\n"                                                      \
	"  - name: priority\n"                                                        \
	"  - name: elastic\n"                                                         \
	"  - name: kubeflow\n"                                                        \
	"  - name: ray\n"                                                             \
	"  - name: nodeavailability\n"                                                \
	"  - name: gpusharingorder\n"                                                 \
	"  - name: gpupack\n"                                                         \
	"  - name: resourcetype\n"                                                    \
	"  - name: subgrouporder\n"                                                   \
	"  - name: taskorder\n"                                                       \
	"  - name: nominatednode\n"                                                   \
	"  - name: dynamicresources\n"                                                \
	"  - name: nodeplacement\n"                                                   \
	"    arguments: {cpu: binpack, gpu: binpack}\n"                               \
	"  - name: minruntime\n"                                                      \
	"  - name: topology\n"                                                        \
	"  - name: snapshot\n"                                                        \
	"  - name: sg-nodelocalgreedy\n"                                              \
	"  - name: sg-multinodegang\n"

/* Load KAI's SchedulerConfiguration (`actions` as a comma string, `tiers` of plugins with
 * string `arguments`, `queueDepthPerAction`, `scenarioSearchBudgets`). Tiers are flattened
 * into one; a plugin tephra does not know is left out with a warning and an argument that does
 * not parse gets the plugin's default with a warning (as KAI logs and goes on); an unknown
 * action is an error. Missing `actions` or `tiers` take those of TPH_CONF_KAI_DEFAULT. */
int tph_conf_load_kai_string(const char *text, size_t len, const char *display_name, tph_conf **out,
                             tph_diag *d);
int tph_conf_load_kai_file(const char *path, tph_conf **out, tph_diag *d);

/* Load a conf file. `enable_flags_default` is what an absent flag means (true as in Volcano's
 * loader; false as when tiers are built in code). On error *out is NULL and `d` names the file,
 * line, column, the object (`conf tier 1 plugin gang`) and the field. */
int tph_conf_load_file(const char *path, bool enable_flags_default, tph_conf **out, tph_diag *d);

/* Load a conf from `len` bytes of text; `display_name` is used in messages. */
int tph_conf_load_string(const char *text, size_t len, const char *display_name,
                         bool enable_flags_default, tph_conf **out, tph_diag *d);

/* Give up the caller's hold on a conf: it is freed now, or when the last session opened over
 * it is freed. The caller must not use `conf` afterwards. NULL is a no-op. */
void tph_conf_free(tph_conf *conf);

/* The actions, in order. */
uint32_t tph_conf_action_count(const tph_conf *conf);
const char *tph_conf_action(const tph_conf *conf, uint32_t i);

/* Tiers and their plugin entries, in order. */
uint32_t tph_conf_tier_count(const tph_conf *conf);
uint32_t tph_conf_plugin_count(const tph_conf *conf, uint32_t tier);
const char *tph_conf_plugin_name(const tph_conf *conf, uint32_t tier, uint32_t i);

/* A flag as written: -1 absent, 0 false, 1 true. */
int tph_conf_flag_raw(const tph_conf *conf, uint32_t tier, uint32_t i, tph_conf_flag f);

/* A flag's effective value: as written; if absent, the conf's enable-flags default for the
 * flags that follow it, and false for enableHierarchy and enabledClusterOrder. */
bool tph_conf_flag_on(const tph_conf *conf, uint32_t tier, uint32_t i, tph_conf_flag f);

bool tph_conf_enable_flags_default(const tph_conf *conf);

/* Set the argument `key` of every entry of plugin `plugin` to the string `value` (kept as a
 * quoted scalar: a string whatever it looks like), replacing what the conf wrote there or
 * adding it. For a harness that must point a plugin at something it started (the loopback HTTP
 * server that serves a scenario's extenderResponses sets `extender.urlPrefix`). It edits the
 * conf in place, so call it before any session opens on the conf: sessions read arguments at
 * open, and a conf is otherwise immutable and shared. Returns how many entries changed (0 when
 * the conf does not name the plugin), TPH_EINVAL for a NULL argument or an empty key, or
 * TPH_ENOMEM (entries changed before it keep the new value). */
int tph_conf_set_plugin_arg(tph_conf *conf, const char *plugin, const char *key, const char *value);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
