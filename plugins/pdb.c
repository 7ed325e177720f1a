/* pdb: Volcano's pdb plugin (pkg/scheduler/plugins/pdb/pdb.go). PodDisruptionBudgets limit
 * eviction: Preemptable, Reclaimable and VictimTasks keep a candidate as a victim unless it
 * takes a budget that selects it below zero. Each call starts every budget afresh from its
 * status.disruptionsAllowed and spends it in candidate order, one disruption per selected
 * candidate that is not among the budget's disruptedPods; a candidate that takes any budget
 * below zero is not a victim, and it spends the others all the same. Which budgets each task
 * spends is worked out once at open; a call only counts. Reads no arguments. */
#include "tephra/alloc.h"
#include "tephra/k8s.h"
#include "tephra/plugin.h"

#include <stdlib.h>
#include <string.h>

/* Written at open; `left`, `stamp` and `call` by the victim callbacks (session thread). */
typedef struct pdb_st {
	uint8_t *labelled; /* [task] the pod has labels */
	uint32_t *off;     /* [task + 1]: task t spends budgets pdb[off[t] .. off[t + 1]); NULL
	                    * when there is no budget */
	uint32_t *pdb;
	const int32_t *allowed; /* [budget] status.disruptionsAllowed */
	int64_t *left;          /* [budget] what this call has left */
	uint32_t *stamp;        /* [budget] left[b] belongs to call `call` */
	uint32_t call, n_pdb;
} pdb_st;

/* ---- victims ---- */

static void next_call(pdb_st *g)
{
	if (++g->call == 0) { /* wrapped: stamps from 2^32 calls ago would look current */
		if (g->stamp)
			memset(g->stamp, 0, sizeof *g->stamp * g->n_pdb);
		g->call = 1;
	}
}

/* pdbFilterFn. A pod with no labels is never a victim: Volcano skips it before it looks at
 * the budgets ("will not match any PDB") and so never adds it, even when there is no budget. */
static void filter(pdb_st *g, const tph_idx *cands, uint32_t n, uint8_t *keep)
{
	const uint32_t *off = g->off;
	next_call(g);
	for (uint32_t i = 0; i < n; i++) {
		tph_idx t = cands[i];
		if (!g->labelled[t])
			continue;
		bool violated = false;
		for (uint32_t k = off ? off[t] : 0, end = off ? off[t + 1] : 0; k < end; k++) {
			uint32_t b = g->pdb[k];
			if (g->stamp[b] != g->call) {
				g->stamp[b] = g->call;
				g->left[b] = g->allowed[b];
			}
			violated |= --g->left[b] < 0;
		}
		keep[i] = !violated;
	}
}

/* Preemptable and Reclaimable ignore the preemptor and always decide (util.Permit). */
static int victims(void *st, const tph_session *s, tph_idx preemptor, const tph_idx *cands,
                   uint32_t n, uint8_t *keep)
{
	(void)s;
	(void)preemptor;
	filter(st, cands, n, keep);
	return 1;
}

static void victim_tasks(void *st, const tph_session *s, const tph_idx *tasks, uint32_t n,
                         uint8_t *victim)
{
	(void)s;
	filter(st, tasks, n, victim);
}

/* ---- open: which budgets each task spends ---- */

typedef struct by_ns {
	tph_sid ns;
	uint32_t pdb;
} by_ns;

static int cmp_ns(const void *a, const void *b)
{
	const by_ns *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->pdb < y->pdb ? -1 : x->pdb > y->pdb;
}

/* The first entry of ns in order[0..n), or n. */
static uint32_t first_of(const by_ns *order, uint32_t n, tph_sid ns)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (order[mid].ns < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool disrupted(const tph_pdb_meta *m, tph_sid pod)
{
	uint32_t lo = 0, hi = m->n_disrupted;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->disrupted[mid].pod < pod)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n_disrupted && m->disrupted[lo].pod == pod;
}

/* Volcano: a selector that LabelSelectorAsSelector makes nil (absent) or empty (no
 * requirement) selects no pod. */
static bool selects_some(const tph_selector_row *sel)
{
	return sel->present && sel->match_labels.n + sel->match_exprs.n > 0;
}

