/* Exact shortcuts of the hypernode search. A dry run succeeds only when the job (or subjob)
 * is ready or pipelined afterwards; when the builtin gang votes on both, that takes `need`
 * more placed tasks. A hypernode's nodes can take at most as many tasks as the smallest
 * requests add up to within its summed future idle, and at most, summed over its nodes, as
 * many as the smallest requests fit each node's future idle (upper bounds on what fits node
 * by node, valid while no node has a negative future idle). A node that the verdict of every
 * equivalence class among the worksheet's tasks fails takes none: the run places a task only
 * on a node its class passes, so such a node is never touched and its verdicts stand (the
 * classes' own contract, action_eqc.c). With one class the bound counts only passing nodes;
 * with several, only a run that would place nothing is skipped (the tasks a discarded run
 * placed show in the job's readout). A dry run whose need exceeds the bound fails for
 * sure, so it is skipped; its fit errors are not needed when another run resets them (see
 * allocate_hn_job.c). */
#include "allocate_fast.h"
#include "allocate_hn.h"

#include "base/mem.h"
#include "base/registry_int.h"
#include "session/fit.h"

#include <stdlib.h>
#include <string.h>

#define CKEY_UNSEEN 0xffff

static bool builtin_gang(const tph_plugin *desc)
{
	for (const tph_plugin *const *b = tph_builtin_plugins; *b; b++)
		if (*b == desc)
			return !strcmp(desc->name, "gang");
	return false;
}

static bool gang_votes(const tph_session *s, tph_ep ep)
{
	const tph_ep_list *l = &s->ep[ep];
	for (uint32_t i = 0; i < l->n; i++)
		if (builtin_gang(s->plugins[l->e[i].plugin].desc))
			return true;
	return false;
}

/* Future idle never goes negative through allocate (it allocates into idle and pipelines
 * into future idle), so one look at the start holds for the whole action. */
static bool no_negative_room(const tph_session *s)
{
	const tph_node_store *ns = &s->nodes;
	for (uint32_t d = 0; d < s->ndim; d++) {
		if (d == TPH_RES_PODS)
			continue;
		for (uint32_t i = 0; i < s->n_ready; i++) {
			size_t at = (size_t)d * ns->stride + s->ready_nodes[i];
			if (ns->idle[at] + ns->releasing[at] - ns->pipelined[at] < 0)
				return false;
		}
	}
	return true;
}

int ahn_bound_init(ahn_ctx *h)
{
	tph_session *s = h->s;
	if (tph_hn_aggregates(s))
		return TPH_ENOMEM;
	h->memo = TPH_ACT_NEW(s, uint32_t, s->topo->t.n + 1);
	h->ranked = TPH_ACT_NEW(s, tph_scored, s->topo->t.n + 1);
	h->verdict = TPH_ACT_NEW(s, tph_reason_code, s->nodes.n + 1);
	h->rank_hn = TPH_ACT_NEW(s, tph_idx, s->topo->t.n + 1);
	h->rank_sc = TPH_ACT_NEW(s, double, s->topo->t.n + 1);
	h->row_v = TPH_ACT_NEW(s, int64_t, (size_t)AHN_ROWS * s->ndim + 1);
	h->ckey_row = TPH_ACT_NEW(s, int64_t, (size_t)AHN_CKEYS * s->ndim + 1);
	h->placed0 = TPH_ACT_NEW(s, int64_t, s->ndim + 1);
	if (!h->memo || !h->ranked || !h->verdict || !h->rank_hn || !h->rank_sc || !h->row_v ||
	    !h->ckey_row || !h->placed0)
		return TPH_ENOMEM;
	/* node sampling rotates its start on every filter call: every run must happen, in order;
	 * naive mode keeps the plain search as the reference */
	h->memo_on = !h->c->opts.sampling && !s->opts.naive;
	h->prune = h->memo_on && no_negative_room(s);
	h->refusal_stands = h->memo_on && tph_allocatable_locality(s) == TPH_ALLOC_QUEUE;
	h->q_cap = INT64_MAX;
	h->gang_job = gang_votes(s, TPH_EP_JOB_READY) && gang_votes(s, TPH_EP_JOB_PIPELINED);
	h->gang_sj = gang_votes(s, TPH_EP_SUBJOB_READY) && gang_votes(s, TPH_EP_SUBJOB_PIPELINED);
	return TPH_OK;
}

