/* The bound on the cluster-wide sums of each resource row (TPH_RES_TOTAL_MAX, resource.h),
 * checked over the whole cache before a snapshot is taken and by the scenario loader: every
 * value is at most 2^53, but a thousand of them would overflow the int64 sums that sessions
 * and plugins keep (cluster, queue, node and hypernode totals). */
#include "cluster_int.h"

#include "base/msg_text.h"

typedef struct total_col {
	uint8_t col, name, ns; /* ns 0: cluster-scoped (the key is the name) */
	const char *kind, *field;
} total_col;

/* Per kind, the row columns a session sums over objects. */
static const total_col node_cols[] = {{N_ALLOC, K_KEY, 0, "node", "allocatable"},
                                      {N_CAPACITY, K_KEY, 0, "node", "capacity"}};
static const total_col pod_cols[] = {{P_REQ, P_NAME, P_NS, "pod", "requests"}};
static const total_col pg_cols[] = {{G_MIN_RES, G_NAME, G_NS, "podgroup", "minResources"}};
static const total_col queue_cols[] = {{Q_CAP, K_KEY, 0, "queue", "capability"},
                                       {Q_DES, K_KEY, 0, "queue", "deserved"},
                                       {Q_GUA, K_KEY, 0, "queue", "guarantee"}};
static const total_col quota_cols[] = {{R_HARD, R_NAME, R_NS, "quota", "hard"},
                                       {R_USED, R_NAME, R_NS, "quota", "used"}};

static const char *sid_str(const tph_cluster *c, const tph_kind *k, uint8_t col, uint32_t s)
{
	return tph_strtab_str(&c->strs, KCOL(k, col, tph_sid)[s]);
}

static int too_big(const tph_cluster *c, const tph_kind *k, const total_col *t, uint32_t s,
                   uint32_t dim, tph_diag *d)
{
	char obj[4 * TPH_MSG_NAME_MAX];
	tph_cl_obj(obj, sizeof obj, t->kind, t->ns ? sid_str(c, k, t->ns, s) : NULL,
	           sid_str(c, k, t->name, s));
	return tph_diag_set(d, TPH_ERANGE,
	                    "%s: %s: %s summed over every %s passes 2^60 units here (the most "
	                    "one cluster holds of a resource)",
	                    obj, t->field, tph_strtab_str(&c->strs, c->dims.name[dim]), t->kind);
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

static int check_kind(const tph_cluster *c, const tph_kind *k, const total_col *cols, uint32_t n,
                      tph_cl_total_at *at, tph_diag *d)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t dim = 0, s = first_over(c, k, cols[i].col, &dim);
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

#define CHECK(k, cols) check_kind(c, &c->k, cols, sizeof cols / sizeof cols[0], at, d)

int tph_cl_check_totals(const tph_cluster *c, tph_cl_total_at *at, tph_diag *d)
{
	int rc;
	if ((rc = CHECK(nodes, node_cols)) || (rc = CHECK(pods, pod_cols)) ||
	    (rc = CHECK(pgs, pg_cols)) || (rc = CHECK(queues, queue_cols)))
		return rc;
	return CHECK(quotas, quota_cols);
}
