/* Refusal reasons with numbers (why.h). */
#include "why.h"

#include <stdio.h>

#include "tephra/columns.h"
#include "tephra/resource.h"
#include "tephra/textw.h"

size_t why_qty(const tph_session *s, uint32_t d, int64_t v, char *buf, size_t cap)
{
	if (v == INT64_MAX)
		return (size_t)snprintf(buf, cap, "unlimited");
	tph_res_unit u = (tph_res_unit)tph_view_of(s)->dims->unit[d];
	return tph_quantity_format(v, u, buf, cap);
}

static bool over(const why_over_args *a, uint32_t d)
{
	return a->req[d] > 0 && a->limit[d] != INT64_MAX && a->base[d] + a->req[d] > a->limit[d];
}

void why_over(const tph_session *s, tph_idx job, const why_over_args *a)
{
	char names[256], nums[512], x[48], y[48], z[48];
	tph_tw wn, wm; /* the cut snprintf made, without its per-call setup: one per refused job */
	tph_tw_init(&wn, names, sizeof names);
	tph_tw_init(&wm, nums, sizeof nums);
	bool any = false;
	uint32_t nd = tph_view_of(s)->ndim;
	for (uint32_t d = 0; d < nd; d++) {
		if (!over(a, d))
			continue;
		const char *dn = tph_session_dim_name(s, d);
		why_qty(s, d, a->base[d], x, sizeof x);
		why_qty(s, d, a->req[d], y, sizeof y);
		why_qty(s, d, a->limit[d], z, sizeof z);
		tph_tw_fmt(&wn, "%s%s %s", any ? ", " : "", a->verb, dn);
		tph_tw_fmt(&wm, "%s%s %s %s + %s requested > %s %s", any ? ", " : "", dn, x,
		           a->base_name, y, a->limit_name, z);
		any = true;
	}
	if (!any)
		tph_job_reason(s, job, "%s (%s)", a->prefix, a->scope);
	else
		tph_job_reason(s, job, "%s: %s (%s: %s)", a->prefix, names, a->scope, nums);
}
