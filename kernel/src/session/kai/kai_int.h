/* Internal layout of a KAI session (tephra/kai.h): the snapshot's columns, the state the actions
 * change (task status and node, job timestamps), the committed decisions, and the built-in
 * action table (kernel/actions/kai/builtin.c). Actions read `v` and write only through the
 * helpers below, so every decision is recorded. */
#ifndef TPH_KAI_INT_H
#define TPH_KAI_INT_H

#include "tephra/conf.h"
#include "tephra/kai.h"

typedef struct tph_kai_decisions {
	tph_kai_decision *items;
	uint32_t n, cap;
} tph_kai_decisions;

/* A registered callback and its plugin's state. */
typedef struct tph_kai_hook {
	void *fn;
	void *state;
} tph_kai_hook;

typedef struct tph_kai_hooks {
	tph_kai_hook *items;
	uint32_t n, cap;
} tph_kai_hooks;

/* An opened plugin: its descriptor and state, for on_session_close. */
typedef struct tph_kai_open_plugin {
	const tph_kai_plugin *p;
	void *state;
} tph_kai_open_plugin;

struct tph_kai_session {
	const tph_kai_view *v;
	const tph_conf *conf;
	uint8_t *status;       /* [task] tph_kai_status */
	int32_t *node;         /* [task] */
	tph_time *last_start;  /* [job] */
	tph_time *stale_since; /* [job] */
	uint32_t *job_first;   /* [job + 1]: job j's tasks are job_tasks[job_first[j] .. [j+1]) */
	uint32_t *job_tasks;
	tph_kai_decisions evictions, binds, pipelined;
	const char *action; /* the action running, for the decisions it makes */
	/* Extension points, per evicting action (tph_kai_evict_action); frozen after open. */
	tph_kai_hooks victim_filters[2], validators[2];
	bool frozen;
	tph_kai_open_plugin *plugins;
	uint32_t n_plugins;
	uint32_t n_unbuilt; /* plugins of the conf left out: not built yet */
};

/* The built plugins, NULL-terminated (plugins/kai/builtin.c). */
extern const tph_kai_plugin *const tph_kai_builtin_plugins[];

/* Open every plugin of the conf (kai_ep.c): a known KAI plugin not built yet is left out with
 * a warning; then freeze the registry. Close them in reverse order. */
int tph_kai_open_plugins(tph_kai_session *s, tph_diag *d);
void tph_kai_close_plugins(tph_kai_session *s);
void tph_kai_free_hooks(tph_kai_session *s);

/* A KAI action: `run` makes the action's decisions over the whole session. */
typedef struct tph_kai_action {
	const char *name;
	int (*run)(tph_kai_session *s, tph_diag *d);
} tph_kai_action;

/* The built actions, NULL-terminated (kernel/actions/kai/builtin.c). */
extern const tph_kai_action *const tph_kai_builtin_actions[];

/* Evict task t now (KAI's Evict outside a statement): Releasing, recorded. */
int tph_kai_evict(tph_kai_session *s, uint32_t t);

/* KAI's status sets (pod_status): alive, active-used (holding a node), active-allocated. */
bool tph_kai_alive(uint8_t status);
bool tph_kai_active_used(uint8_t status);
bool tph_kai_active_allocated(uint8_t status);

/* Whether job j's gang is satisfied when each task counts for `counts(status)`: every pod set
 * at its minMember, every set with minSubGroup children satisfied, the root likewise. */
bool tph_kai_gang_satisfied(const tph_kai_session *s, uint32_t j, bool (*counts)(uint8_t));

#endif
