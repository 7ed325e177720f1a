/* Private to the conf loaders (conf_load.c for Volcano's volcano-scheduler.conf, conf_kai.c for
 * KAI's SchedulerConfiguration): the reading state and the row and argument readers both use. */
#ifndef TPH_CONF_LD_H
#define TPH_CONF_LD_H

#include "load/conf_int.h"

typedef struct conf_ld {
	yu_ctx c; /* first member: yu_walk handlers get the loader back by a cast */
	tph_conf *conf;
	uint32_t arg_nodes; /* guards against alias bombs and alias cycles */
} conf_ld;

/* A fresh conf (one holder) whose messages name `file`. */
int conf_new(const char *file, bool efd, tph_conf **out, tph_diag *d);

/* A string the conf keeps, copied into its own arena: a conf may outlive the document it was
 * read from (a scenario's inline conf, still held by a session after tph_scenario_free). */
int conf_str(conf_ld *L, const yu_node *n, const char **out);

/* Reads `item`, row `i` of a sequence, into `row`. */
typedef int (*row_fn)(conf_ld *L, const yu_node *item, uint32_t i, void *row, const void *arg);

/* A sequence of rows (the tiers, a tier's plugins, the configurations) into an array of
 * `size`-byte rows in the conf's arena, stored through `items` (the address of the row
 * pointer, set before the first row is read) with their number in *n. Rows name themselves
 * in messages, so each starts with an empty path. */
int conf_each_row(conf_ld *L, const yu_node *v, size_t size, void *items, uint32_t *n, row_fn fn,
                  const void *arg);

/* `arguments:` of a plugin or an action: a mapping, or null for none. */
int conf_read_args(conf_ld *L, const yu_node *v, tph_arg *out);

/* `actions:`, a comma-separated string split as Volcano and KAI split it (a blank string is no
 * action); a name `known` refuses is an error ("unknown <whose>action"). */
int conf_read_actions(conf_ld *L, const yu_node *v, bool (*known)(const char *), const char *whose);

/* One key of a plugin entry (`seen`: bits of the keys already read, for duplicates). */
typedef int (*conf_key_fn)(conf_ld *L, const yu_node *k, const yu_node *v, tph_conf_plugin *p,
                           uint32_t *seen);

/* A plugin entry of tier `tier` (row `idx`), each key read by `key_fn`; `name` is required. */
int conf_read_plugin(conf_ld *L, const yu_node *n, uint32_t idx, uint32_t tier, tph_conf_plugin *p,
                     conf_key_fn key_fn);

/* A tier (`plugins:` only) whose plugin rows `plugin_fn` reads (its arg: &tier). */
int conf_read_tier(conf_ld *L, const yu_node *n, uint32_t tier, tph_conf_tier *t, row_fn plugin_fn);

#endif
