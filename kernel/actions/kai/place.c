/* The placement walk shared by allocate and the job solver (place.h; KAI's
 * actions/common/allocate.go): sub-group tree, SubsetNodes' node sets from checkpoints,
 * NodePreOrder, summed NodeOrder with ties by node name, the first node a task fits. */
#include "place.h"

#include "base/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
/* Highest score first; equal scores by node name (its precomputed rank). */
static int by_score(const void *pa, const void *pb)
{
	const ranked *l = pa, *r = pb;
	if (l->score != r->score)
		return l->score > r->score ? -1 : 1;
	return l->rank < r->rank ? -1 : l->rank > r->rank;
}

/* The nodes of a set by summed score, highest first, ties by name; a node a plugin drops is
 * left out. Returns how many (in a->ranked). */
static uint32_t ordered_nodes(tph_kai_placer *a, uint32_t t, const uint32_t *set, uint32_t n)
{
	uint32_t kept = 0;
	memcpy(a->nodes, set, n * sizeof *set);
	tph_kai_node_pre_order(a->s, t, a->nodes, n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t node = a->nodes[i];
		double sc;
		if (tph_kai_node_score(a->s, t, node, &sc) == 0)
			a->ranked[kept++] = (ranked){sc, a->name_rank[node], node};
	}
	qsort(a->ranked, kept, sizeof *a->ranked, by_score);
	return kept;
}

void tph_kai_place_need(const tph_kai_session *s, uint32_t t, double need[TPH_KAI_DIMS])
{
	const tph_kai_tasks *k = &s->v->tasks;
	need[TPH_KAI_GPU] = tph_kai_gpu_shared(s, t) ? -HUGE_VAL : k->gpus[t];
	need[TPH_KAI_CPU] = (double)k->cpu_milli[t];
	need[TPH_KAI_MEMORY] = (double)k->memory[t];
}

/* The bound first: a node it rules out fails tph_kai_fits_future too (it must mirror that test:
 * no GPU bound for a shared pod), so most of a busy cluster is passed over with three loads. */
int tph_kai_place_eval(const tph_kai_session *s, uint32_t t, const double need[TPH_KAI_DIMS],
                       uint32_t node, double *sc)
{
	const double *idle = s->idle, *rel = s->releasing;
	size_t at = (size_t)node * TPH_KAI_DIMS;
	if (need[0] > idle[at] + rel[at] || need[1] > idle[at + 1] + rel[at + 1] ||
	    need[2] > idle[at + 2] + rel[at + 2])
		return 0;
	if (!tph_kai_fits_future(s, t, node) || tph_kai_node_score(s, t, node, sc))
		return 0;
	return *sc != *sc ? -2 : 1;
}

/* The node place_task's walk over ordered_nodes would take, found in one pass without the
 * sort (which was half of allocate on 10k-gpu: a 10k-node sort per task): the first node of
 * that order that fits is the best-ordered node among those that fit, and ranks are distinct,
 * so (score, rank) is a total order. Only fitting nodes are scored: NodeOrder functions are pure
 * (their score depends on the session, the task and the node, never on the call order), and
 * a node a plugin drops or that does not fit is skipped either way. A NaN score (no plugin
 * gives one) would make the sort's order ill-defined: -2 then asks for the sort. -1: none fits. */
static int64_t best_fitting(tph_kai_placer *a, uint32_t t, const uint32_t *set, uint32_t n)
{
	tph_kai_ranges_read(a->s);
	tph_kai_node_pre_order(a->s, t, set, n);
	int64_t best = tph_kai_kept_best(a, t, set, n);
	if (best != -3)
		return best;
	double need[TPH_KAI_DIMS], best_sc = 0;
	tph_kai_place_need(a->s, t, need);
	best = -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t node = set[i];
		double sc;
		int fit = tph_kai_place_eval(a->s, t, need, node, &sc);
		if (fit <= 0) {
			if (fit < 0)
				return fit;
			continue;
		}
		/* Predicates are pure too: asked only of a node that would win, as the walk asks
		 * them only of the nodes it reaches. */
		if ((best < 0 ||
		     tph_kai_ranked_before(sc, a->name_rank[node], best_sc, a->name_rank[best])) &&
		    tph_kai_predicate(a->s, t, node)) {
			best = node;
			best_sc = sc;
		}
	}
	return best;
}

/* A node set to try, and the subtree's tasks of this turn. */
typedef struct scope {
	const uint32_t *nodes;
	uint32_t n_nodes;
	const uint32_t *tasks;
	uint32_t n_tasks;
} scope;

/* Task t on a node it fits once releasing pods go: bound when idle suffices (and the turn is
 * not pipeline-only), else pipelined. */
static int take(tph_kai_placer *a, uint32_t t, uint32_t node)
{
	int rc = !a->pipeline_only && tph_kai_fits_idle(a->s, t, node)
	             ? tph_kai_stmt_allocate(a->s, t, node)
	             : tph_kai_stmt_pipeline(a->s, t, node);
	return rc < 0 ? rc : 1;
}

/* Place task t (PrePredicate first): the first node of the set, in score order, it fits (idle
 * plus releasing) whose predicates pass. 1 placed, 0 not, < 0 error. */
static int place_task(tph_kai_placer *a, uint32_t t, const scope *sc)
{
	if (!tph_kai_pre_predicate(a->s, t, (uint32_t)a->s->v->tasks.job[t]))
		return 0;
	int64_t best = a->s->naive ? -2 : best_fitting(a, t, sc->nodes, sc->n_nodes);
	if (best == -1)
		return 0;
	if (best >= 0)
		return take(a, t, (uint32_t)best);
	uint32_t n = ordered_nodes(a, t, sc->nodes, sc->n_nodes);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t node = a->ranked[i].node;
		if (tph_kai_fits_future(a->s, t, node) && tph_kai_predicate(a->s, t, node))
			return take(a, t, node);
	}
	return 0;
}

