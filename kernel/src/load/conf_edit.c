/* Editing a loaded conf: a harness replaces one plugin argument before any session opens on the
 * conf (the loopback extender's address for `extender.urlPrefix`). */
#include "load/conf_int.h"

#include <string.h>

/* `value` as a quoted scalar: a string whatever it looks like, as the getters read it. */
static int set_scalar(tph_conf *conf, tph_arg *a, const char *key, const char *value)
{
	size_t len = strlen(value);
	if (len > UINT32_MAX - 1)
		return TPH_EINVAL;
	char *text = yu_strndup(&conf->arena, value, len);
	if (!text)
		return TPH_ENOMEM;
	*a = (tph_arg){.kind = TPH_ARGV_SCALAR,
	               .quoted = true,
	               .file = conf->file,
	               .key = key,
	               .text = text,
	               .len = (uint32_t)len};
	return TPH_OK;
}

/* Replace every entry of `key` in the plugin's arguments, or append one. */
static int set_in(tph_conf *conf, tph_conf_plugin *p, const char *key, const char *value)
{
	tph_arg *m = &p->args;
	char *k = yu_strndup(&conf->arena, key, strlen(key));
	if (!k)
		return TPH_ENOMEM;
	bool found = false;
	for (uint32_t i = 0; i < m->n; i++) {
		if (!m->items[i].key || strcmp(m->items[i].key, key))
			continue;
		int rc = set_scalar(conf, &m->items[i], k, value);
		if (rc)
			return rc;
		found = true;
	}
	if (found)
		return TPH_OK;
	/* The old entries stay in the arena; only the array is new. */
	tph_arg *items = yu_alloc_array(&conf->arena, (size_t)m->n + 1, sizeof *items);
	if (!items)
		return TPH_ENOMEM;
	if (m->n)
		memcpy(items, m->items, m->n * sizeof *items);
	int rc = set_scalar(conf, &items[m->n], k, value);
	if (rc)
		return rc;
	if (!p->has_args)
		*m = (tph_arg){
		    .kind = TPH_ARGV_MAP, .file = conf->file, .line = p->line, .col = p->col};
	m->kind = TPH_ARGV_MAP;
	m->items = items;
	m->n++;
	p->has_args = true;
	return TPH_OK;
}

int tph_conf_set_plugin_arg(tph_conf *conf, const char *plugin, const char *key, const char *value)
{
	if (!conf || !plugin || !key || !value || !*key)
		return TPH_EINVAL;
	int changed = 0;
	for (uint32_t t = 0; t < conf->n_tiers; t++)
		for (uint32_t i = 0; i < conf->tiers[t].n_plugins; i++) {
			tph_conf_plugin *p = &conf->tiers[t].plugins[i];
			if (strcmp(p->name, plugin))
				continue;
			int rc = set_in(conf, p, key, value);
			if (rc)
				return rc;
			changed++;
		}
	return changed;
}