/* Tasks counted by gang: occupied (allocated or succeeded), pipelined, pending best-effort. */
static int64_t have(const uint32_t *c, uint32_t be)
{
	return (int64_t)c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] + c[TPH_TS_BOUND] +
	       c[TPH_TS_RUNNING] + c[TPH_TS_SUCCEEDED] + c[TPH_TS_PIPELINED] + be;
}

static uint32_t job_pending_be(const tph_session *s, tph_idx j)
{
	const tph_subjobs *o = tph_subjobs_of(s);
	uint32_t n = 0;
	for (uint32_t k = o->job_off[j]; k < o->job_off[j + 1]; k++)
		n += o->be_pending[k];
	return n;
}

int64_t ahn_job_have(const ahn_ctx *h, tph_idx job)
{
	return have(h->s->js.count + (size_t)job * TPH_TS_COUNT, job_pending_be(h->s, job));
}

int64_t ahn_need(const ahn_ctx *h, const ahn_ws *w, tph_idx k)
{
	const tph_session *s = h->s;
	const tph_subjobs *o = tph_subjobs_of(s);
	int64_t need = 1;
	if (k != TPH_NOIDX && ahn_policy_job(w)) {
		if (h->gang_sj)
			need =
			    o->min_available[k] - have(tph_subjob_counts(s, k), o->be_pending[k]);
	} else if (h->gang_job) {
		need = s->jobs->min_member[w->job] - ahn_job_have(h, w->job);
	}
	return need < 1 ? 1 : need;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* A job's tasks mostly ask for one row, or a few rows in runs: an insertion sort is about one
 * comparison a task there; qsort takes over past SORT_SMALL tasks out of order. */
#define SORT_SMALL 32u
static void sort_i64(int64_t *v, uint32_t n)
{
	uint32_t moved = 0;
	for (uint32_t i = 1; i < n; i++) {
		int64_t x = v[i];
		uint32_t j = i;
		for (; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
		if (j != i && ++moved > SORT_SMALL) {
			qsort(v, n, sizeof *v, cmp_i64);
			return;
		}
	}
}

/* Whether task t asks for at least row v in every bounded dimension. */
static bool covers(const tph_session *s, const ahn_ws *w, tph_idx t, const int64_t *v)
{
	const int64_t *req = s->tasks.req + (size_t)t * s->ndim;
	for (uint32_t x = 0; x < w->n_dim; x++)
		if (req[w->dim[x]] < v[x])
			return false;
	return true;
}

/* The shared row of cut c (over every dimension, zero where the cut asks for nothing):
 * found or added; AHN_ROWS when the table is full. */
static uint32_t cut_row(ahn_ctx *h, const ahn_ws *w, const ahn_cut *c)
{
	uint32_t nd = h->s->ndim;
	int64_t row[TPH_RES_MAX] = {0};
	for (uint32_t x = 0; x < w->n_dim; x++)
		row[w->dim[x]] = c->v[x];
	for (uint32_t r = 0; r < h->n_rows; r++)
		if (!memcmp(h->row_v + (size_t)r * nd, row, nd * sizeof *row))
			return r;
	if (h->n_rows == AHN_ROWS)
		return AHN_ROWS;
	memcpy(h->row_v + (size_t)h->n_rows * nd, row, nd * sizeof *row);
	return h->n_rows++;
}

/* The cuts: the distinct request rows of the worksheet's first tasks (at most AHN_CUTS rows),
 * each with the number of tasks that do not ask for that much. */
static int cuts_build(ahn_ctx *h, ahn_ws *w)
{
	tph_session *s = h->s;
	uint32_t n = w->off[w->n_sj];
	w->cut = TPH_ACT_NEW(s, ahn_cut, AHN_CUTS);
	if (!w->cut)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < n && w->n_cut < AHN_CUTS; i++) {
		const int64_t *req = s->tasks.req + (size_t)w->task[i] * s->ndim;
		ahn_cut *c = &w->cut[w->n_cut];
		bool seen = false, some = false;
		if (!c->v && !(c->v = TPH_ACT_NEW(s, int64_t, w->n_dim)))
			return TPH_ENOMEM;
		for (uint32_t x = 0; x < w->n_dim; x++)
			some |= (c->v[x] = req[w->dim[x]]) != 0;
		for (uint32_t k = 0; k < w->n_cut && !seen; k++)
			seen = !memcmp(w->cut[k].v, c->v, w->n_dim * sizeof *c->v);
		if (seen || !some)
			continue;
		for (uint32_t k = 0; k < n; k++)
			c->below += !covers(s, w, w->task[k], c->v);
		c->row = cut_row(h, w, c);
		w->n_cut++;
	}
	return TPH_OK;
}

/* The class of each task, found by comparing it with the first task of each class so far. */
static int classes_build(ahn_ctx *h, ahn_ws *w)
{
	tph_session *s = h->s;
	uint32_t n = w->off[w->n_sj];
	tph_idx first[AHN_CLASSES];
	w->cls = TPH_ACT_NEW(s, uint8_t, n + 1);
	if (!w->cls)
		return TPH_ENOMEM;
	w->n_cls = 0;
	for (uint32_t c = 0; c < AHN_CLASSES; c++)
		w->ckey[c] = CKEY_UNSEEN;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = 0;
		while (c < w->n_cls && !tph_eqc_same_class(s, first[c], w->task[i]))
			c++;
		if (c == AHN_CLASSES) {
			w->n_cls = 0;
			return TPH_OK;
		}
		if (c == w->n_cls)
			first[w->n_cls++] = w->task[i];
		w->cls[i] = (uint8_t)c;
	}
	return TPH_OK;
}