static int place_members(tph_kai_placer *a, uint32_t j, int32_t set, const scope *sc);
static int place_pod_set(tph_kai_placer *a, const scope *sc);

/* Whether sub-group sg is `set` or below it (-1: the root, above every sub-group). */
static bool under(const tph_kai_view *v, int32_t sg, int32_t set)
{
	for (; sg >= 0; sg = v->subgroups.parent[sg])
		if (sg == set)
			return true;
	return set < 0;
}

/* Whether set is outer's set in its order: then outer's own array is handed on, at whose
 * address the session may keep the set's free ranges (tph_kai_ranges_subset). */
static bool same_set(const scope *outer, const uint32_t *set, uint32_t n)
{
	return n == outer->n_nodes && memcmp(set, outer->nodes, n * sizeof *set) == 0;
}

/* Sub-group `sg` (-1: the root) of job j, on the nodes of `outer`: its tasks of this turn (none:
 * done), then each node set SubsetNodes proposes, in order, from a checkpoint, until one takes
 * them all. 1 placed, 0 not, < 0 error. */
static int place_subgroup(tph_kai_placer *a, uint32_t j, int32_t sg, const scope *outer)
{
	const tph_kai_view *v = a->s->v;
	uint32_t *mine = tph_calloc((size_t)outer->n_tasks + 1, sizeof *mine), n = 0;
	tph_kai_node_sets sets = {0};
	if (!mine)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < outer->n_tasks; i++)
		if (under(v, v->tasks.pod_set[outer->tasks[i]], sg))
			mine[n++] = outer->tasks[i];
	int rc =
	    n ? tph_kai_subset_nodes(a->s, j, sg, mine, n, outer->nodes, outer->n_nodes, &sets) : 1;
	for (uint32_t i = 0; n && rc >= 0 && i < sets.n; i++) {
		uint32_t cp = tph_kai_stmt_checkpoint(a->s);
		scope sc = {sets.nodes + sets.first[i], sets.first[i + 1] - sets.first[i], mine, n};
		sc.nodes = same_set(outer, sc.nodes, sc.n_nodes) ? outer->nodes : sc.nodes;
		rc = sg >= 0 && v->subgroups.pod_set[sg] ? place_pod_set(a, &sc)
		                                         : place_members(a, j, sg, &sc);
		if (rc != 0)
			break;
		tph_kai_stmt_rollback(a->s, cp);
	}
	tph_kai_node_sets_free(&sets);
	tph_free(mine);
	return rc;
}

/* The pod set's tasks of this turn, in order, on the set's nodes. */
static int place_pod_set(tph_kai_placer *a, const scope *sc)
{
	for (uint32_t i = 0; i < sc->n_tasks; i++) {
		int rc = place_task(a, sc->tasks[i], sc);
		if (rc <= 0)
			return rc;
	}
	return 1;
}

/* The members of set `set` (-1: the root) of job j in sub-group order, taken once before the
 * first is placed (KAI's orderedMembers in allocateMembersOnNodes). */
static int place_members(tph_kai_placer *a, uint32_t j, int32_t set, const scope *sc)
{
	const tph_kai_view *v = a->s->v;
	uint32_t first = v->jobs.sg_first[j], end = first + v->jobs.sg_count[j];
	tph_kai_order_members(a->s, j, set);
	for (uint32_t i = first; i < end; i++) {
		uint32_t c = a->s->sg_order[i];
		if (v->subgroups.parent[c] != set)
			continue;
		int rc = place_subgroup(a, j, (int32_t)c, sc);
		if (rc <= 0)
			return rc;
	}
	return 1;
}

int tph_kai_place_job(tph_kai_placer *p, uint32_t j, const uint32_t *tasks, uint32_t n_tasks,
                      const uint32_t *nodes, uint32_t n_nodes)
{
	scope all = {nodes, n_nodes, tasks, n_tasks};
	return place_subgroup(p, j, -1, &all);
}

/* Entries are addresses inside the view's name column, so a sorted entry tells its node. */
static int by_name(const void *pa, const void *pb)
{
	return strcmp(**(const char *const *const *)pa, **(const char *const *const *)pb);
}

int tph_kai_placer_init(tph_kai_placer *p, tph_kai_session *s)
{
	const tph_kai_view *v = s->v;
	size_t nn = (size_t)v->nodes.n + 1;
	*p = (tph_kai_placer){.s = s};
	const char *const **names = tph_calloc(nn, sizeof *names);
	p->name_rank = tph_calloc(nn, sizeof *p->name_rank);
	p->nodes = tph_calloc(nn, sizeof *p->nodes);
	p->ranked = tph_calloc(nn, sizeof *p->ranked);
	int rc = tph_kai_kept_new(&p->kept, s);
	if (!names || !p->name_rank || !p->nodes || !p->ranked || rc != TPH_OK) {
		tph_free(names);
		tph_kai_placer_free(p);
		return TPH_ENOMEM;
	}
	for (uint32_t n = 0; n < v->nodes.n; n++)
		names[n] = &v->nodes.name[n];
	qsort(names, v->nodes.n, sizeof *names, by_name);
	for (uint32_t r = 0; r < v->nodes.n; r++)
		p->name_rank[names[r] - v->nodes.name] = r;
	tph_free(names);
	return TPH_OK;
}

void tph_kai_placer_free(tph_kai_placer *p)
{
	tph_free(p->name_rank);
	tph_free(p->nodes);
	tph_free(p->ranked);
	tph_kai_kept_free(p->kept);
	p->name_rank = p->nodes = NULL;
	p->ranked = NULL;
	p->kept = NULL;
}
