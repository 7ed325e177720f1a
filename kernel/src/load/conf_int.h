/* The loaded scheduler configuration as plain structs (the public tph_conf is opaque), and the
 * entry points the scenario loader uses to read a conf embedded in a scenario file. */
#ifndef TPH_CONF_INTERNAL_H
#define TPH_CONF_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tephra/args.h"
#include "tephra/conf.h"
#include "yaml_util.h"

typedef enum tph_argv_kind {
	TPH_ARGV_SCALAR = 0,
	TPH_ARGV_SEQ = 1,
	TPH_ARGV_MAP = 2,
} tph_argv_kind;

/* A value under a plugin's or action's `arguments` (or the conf's `metrics`), kept verbatim
 * and nested to any depth. This node is the public opaque `tph_args` of tephra/args.h: the
 * typed getters read it, and `file`, `line` and `col` locate it for their warnings. */
struct tph_args {
	tph_argv_kind kind;
	bool quoted;      /* scalar written in quotes: a string, whatever it looks like */
	bool null;        /* plain scalar that YAML reads as null (``, ~, null) */
	uint32_t line;    /* 1-based */
	uint32_t col;     /* 1-based */
	const char *file; /* display name of the file that holds it */
	const char *key;  /* the key when this is a mapping entry, else NULL */
	const char *text; /* scalar text, NUL-terminated ("" for collections) */
	uint32_t len;     /* strlen(text) */
	uint32_t n;       /* sequence items or mapping entries */
	struct tph_args *items;
};

typedef struct tph_args tph_arg;

/* The public view of an argument tree (the same node). */
static inline const tph_args *tph_args_of(const tph_arg *a)
{
	return a;
}

/* The entry of a mapping argument under `key` (first match), or NULL. */
const tph_arg *tph_arg_get(const tph_arg *map, const char *key);

typedef struct tph_conf_plugin {
	const char *name;
	int8_t flags[TPH_FLAG_COUNT]; /* -1 absent, 0, 1 (tri-state as written) */
	bool has_args;
	tph_arg args; /* a mapping; n == 0 when absent */
	uint32_t line;
	uint32_t col;
} tph_conf_plugin;

typedef struct tph_conf_tier {
	tph_conf_plugin *plugins;
	uint32_t n_plugins;
	uint32_t line;
} tph_conf_tier;

/* One `configurations` entry: arguments for an action. */
typedef struct tph_conf_action_args {
	const char *name;
	tph_arg args; /* a mapping; n == 0 when absent */
	uint32_t line;
	uint32_t col;
} tph_conf_action_args;

/* One `queueDepthPerAction` entry of a KAI conf. */
typedef struct tph_conf_depth {
	const char *action;
	int32_t depth; /* >= 1 */
} tph_conf_depth;

/* One generator's entry of KAI's scenarioSearchBudgets.maxGeneratorSearchDuration. */
typedef struct tph_conf_budget {
	const char *name; /* "default", "NodeLocalGreedy", ... */
	int64_t ms;
} tph_conf_budget;

/* KAI's scenarioSearchBudgets, read and kept; tephra never cuts a search by time (docs/kai.md). */
typedef struct tph_conf_kai_budgets {
	tph_conf_budget *action; /* maxActionSearchDuration, per action or "default" */
	uint32_t n_action;
	int64_t job_ms;     /* maxJobSearchDuration */
	int64_t min_job_ms; /* minJobSearchDuration */
	tph_conf_budget *generator;
	uint32_t n_generator;
} tph_conf_kai_budgets;

struct tph_conf {
	/* Holders: whoever loaded it (tph_conf_free) and each open session (tph_conf_hold); the
	 * last to let go frees it. Atomic: sessions open and close on any thread. */
	_Atomic uint32_t refs;
	yu_arena arena; /* owns everything below; the conf copies every string it keeps */
	const char *file;
	bool enable_flags_default;
	const char **actions;
	uint32_t n_actions;
	tph_conf_tier *tiers;
	uint32_t n_tiers;
	tph_conf_action_args *configurations;
	uint32_t n_configurations;
	bool has_metrics;
	tph_arg metrics; /* Volcano's `metrics` map, kept verbatim */
	/* The kai flavour: one tier (KAI flattens them), plugins without enable flags whose
	 * arguments are string maps, and the two keys below. */
	tph_conf_flavour flavour;
	tph_conf_depth *queue_depth;
	uint32_t n_queue_depth;
	tph_conf_kai_budgets budgets;
};

/* One more holder of `conf` (a session), let go of with tph_conf_free. */
void tph_conf_hold(const tph_conf *conf);

/* The `configurations` entry for `action` (first match), or NULL. */
const tph_conf_action_args *tph_conf_find_action_args(const tph_conf *conf, const char *action);

/* Build a conf from a mapping node of an already parsed document (a scenario's inline `conf`);
 * errors are located with `c`'s file and bases. The conf copies what it keeps: it does not
 * need the document afterwards. */
int tph_conf_from_node(yu_ctx *c, const yu_node *root, bool enable_flags_default, tph_conf **out);

/* Parse conf text embedded in another file: libyaml's 0-based line and column are shifted by
 * the bases so that messages point into `file`. */
int tph_conf_load_embedded(const char *text, size_t len, const char *file, int line_base,
                           int col_base, bool enable_flags_default, tph_conf **out, tph_diag *d);

/* The same two for KAI's SchedulerConfiguration (conf_kai.c). */
int tph_kai_conf_from_node(yu_ctx *c, const yu_node *root, tph_conf **out);
int tph_kai_conf_load_embedded(const char *text, size_t len, const char *file, int line_base,
                               int col_base, tph_conf **out, tph_diag *d);

#endif