/* Per dimension some task asks for (pods aside), the sorted requests' prefix sums. */
static int prefix_build(ahn_ctx *h, ahn_ws *w)
{
	tph_session *s = h->s;
	uint32_t n = w->off[w->n_sj], nd = 0;
	w->dim = TPH_ACT_NEW(s, uint32_t, s->ndim + 1);
	w->prefix = TPH_ACT_NEW(s, int64_t, (size_t)s->ndim * (n + 1) + 1);
	if (!w->dim || !w->prefix)
		return TPH_ENOMEM;
	for (uint32_t d = 0; d < s->ndim; d++) {
		int64_t *p = w->prefix + (size_t)nd * (n + 1);
		bool any = false;
		for (uint32_t i = 0; i < n; i++) {
			p[i + 1] = s->tasks.req[(size_t)w->task[i] * s->ndim + d];
			any |= p[i + 1] != 0;
		}
		if (d == TPH_RES_PODS || !any)
			continue;
		sort_i64(p + 1, n);
		for (uint32_t i = 0; i < n; i++)
			p[i + 1] += p[i];
		w->dim[nd++] = d;
	}
	w->n_dim = nd ? nd : UINT32_MAX;
	if (classes_build(h, w))
		return TPH_ENOMEM;
	return nd ? cuts_build(h, w) : TPH_OK;
}

void ahn_sum_prep(ahn_ctx *h, ahn_ws *w, int64_t need, ahn_sum *out)
{
	out->n = 0;
	out->all = false;
	if (!w->n_dim && prefix_build(h, w))
		return;
	if (w->n_dim == UINT32_MAX || need < 1)
		return;
	uint32_t n = w->off[w->n_sj];
	if (need > n) {
		out->all = true;
		return;
	}
	/* the `need` smallest requests are the cheapest `need` tasks: they fit, or none do */
	for (uint32_t i = 0; i < w->n_dim; i++) {
		out->dim[i] = w->dim[i];
		out->v[i] = w->prefix[(size_t)i * (n + 1) + (size_t)need];
	}
	out->n = w->n_dim;
}

/* Whether hn's summed future idle is short of sum's dimensions (sum->all aside); without a
 * branch per dimension, for ahn_sum_keep's pass over a group. */
static inline bool dims_short(const tph_hn_tree *t, const ahn_sum *sum, tph_idx hn)
{
	bool short_of = false;
	for (uint32_t i = 0; i < sum->n; i++) {
		size_t at = (size_t)sum->dim[i] * t->n + hn;
		short_of |= sum->v[i] > t->idle[at] + t->releasing[at] - t->pipelined[at];
	}
	return short_of;
}

