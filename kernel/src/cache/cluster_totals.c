/* The bound on the cluster-wide sums of each resource row (TPH_RES_TOTAL_MAX, resource.h),
 * checked before a snapshot is taken and by the scenario loader: every value is at most 2^53,
 * but a thousand of them would overflow the int64 sums that sessions and plugins keep (cluster,
 * queue, node and hypernode totals). The sums are kept as objects are put and removed, so the
 * check reads them instead of the cache, and walks a column only to name the object at which
 * its running sum passes the bound. */
#include "cluster_int.h"

#include "base/msg_text.h"

#include <stddef.h>

typedef struct total_col {
	size_t kind;           /* offset of the tph_kind in tph_cluster */
	uint8_t col, name, ns; /* ns 0: cluster-scoped (the key is the name) */
	const char *field;
} total_col;

/* The row columns a session sums over objects, in the order they are checked. */
#define KIND(k) offsetof(tph_cluster, k)
static const total_col cols[TPH_CL_TOTAL_COLS] = {
    {KIND(nodes), N_ALLOC, K_KEY, 0, "allocatable"},
    {KIND(nodes), N_CAPACITY, K_KEY, 0, "capacity"},
    {KIND(pods), P_REQ, P_NAME, P_NS, "requests"},
    {KIND(pgs), G_MIN_RES, G_NAME, G_NS, "minResources"},
    {KIND(queues), Q_CAP, K_KEY, 0, "capability"},
    {KIND(queues), Q_DES, K_KEY, 0, "deserved"},
    {KIND(queues), Q_GUA, K_KEY, 0, "guarantee"},
    {KIND(quotas), R_HARD, R_NAME, R_NS, "hard"},
    {KIND(quotas), R_USED, R_NAME, R_NS, "used"}};

static const tph_kind *kind_of(const tph_cluster *c, const total_col *t)
{
	return (const tph_kind *)((const char *)c + t->kind);
}

static const char *sid_str(const tph_cluster *c, const tph_kind *k, uint8_t col, uint32_t s)
{
	return tph_strtab_str(&c->strs, KCOL(k, col, tph_sid)[s]);
}

static int too_big(const tph_cluster *c, const tph_kind *k, const total_col *t, uint32_t s,
                   uint32_t dim, tph_diag *d)
{
	char obj[4 * TPH_MSG_NAME_MAX];
	tph_cl_obj(obj, sizeof obj, k->what, t->ns ? sid_str(c, k, t->ns, s) : NULL,
	           sid_str(c, k, t->name, s));
	return tph_diag_set(d, TPH_ERANGE,
	                    "%s: %s: %s summed over every %s passes 2^60 units here (the most "
	                    "one cluster holds of a resource)",
	                    obj, t->field, tph_strtab_str(&c->strs, c->dims.name[dim]), k->what);
}

/* The first slot at which one column's running sum passes the bound, or TPH_NOIDX. */
static uint32_t first_over(const tph_cluster *c, const tph_kind *k, uint8_t col, uint32_t *dim)
{
	int64_t sum[TPH_RES_MAX] = {0};
	const uint8_t *live = KCOL(k, K_LIVE, uint8_t);
	for (uint32_t s = 0; s < k->n; s++) {
		if (!live[s])
			continue;
		const int64_t *row = tph_kind_at(c, k, col, s);
		for (uint32_t i = 0; i < c->dims.n; i++) {
			sum[i] += row[i]; /* both at most 2^60: no overflow */
			if (sum[i] > TPH_RES_TOTAL_MAX) {
				*dim = i;
				return s;
			}
		}
	}
	return TPH_NOIDX;
}

/* Every row value is in [0, 2^53] (tph_res_prepare refuses the rest), so a running sum passes
 * the bound somewhere iff the kept total does, and only then is the column walked again. */
static bool over(const tph_cluster *c, const tph_cl_sum *sum)
{
	for (uint32_t i = 0; i < c->dims.n; i++)
		if (sum[i].hi || sum[i].lo > (uint64_t)TPH_RES_TOTAL_MAX)
			return true;
	return false;
}

int tph_cl_check_totals(const tph_cluster *c, tph_cl_total_at *at, tph_diag *d)
{
	for (uint32_t i = 0; i < TPH_CL_TOTAL_COLS; i++) {
		const tph_kind *k = kind_of(c, &cols[i]);
		uint32_t dim = 0, s = over(c, c->totals[i]) ? first_over(c, k, cols[i].col, &dim)
		                                            : TPH_NOIDX;
		if (s == TPH_NOIDX)
			continue;
		if (at) {
			at->kind = k;
			at->slot = s;
		}
		return too_big(c, k, &cols[i], s, dim, d);
	}
	return TPH_OK;
}

void tph_cl_totals_move(tph_cluster *c, const tph_kind *k, uint32_t slot, int sign)
{
	for (uint32_t i = 0; i < TPH_CL_TOTAL_COLS; i++) {
		if (kind_of(c, &cols[i]) != k)
			continue;
		const int64_t *row = tph_kind_at(c, k, cols[i].col, slot);
		tph_cl_sum *sum = c->totals[i];
		for (uint32_t j = 0; j < c->dims.n; j++) {
			uint64_t v = (uint64_t)row[j], lo = sum[j].lo;
			if (sign > 0) {
				sum[j].lo = lo + v;
				sum[j].hi += sum[j].lo < lo; /* the carry */
			} else {
				sum[j].lo = lo - v;
				sum[j].hi -= lo < v; /* the borrow */
			}
		}
	}
}
