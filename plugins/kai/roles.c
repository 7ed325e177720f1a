/* KAI's role TaskOrder plugins (plugins/kubeflow, plugins/ray): a pod whose role label names a
 * leader goes before one that does not — kubeflow's training.kubeflow.org/job-role master or
 * launcher, ray's ray.io/node-type head. Each reads the labels once at open into a flag per
 * task, so comparisons touch no strings. */
#include "kai_plugins.h"

#include "tephra/alloc.h"

#include <string.h>

typedef struct role_rule {
	const char *name, *key;
	const char *leaders[3]; /* NULL-terminated */
} role_rule;

static const role_rule kubeflow = {
    "kubeflow", "training.kubeflow.org/job-role", {"master", "launcher", NULL}};
static const role_rule ray = {"ray", "ray.io/node-type", {"head", NULL}};

static bool leads(const role_rule *r, const tph_kv_list *labels)
{
	for (uint32_t i = 0; i < labels->n; i++) {
		if (strcmp(labels->items[i].key, r->key) != 0)
			continue;
		for (const char *const *l = r->leaders; *l; l++)
			if (strcmp(labels->items[i].value, *l) == 0)
				return true;
		return false;
	}
	return false;
}

static int leader_first(void *state, const tph_kai_session *s, uint32_t l, uint32_t r)
{
	const uint8_t *leader = state;
	(void)s;
	return leader[l] == leader[r] ? 0 : leader[l] ? -1 : 1;
}

static int open_role(const role_rule *r, tph_kai_session *s, void **state, tph_diag *d)
{
	const tph_kai_tasks *k = &tph_kai_session_view(s)->tasks;
	uint8_t *leader = tph_calloc((size_t)k->n + 1, 1);
	*state = leader;
	if (!leader)
		return tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", r->name);
	for (uint32_t t = 0; t < k->n; t++)
		leader[t] = leads(r, &k->labels[t]);
	int rc = tph_kai_add_task_order(s, leader_first, leader);
	return rc < 0 ? tph_diag_set(d, rc, "%s: cannot register", r->name) : TPH_OK;
}

static int open_kubeflow(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	return open_role(&kubeflow, s, state, d);
}

static int open_ray(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	return open_role(&ray, s, state, d);
}

static void close_role(tph_kai_session *s, void *state)
{
	(void)s;
	tph_free(state);
}

const tph_kai_plugin tph_kai_plugin_kubeflow = {TPH_KAI_PLUGIN_ABI, "kubeflow", open_kubeflow,
                                                close_role};
const tph_kai_plugin tph_kai_plugin_ray = {TPH_KAI_PLUGIN_ABI, "ray", open_ray, close_role};