bool ahn_sum_short(const ahn_ctx *h, const ahn_sum *sum, tph_idx hn)
{
	return sum->all || dims_short(&h->s->topo->t, sum, hn);
}

/* One pass of ahn_sum_keep over dimension dim (v asked): the hypernodes of hns[0..n) (`first`,
 * positions 0..n-1), else of at[0..n) with their positions in o, kept in at and o when not
 * short, in order; how many. Columns and values in locals: the stores could alias them. */
static inline uint32_t keep_pass(const tph_hn_tree *t, uint32_t dim, int64_t v, const tph_idx *hns,
                                 uint32_t n, tph_idx *at, tph_scored *o, bool first)
{
	size_t off = (size_t)dim * t->n;
	const int64_t *idle = t->idle + off, *rel = t->releasing + off, *pip = t->pipelined + off;
	uint32_t c = 0;
	for (uint32_t j = 0; j < n; j++) {
		tph_idx hn = first ? hns[j] : at[j];
		uint32_t pos = first ? j : o[j].pos;
		at[c] = hn;
		o[c].pos = pos;
		c += !(v > idle[hn] + rel[hn] - pip[hn]);
	}
	return c;
}

/* A dimension at a time, each pass over the hypernodes the last one kept, in their order: the
 * same list as one pass asking every dimension of every hypernode, with fewer loads. */
uint32_t ahn_sum_keep(const ahn_ctx *h, const ahn_sum *sum, const tph_idx *hns, uint32_t n,
                      tph_idx *at, tph_scored *o)
{
	const tph_hn_tree *t = &h->s->topo->t;
	if (sum->all)
		return 0;
	if (!sum->n) {
		for (uint32_t k = 0; k < n; k++) {
			at[k] = hns[k];
			o[k].pos = k;
		}
		return n;
	}
	uint32_t c = keep_pass(t, sum->dim[0], sum->v[0], hns, n, at, o, true);
	for (uint32_t i = 1; i < sum->n && c; i++)
		c = keep_pass(t, sum->dim[i], sum->v[i], NULL, c, at, o, false);
	return c;
}

void ahn_placed_sum(const ahn_ctx *h, const ahn_ws *w, int64_t *sum)
{
	const tph_session *s = h->s;
	memset(sum, 0, s->ndim * sizeof *sum);
	for (uint32_t i = 0; i < w->off[w->n_sj]; i++) {
		tph_idx t = w->task[i];
		if (s->tasks.status[t] == TPH_TS_PENDING)
			continue;
		for (uint32_t d = 0; d < s->ndim; d++)
			sum[d] += s->tasks.req[(size_t)t * s->ndim + d];
	}
}

/* Whether any j of the worksheet's tasks ask for at least a in every dimension: per bounded
 * dimension its j smallest requests (the prefix sums), pods j times the fewest asked, the
 * other dimensions no task asks for. */
static bool j_reach(const ahn_ctx *h, const ahn_ws *w, uint32_t j, const int64_t *a, int64_t pods)
{
	uint32_t n = w->off[w->n_sj];
	for (uint32_t x = 0; w->n_dim != UINT32_MAX && x < w->n_dim; x++)
		if (w->prefix[(size_t)x * (n + 1) + j] < a[w->dim[x]])
			return false;
	if (TPH_RES_PODS >= h->s->ndim || a[TPH_RES_PODS] <= 0)
		return true;
	/* j * pods >= a without the product (a request may be huge) */
	return pods > 0 && j >= a[TPH_RES_PODS] / pods + (a[TPH_RES_PODS] % pods != 0);
}

/* The search's runs all start from one state, and under TPH_ALLOC_QUEUE the queue's verdict
 * there is a function of the row asked and of the sum a of the rows the run placed, a no
 * standing for any larger sum. So a refusal of `row` at a refuses that row in every run
 * once it has placed J tasks, J the fewest whose smallest requests reach a: a run places
 * tasks of the row only while below J, and at most every task of another row besides. */
