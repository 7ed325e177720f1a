/* Unknown argument keys: a descriptor's spec table declares every key its plugin or action
 * reads; any other key in the conf gets a warning naming it (Volcano silently ignores it). */
#include "tephra/args.h"

#include <stdio.h>
#include <string.h>

static bool declared(const tph_arg_spec *spec, const char *key, int depth)
{
	for (const tph_arg_spec *sp = spec; sp && sp->key; sp++) {
		if (sp->include) {
			if (depth < 8 && declared(sp->include, key, depth + 1))
				return true;
			continue;
		}
		size_t n = strlen(sp->key);
		if (n && sp->key[n - 1] == '*' ? !strncmp(key, sp->key, n - 1)
		                               : !strcmp(key, sp->key))
			return true;
	}
	return false;
}

uint32_t tph_args_check_unknown(const tph_args *a, const tph_arg_spec *spec, tph_diag *d,
                                const char *owner)
{
	uint32_t unknown = 0;
	for (uint32_t i = 0, n = tph_args_count(a); i < n; i++) {
		const char *key = tph_args_key_at(a, i);
		if (!key || declared(spec, key, 0))
			continue;
		unknown++;
		tph_diag_warn(d, "%s: unknown argument %s (ignored, as Volcano does)", owner, key);
	}
	return unknown;
}
