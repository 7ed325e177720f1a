/* Refusal reasons with numbers (why.h). */
#include "why.h"

#include <stdio.h>
#include <string.h>

#include "tephra/columns.h"
#include "tephra/resource.h"

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

/* What snprintf(buf + n, cap - n, "%s%s...", pieces...) writes when n < cap: the pieces
 * copied while room is left, the text cut and ended where snprintf cuts it. Returns n plus
 * the pieces' whole length, as n + snprintf's result. No format parsing: the reasons are
 * written for every refused job. */
static size_t put(char *buf, size_t cap, size_t n, const char *const *piece, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		size_t len = strlen(piece[i]);
		if (n < cap) {
			size_t k = len < cap - 1 - n ? len : cap - 1 - n;
			memcpy(buf + n, piece[i], k);
			buf[n + k] = '\0';
		}
		n += len;
	}
	return n;
}

void why_over(const tph_session *s, tph_idx job, const why_over_args *a)
{
	char names[256] = "", nums[512] = "", x[48], y[48], z[48];
	size_t nn = 0, nm = 0;
	uint32_t nd = tph_view_of(s)->ndim;
	for (uint32_t d = 0; d < nd; d++) {
		if (!over(a, d))
			continue;
		const char *dn = tph_session_dim_name(s, d);
		why_qty(s, d, a->base[d], x, sizeof x);
		why_qty(s, d, a->req[d], y, sizeof y);
		why_qty(s, d, a->limit[d], z, sizeof z);
		const char *np[] = {nn ? ", " : "", a->verb, " ", dn};
		if (nn < sizeof names)
			nn = put(names, sizeof names, nn, np, sizeof np / sizeof *np);
		const char *mp[] = {
		    nm ? ", " : "", dn,  " ", x, " ", a->base_name, " + ", y, " requested > ",
		    a->limit_name,  " ", z};
		if (nm < sizeof nums)
			nm = put(nums, sizeof nums, nm, mp, sizeof mp / sizeof *mp);
	}
	if (!nn)
		tph_job_reason(s, job, "%s (%s)", a->prefix, a->scope);
	else
		tph_job_reason(s, job, "%s: %s (%s: %s)", a->prefix, names, a->scope, nums);
}