int64_t ahn_refused_cap(ahn_ctx *h, ahn_ws *w, const int64_t *row)
{
	const tph_session *s = h->s;
	uint32_t n = w->off[w->n_sj], other = 0, nd = s->ndim;
	int64_t a[TPH_RES_MAX], pods = INT64_MAX;
	if ((!w->n_dim && prefix_build(h, w)) || nd > TPH_RES_MAX)
		return INT64_MAX;
	ahn_placed_sum(h, w, a);
	for (uint32_t d = 0; d < nd; d++)
		a[d] -= h->placed0[d];
	for (uint32_t i = 0; i < n; i++) {
		const int64_t *req = s->tasks.req + (size_t)w->task[i] * nd;
		other += memcmp(req, row, nd * sizeof *row) != 0;
		if (TPH_RES_PODS < nd && req[TPH_RES_PODS] < pods)
			pods = req[TPH_RES_PODS];
	}
	for (uint32_t j = 0; j <= n; j++)
		if (j_reach(h, w, j, a, pods))
			return (int64_t)j + other;
	return INT64_MAX;
}

/* How many tasks asking for v[x] in dimension dim[x] (x < n; none where v[x] is 0) node
 * takes at most: min over them of floor(future idle / v[x]). */
static int64_t node_takes(const tph_node_store *ns, tph_idx node, const uint32_t *dim,
                          const int64_t *v, uint32_t n)
{
	int64_t most = INT64_MAX;
	for (uint32_t x = 0; x < n; x++) {
		if (!v[x])
			continue;
		size_t at = (size_t)dim[x] * ns->stride + node;
		int64_t k = (ns->idle[at] + ns->releasing[at] - ns->pipelined[at]) / v[x];
		most = k < most ? k : most;
	}
	return most;
}

/* Node by node, for one cut (a request row v): tasks asking for at least v in every
 * dimension are at most node_takes per node, the others at most their number. Counts until
 * `need` is reached. */
static int64_t cut_room(const ahn_ctx *h, const ahn_ws *w, const ahn_cut *c, tph_idx hn,
                        int64_t need)
{
	const tph_idx *nodes;
	uint32_t n = tph_hn_nodes(&h->s->topo->t, hn, &nodes);
	int64_t total = c->below;
	for (uint32_t i = 0; i < n && total < need; i++)
		total += node_takes(&h->s->nodes, nodes[i], w->dim, c->v, w->n_dim);
	return total;
}

/* A pending task of each class of the worksheet into rep (TPH_NOIDX: none pending), as a
 * run asks; how many were found (0 also when classes are off or too many). */
static uint32_t class_reps(const ahn_ctx *h, const ahn_ws *w, tph_idx *rep)
{
	uint32_t found = 0, end = w->off[w->n_sj];
	if (!w->n_cls || !h->c->eqc)
		return 0;
	for (uint32_t c = 0; c < w->n_cls; c++)
		rep[c] = TPH_NOIDX;
	for (uint32_t i = 0; i < end && found < w->n_cls; i++)
		if (rep[w->cls[i]] == TPH_NOIDX && h->s->tasks.status[w->task[i]] == TPH_TS_PENDING)
			rep[w->cls[i]] = w->task[i], found++;
	return found;
}

/* Whether rep's class passes a node (a failure's code may differ from the filter's): where the
 * pod specs' verdicts are kept (allocate_fast.h's af_pred, shared by every job of the spec), a
 * node passes when they pass and the request fits its future idle, the two checks filtering
 * makes, asked node by node; else by the class's own columns, evaluated at once. */
typedef struct class_eval {
	alloc_fast *f;
	af_pred *v; /* NULL: the verdicts are in ahn_ctx.verdict */
	tph_fit_req r;
} class_eval;

static void class_prep(ahn_ctx *h, tph_idx rep, const tph_idx *nodes, uint32_t n, class_eval *e)
{
	e->f = h->c->fast;
	e->v = e->f && e->f->spec_only ? af_pred_of(e->f, rep) : NULL;
	if (!e->v) {
		tph_eqc_eval(h->c->eqc, rep, nodes, n, h->verdict);
		return;
	}
	af_pred_sync(e->f, e->v, rep);
	tph_fit_prepare(h->s, rep, NULL, true, &e->r);
}