/* The budgets of task t, in budget order: written to out (when not NULL); returns how many. */
static uint32_t task_budgets(const tph_view *v, const by_ns *order, uint32_t n_order, tph_idx t,
                             uint32_t *out)
{
	const tph_pod_meta *m = v->tasks->meta[t];
	tph_sid ns = v->tasks->ns[t], name = v->tasks->name[t];
	uint32_t k = 0;
	for (uint32_t i = first_of(order, n_order, ns); i < n_order && order[i].ns == ns; i++) {
		const tph_pdb_meta *pm = v->pdbs->meta[order[i].pdb];
		if (!tph_k8s_selector_match(&pm->selector, m->labels) || disrupted(pm, name))
			continue;
		if (out)
			out[k] = order[i].pdb;
		k++;
	}
	return k;
}

/* Budgets that can select a pod, sorted by namespace: what a task's lookup searches. */
static by_ns *sorted_budgets(const tph_view *v, uint32_t *n_out)
{
	const tph_pdb_store *p = v->pdbs;
	by_ns *order = tph_malloc(((size_t)p->n + 1) * sizeof *order);
	uint32_t n = 0;
	for (uint32_t b = 0; order && b < p->n; b++)
		if (selects_some(&p->meta[b]->selector))
			order[n++] = (by_ns){p->ns[b], b};
	if (order)
		qsort(order, n, sizeof *order, cmp_ns);
	*n_out = n;
	return order;
}

/* CSR of the budgets each labelled task spends: counted, then written. */
static int index_tasks(tph_session *s, pdb_st *g, const by_ns *order, uint32_t n_order)
{
	const tph_view *v = tph_view_of(s);
	uint32_t nt = v->tasks->n;
	if (!(g->off = TPH_SESSION_NEW(s, uint32_t, (size_t)nt + 1)))
		return TPH_ENOMEM;
	uint64_t total = 0;
	for (tph_idx t = 0; t < nt; t++) {
		if (g->labelled[t])
			total += task_budgets(v, order, n_order, t, NULL);
		if (total > UINT32_MAX)
			return TPH_ENOMEM;
		g->off[t + 1] = (uint32_t)total;
	}
	if (total && !(g->pdb = TPH_SESSION_NEW(s, uint32_t, total)))
		return TPH_ENOMEM;
	for (tph_idx t = 0; t < nt && total; t++)
		if (g->off[t + 1] > g->off[t])
			task_budgets(v, order, n_order, t, g->pdb + g->off[t]);
	return TPH_OK;
}

static int budgets_open(tph_session *s, pdb_st *g)
{
	const tph_view *v = tph_view_of(s);
	g->n_pdb = v->pdbs->n;
	g->allowed = v->pdbs->disruptions_allowed;
	g->left = TPH_SESSION_NEW(s, int64_t, g->n_pdb);
	g->stamp = TPH_SESSION_NEW(s, uint32_t, g->n_pdb);
	uint32_t n_order = 0;
	by_ns *order = g->left && g->stamp ? sorted_budgets(v, &n_order) : NULL;
	int rc = order ? index_tasks(s, g, order, n_order) : TPH_ENOMEM;
	tph_free(order);
	return rc;
}

static int pdb_open(tph_session *s, void *st, const tph_args *args)
{
	(void)args;
	pdb_st *g = st;
	const tph_view *v = tph_view_of(s);
	const tph_task_store *ts = v->tasks;
	if (!(g->labelled = TPH_SESSION_NEW(s, uint8_t, (size_t)ts->n + 1)))
		return TPH_ENOMEM;
	for (tph_idx t = 0; t < ts->n; t++)
		g->labelled[t] = ts->meta && ts->meta[t] && ts->meta[t]->labels.n > 0;
	int rc = TPH_VIEW_HAS(v, pdbs) && v->pdbs->n ? budgets_open(s, g) : TPH_OK;
	if (!rc)
		rc = tph_on_preemptable(s, victims);
	if (!rc)
		rc = tph_on_reclaimable(s, victims);
	if (!rc)
		rc = tph_on_victim_tasks(s, victim_tasks);
	return rc;
}

const tph_plugin tph_plugin_pdb = {
    .abi = TPH_PLUGIN_ABI,
    .name = "pdb",
    .state_size = sizeof(pdb_st),
    .on_session_open = pdb_open,
};
