/* KAI's extension points in a session: plugins opened in the conf's (flattened) order register
 * victim filters and scenario validators, per action; dispatch follows KAI's rules (all must
 * pass). The registry freezes when the last plugin has opened. */
#include "kai_int.h"

#include "base/mem.h"
#include "load/conf_int.h"

#include <stdio.h>
#include <string.h>

int tph_kai_add_victim_filter(tph_kai_session *s, tph_kai_evict_action a,
                              tph_kai_victim_filter_fn fn, void *state)
{
	if ((unsigned)a > TPH_KAI_PREEMPT)
		return TPH_EINVAL;
	return tph_kai_hooks_add(s, &s->victim_filters[a], (void *)fn, state);
}

int tph_kai_add_scenario_validator(tph_kai_session *s, tph_kai_evict_action a,
                                   tph_kai_scenario_validator_fn fn, void *state)
{
	if ((unsigned)a > TPH_KAI_PREEMPT)
		return TPH_EINVAL;
	return tph_kai_hooks_add(s, &s->validators[a], (void *)fn, state);
}

bool tph_kai_victim_allowed(const tph_kai_session *s, tph_kai_evict_action a, uint32_t preemptor,
                            uint32_t victim)
{
	const tph_kai_hooks *h = &s->victim_filters[a];
	for (uint32_t i = 0; i < h->n; i++)
		if (!((tph_kai_victim_filter_fn)h->items[i].fn)(h->items[i].state, s, preemptor,
		                                                victim))
			return false;
	return true;
}

bool tph_kai_scenario_valid(const tph_kai_session *s, tph_kai_evict_action a,
                            const tph_kai_scenario *sc)
{
	const tph_kai_hooks *h = &s->validators[a];
	for (uint32_t i = 0; i < h->n; i++)
		if (!((tph_kai_scenario_validator_fn)h->items[i].fn)(h->items[i].state, s, sc))
			return false;
	return true;
}

static const tph_kai_plugin *find_plugin(const char *name)
{
	for (size_t i = 0; tph_kai_builtin_plugins[i]; i++)
		if (strcmp(tph_kai_builtin_plugins[i]->name, name) == 0)
			return tph_kai_builtin_plugins[i];
	return NULL;
}

/* KAI plugins that only serve HTTP (the snapshot dump, the job-order reflection): nothing of a
 * session's decisions comes from them, so they are opened as nothing, without a warning. */
static bool http_only(const char *name)
{
	return strcmp(name, "snapshot") == 0 || strcmp(name, "reflectjoborder") == 0;
}

/* One warning naming the conf's plugins left out (a long list ends in "..."). */
static void warn_unbuilt(const tph_kai_session *s, tph_diag *d)
{
	const tph_conf *c = s->conf;
	char names[256] = "";
	size_t at = 0;
	for (uint32_t i = 0; i < c->tiers[0].n_plugins; i++) {
		const char *name = c->tiers[0].plugins[i].name;
		if (find_plugin(name) || http_only(name))
			continue;
		int w = snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "", name);
		if (w < 0 || (size_t)w >= sizeof names - at) {
			memcpy(names + sizeof names - 4, "...", 4);
			break;
		}
		at += (size_t)w;
	}
	tph_diag_warn(d, "%s: %u KAI plugin(s) of the conf not built yet, left out: %s", c->file,
	              (unsigned)s->n_unbuilt, names);
}

int tph_kai_open_plugins(tph_kai_session *s, tph_diag *d)
{
	const tph_conf *c = s->conf;
	uint32_t n = c->n_tiers ? c->tiers[0].n_plugins : 0;
	s->plugins = tph_calloc((size_t)n + 1, sizeof *s->plugins);
	if (!s->plugins)
		return tph_diag_set(d, TPH_ENOMEM, "kai session: out of memory");
	for (uint32_t i = 0; i < n; i++) {
		const tph_conf_plugin *cp = &c->tiers[0].plugins[i];
		const tph_kai_plugin *p = find_plugin(cp->name);
		if (!p) {
			s->n_unbuilt += !http_only(cp->name);
			continue;
		}
		tph_kai_open_plugin *o = &s->plugins[s->n_plugins++];
		o->p = p;
		int rc = p->on_session_open(s, tph_args_of(&cp->args), &o->state, d);
		if (rc < 0)
			return rc;
	}
	s->frozen = true;
	if (s->n_unbuilt)
		warn_unbuilt(s, d);
	return TPH_OK;
}

void tph_kai_close_plugins(tph_kai_session *s)
{
	for (uint32_t i = s->n_plugins; i-- > 0;)
		if (s->plugins[i].p->on_session_close)
			s->plugins[i].p->on_session_close(s, s->plugins[i].state);
	tph_free(s->plugins);
	s->plugins = NULL;
	s->n_plugins = 0;
}

void tph_kai_free_hooks(tph_kai_session *s)
{
	for (int a = 0; a < 2; a++) {
		tph_free(s->victim_filters[a].items);
		tph_free(s->validators[a].items);
	}
	tph_kai_free_order_hooks(s);
	tph_kai_free_subset_hooks(s);
	tph_kai_free_solver_hooks(s);
	tph_kai_free_pred_hooks(s);
}

const tph_kai_view *tph_kai_session_view(const tph_kai_session *s)
{
	return s->v;
}

uint32_t tph_kai_session_job_tasks(const tph_kai_session *s, uint32_t j, const uint32_t **out)
{
	*out = s->job_tasks + s->job_first[j];
	return s->job_first[j + 1] - s->job_first[j];
}