static bool class_passes(const ahn_ctx *h, const class_eval *e, const tph_idx *nodes, uint32_t i)
{
	if (!e->v)
		return h->verdict[i] == TPH_PASS;
	return e->v->code[e->f->pos[nodes[i]]] == TPH_PASS &&
	       tph_fit_check(&h->s->nodes, &e->r, nodes[i], true) == TPH_PASS;
}

/* Whether a kept room answers "below want" now: counted while tph_hn_tree.moves[hn] stood
 * at stamp - 1, and complete or already at want. */
static bool room_known(const ahn_room *r, uint32_t stamp, int64_t want)
{
	return r && r->stamp == stamp && (r->all || r->room >= want);
}

/* Keep a room counted until want (complete when it stopped short of it). */
static void room_keep(ahn_room *r, uint32_t stamp, int64_t room, int64_t want)
{
	if (!r)
		return;
	r->stamp = stamp;
	r->room = room < AHN_ROOM_MAX ? (uint32_t)room : AHN_ROOM_MAX;
	r->all = room < want && room < AHN_ROOM_MAX;
}

/* Whether cut i's node-by-node room at hn is below need. Past the tasks below the cut, the
 * room is a function of the cut's row and hn's nodes' future idle alone, which changes only
 * when a task moves on one of them (the topology's move counter), so an earlier count for any
 * worksheet with the row answers while the counter stands: a full count always, a count
 * stopped early when it reached this need. */
static bool cut_short(ahn_ctx *h, ahn_ws *w, uint32_t i, tph_idx hn, int64_t need)
{
	const tph_hn_tree *t = &h->s->topo->t;
	const ahn_cut *c = &w->cut[i];
	if (c->row == AHN_ROWS ||
	    (!h->row_room[c->row] && !(h->row_room[c->row] = TPH_ACT_NEW(h->s, ahn_room, t->n))))
		return cut_room(h, w, c, hn, need) < need;
	ahn_room *r = &h->row_room[c->row][hn];
	int64_t want = need - c->below;
	if (room_known(r, t->moves[hn] + 1, want))
		return r->room < want;
	int64_t room = cut_room(h, w, c, hn, need) - c->below;
	room_keep(r, t->moves[hn] + 1, room, want);
	return room < want;
}

/* Class c's key (rep: one of its tasks): its pod spec's kept verdicts and its request row,
 * found or added; AHN_CKEYS when there are no kept verdicts or no room for the key. */
static uint32_t class_key(ahn_ctx *h, ahn_ws *w, uint32_t c, tph_idx rep)
{
	alloc_fast *f = h->c->fast;
	uint32_t nd = h->s->ndim, k = 0;
	const int64_t *row = h->s->tasks.req + (size_t)rep * nd;
	if (w->ckey[c] != CKEY_UNSEEN)
		return w->ckey[c];
	const af_pred *v = f && f->spec_only ? af_pred_of(f, rep) : NULL;
	while (k < h->n_ckeys && (h->ckey_pred[k] != v ||
	                          memcmp(h->ckey_row + (size_t)k * nd, row, nd * sizeof *row)))
		k++;
	if (!v || (k == h->n_ckeys && k == AHN_CKEYS)) {
		w->ckey[c] = AHN_CKEYS;
		return AHN_CKEYS;
	}
	if (k == h->n_ckeys) {
		h->ckey_pred[k] = v;
		memcpy(h->ckey_row + (size_t)k * nd, row, nd * sizeof *row);
		h->n_ckeys++;
	}
	w->ckey[c] = (uint16_t)k;
	return k;
}

/* Node by node, the tasks of rep's class that hn's nodes its verdicts pass can take (each at
 * most min over the requested dimensions but pods of floor(future idle / request); a node
 * that passes takes one at least, its request fitting), counted until need. */
static int64_t class_room(ahn_ctx *h, tph_idx rep, tph_idx hn, int64_t need)
{
	const tph_session *s = h->s;
	const int64_t *req = s->tasks.req + (size_t)rep * s->ndim;
	uint32_t dim[TPH_RES_MAX], nd = 0;
	int64_t v[TPH_RES_MAX], total = 0;
	for (uint32_t d = 0; d < s->ndim && d < TPH_RES_MAX; d++)
		if (d != TPH_RES_PODS && req[d])
			dim[nd] = d, v[nd++] = req[d];
	const tph_idx *nodes;
	uint32_t n = tph_hn_nodes(&s->topo->t, hn, &nodes);
	class_eval e;
	class_prep(h, rep, nodes, n, &e);
	for (uint32_t i = 0; i < n && total < need; i++)
		if (class_passes(h, &e, nodes, i))
			total += node_takes(&s->nodes, nodes[i], dim, v, nd);
	return total;
}

/* Whether class c's room at hn is below need. The verdicts of hn's nodes (the pod spec's,
 * node-local, and the fit) and their future idle change only when a task moves on one of
 * them, so a count for the class's key is kept with hn's move counter, as cut_short's. */
static bool class_short(ahn_ctx *h, ahn_ws *w, uint32_t c, tph_idx rep, tph_idx hn, int64_t need)
{
	const tph_hn_tree *t = &h->s->topo->t;
	uint32_t k = class_key(h, w, c, rep);
	ahn_room *r = NULL;
	if (k != AHN_CKEYS &&
	    (h->ckey_room[k] || (h->ckey_room[k] = TPH_ACT_NEW(h->s, ahn_room, t->n))))
		r = &h->ckey_room[k][hn];
	if (room_known(r, t->moves[hn] + 1, need))
		return r->room < need;
	int64_t room = class_room(h, rep, hn, need);
	room_keep(r, t->moves[hn] + 1, room, need);
	return room < need;
}

/* Whether some class with a pending task passes some node of hn (a node that passes takes
 * one task of the class at least). */
static bool some_pass(ahn_ctx *h, ahn_ws *w, const tph_idx *rep, tph_idx hn)
{
	for (uint32_t c = 0; c < w->n_cls; c++)
		if (rep[c] != TPH_NOIDX && !class_short(h, w, c, rep[c], hn, 1))
			return true;
	return false;
}

/* The node-by-node bound of every cut that still counts. */
static bool cuts_short(ahn_ctx *h, ahn_ws *w, tph_idx hn, int64_t need)
{
	for (uint32_t i = 0; w->n_dim != UINT32_MAX && i < w->n_cut; i++)
		if (w->cut[i].below < need && cut_short(h, w, i, hn, need))
			return true;
	return false;
}

bool ahn_hopeless(ahn_ctx *h, ahn_ws *w, tph_idx hn, int64_t need)
{
	if (!h->prune)
		return false;
	ahn_sum sum;
	ahn_sum_prep(h, w, need, &sum);
	return ahn_sum_short(h, &sum, hn) || cuts_short(h, w, hn, need);
}

/* The classes' part of ahn_doomed. */
static bool classes_short(ahn_ctx *h, ahn_ws *w, tph_idx hn, int64_t need)
{
	if (!h->prune || w->n_dim == UINT32_MAX)
		return false;
	tph_idx rep[AHN_CLASSES];
	uint32_t found = class_reps(h, w, rep);
	if (!found)
		return false;
	/* Several classes: only a run that would place nothing is skipped (what a discarded run
	 * placed shows in the job's readout). A class with no pending task has none a run visits
	 * (its queues hold pending tasks only), unless a held run placed them (ahn_ctx.held). */
	if (w->n_cls > 1)
		return (found == w->n_cls || !h->held) && need >= 1 && !some_pass(h, w, rep, hn);
	/* one class: its tasks ask for the one row, the cut's */
	if (w->n_cut != 1 || w->cut[0].below)
		return false;
	return class_short(h, w, 0, rep[0], hn, need);
}

bool ahn_doomed(ahn_ctx *h, ahn_ws *w, tph_idx hn, int64_t need)
{
	return h->shut || ahn_hopeless(h, w, hn, need) || classes_short(h, w, hn, need);
}

bool ahn_doomed_summed(ahn_ctx *h, ahn_ws *w, tph_idx hn, int64_t need)
{
	return h->shut || (h->prune && cuts_short(h, w, hn, need)) || classes_short(h, w, hn, need);
}
