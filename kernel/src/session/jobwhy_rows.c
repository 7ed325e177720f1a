/* The decision log's job rows (tph_job_row), built at close from counts the session keeps,
 * the fit log's records and the marks of jobwhy.c: one kind and one line per pending job, and
 * the podgroup condition Volcano's gang plugin writes (gang.go OnSessionClose, with
 * JobInfo.FitError's message). Text is made here only, once per pending job. */
#include "jobwhy.h"

#include "cache/cluster_int.h"
#include "tephra/textw.h"
#include "fitlog.h"
#include "tephra/topology.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A growing line in a fixed buffer; overflow is cut, never overrun. */
typedef struct line {
	tph_tw w;
	char b[1536];
} line;

static void line_init(line *l)
{
	tph_tw_init(&l->w, l->b, sizeof l->b);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
put(line *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tph_tw_vfmt(&l->w, fmt, ap);
	va_end(ap);
}

static const char *keep(tph_session *s, const line *l)
{
	return tph_arena_strndup(&s->arena, l->b, l->w.n);
}

/* The facts of one job at close. */
typedef struct jfacts {
	tph_idx j;
	uint32_t tasks, ready, pending, sched_pending, unfit, pipelined;
	tph_idx first_unfit; /* the first task (job order) with a fit record */
} jfacts;

static void gather(tph_session *s, tph_idx j, jfacts *f)
{
	const tph_job_store *js = s->jobs;
	const uint32_t *c = s->js.count + (size_t)j * TPH_TS_COUNT;
	const uint8_t *tx = s->why->last_tx;
	*f = (jfacts){.j = j, .first_unfit = TPH_NOIDX};
	f->tasks = js->task_off[j + 1] - js->task_off[j];
	f->ready = c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] + c[TPH_TS_BOUND] + c[TPH_TS_RUNNING] +
	           c[TPH_TS_SUCCEEDED];
	f->pending = c[TPH_TS_PENDING];
	f->pipelined = c[TPH_TS_PIPELINED];
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		const uint32_t *p;
		bool rec = tph_fitlog_pairs(s, t, &p) > 0;
		if (rec && f->first_unfit == TPH_NOIDX)
			f->first_unfit = t;
		if (s->tasks.status[t] != TPH_TS_PENDING)
			continue;
		f->unfit += rec;
		f->sched_pending += tx[t] && tph_ts_allocated((uint8_t)(tx[t] - 1));
	}
}

/* ---- "2 Insufficient cpu, 1 node(s) didn't match ..." over a job's unfit tasks ---- */

#define HIST_MAX 8

typedef struct hent {
	uint32_t key, count;
	tph_idx task;
} hent;

typedef struct hist {
	hent e[HIST_MAX];
	uint32_t n, other;
} hist;

/* A task's main reason: the pair that failed the most nodes (the first on a tie). */
static uint32_t main_key(const uint32_t *p, uint32_t n)
{
	uint32_t best = 0;
	for (uint32_t i = 1; i < n; i++)
		if (p[2 * i] > p[2 * best])
			best = i;
	return best;
}

static void hist_add(hist *h, uint32_t key, tph_idx task)
{
	for (uint32_t i = 0; i < h->n; i++)
		if (h->e[i].key == key) {
			h->e[i].count++;
			return;
		}
	if (h->n == HIST_MAX) {
		h->other++;
		return;
	}
	h->e[h->n].key = key;
	h->e[h->n].count = 1;
	h->e[h->n++].task = task;
}

static void put_unfit(tph_session *s, line *l, tph_idx j)
{
	const tph_job_store *js = s->jobs;
	hist h = {.n = 0};
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		const uint32_t *p;
		uint32_t n = s->tasks.status[t] == TPH_TS_PENDING ? tph_fitlog_pairs(s, t, &p) : 0;
		if (n) {
			uint32_t k = main_key(p, n);
			hist_add(&h, p[2 * k] ? p[2 * k + 1] : 0x80000000u | p[2 * k + 1], t);
		}
	}
	for (uint32_t i = 1; i < h.n; i++) /* by count, most first; stable */
		for (uint32_t k = i; k > 0 && h.e[k].count > h.e[k - 1].count; k--) {
			hent x = h.e[k];
			h.e[k] = h.e[k - 1];
			h.e[k - 1] = x;
		}
	for (uint32_t i = 0; i < h.n; i++) {
		const uint32_t *p;
		uint32_t n = tph_fitlog_pairs(s, h.e[i].task, &p);
		const char *txt = tph_fitlog_pair_text(s, h.e[i].task, p + 2 * main_key(p, n));
		put(l, "%s%u %s", i ? ", " : " — ", h.e[i].count, txt ? txt : "");
	}
	if (h.other)
		put(l, ", %u other", h.other);
}

/* ---- the podgroup condition: gang.go OnSessionClose with JobInfo.FitError ---- */

/* "<count> <name>" strings sorted as Go's sort.Strings sorts them (bytewise), joined. */
typedef struct hstr {
	char s[160];
} hstr;

static void hstr_set(hstr *h, int64_t count, const char *name)
{
	tph_tw w;
	tph_tw_init(&w, h->s, sizeof h->s);
	tph_tw_i64(&w, count);
	tph_tw_mem(&w, " ", 1);
	tph_tw_str(&w, name);
}

static int cmp_hstr(const void *a, const void *b)
{
	return strcmp(((const hstr *)a)->s, ((const hstr *)b)->s);
}

static void put_sorted(line *l, hstr *h, uint32_t n)
{
	qsort(h, n, sizeof *h, cmp_hstr);
	for (uint32_t i = 0; i < n; i++)
		put(l, "%s%s", i ? ", " : "", h[i].s);
}

/* TaskSchedulingReason of a pending task, from its last transaction: Schedulable (allocated),
 * Unschedulable (none, or pipelined), else the status's name. */
enum {
	SR_SCHEDULABLE,
	SR_UNSCHEDULABLE,
	SR_OTHER /* + status */
};

static uint32_t sched_reason(const tph_session *s, tph_idx t)
{
	uint8_t tx = s->why->last_tx[t];
	if (!tx || tx - 1 == TPH_TS_PENDING || tx - 1 == TPH_TS_PIPELINED)
		return SR_UNSCHEDULABLE;
	return tph_ts_allocated((uint8_t)(tx - 1)) ? SR_SCHEDULABLE : SR_OTHER + tx - 1u;
}

static void put_statuses(const tph_session *s, line *l, const jfacts *f)
{
	hstr h[SR_OTHER + TPH_TS_COUNT + 1]; /* either list fits */
	uint32_t n = 0;
	const uint32_t *c = s->js.count + (size_t)f->j * TPH_TS_COUNT;
	for (uint32_t st = 0; st < TPH_TS_COUNT; st++)
		if (c[st])
			hstr_set(&h[n++], c[st], tph_task_status_names[st]);
	hstr_set(&h[n++], s->jobs->min_member[f->j], "minAvailable");
	put(l, "pod group is not ready, ");
	put_sorted(l, h, n);
	if (!f->pending)
		return;
	uint32_t k[SR_OTHER + TPH_TS_COUNT] = {0}, m = 0;
	const tph_job_store *js = s->jobs;
	for (uint32_t i = js->task_off[f->j]; i < js->task_off[f->j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		if (s->tasks.status[t] == TPH_TS_PENDING)
			k[sched_reason(s, t)]++;
	}
	for (uint32_t x = 0; x < SR_OTHER + TPH_TS_COUNT; x++)
		if (k[x])
			hstr_set(&h[m++], k[x],
			         x == SR_SCHEDULABLE     ? "Schedulable"
			         : x == SR_UNSCHEDULABLE ? "Unschedulable"
			                                 : tph_task_status_names[x - SR_OTHER]);
	put(l, "; Pending: ");
	put_sorted(l, h, m);
}

/* FitErrors.Error(): "0/3 nodes are unavailable: 3 Insufficient cpu." (one reason per node
 * here), or a task-level reason alone. */
static void put_fit_error(tph_session *s, line *l, tph_idx t)
{
	const uint32_t *p;
	uint32_t n = tph_fitlog_pairs(s, t, &p), nodes = 0, m = 0;
	hstr h[32];
	if (n == 1 && !p[0]) {
		const char *txt = tph_fitlog_pair_text(s, t, p);
		put(l, "%s", txt ? txt : "");
		return;
	}
	for (uint32_t i = 0; i < n && m < 32; i++)
		if (p[2 * i]) {
			nodes += p[2 * i];
			hstr_set(&h[m++], p[2 * i], s->reasons[p[2 * i + 1]].text);
		}
	put(l, "0/%u nodes are unavailable: ", nodes);
	put_sorted(l, h, m);
	put(l, ".");
}

static int condition(tph_session *s, const jfacts *f, tph_job_row *r)
{
	line l;
	line_init(&l);
	int64_t unready = (int64_t)s->jobs->min_member[f->j] - (f->sched_pending + f->ready);
	put(&l, "%lld/%u tasks in gang unschedulable: ", (long long)unready, f->tasks);
	put_statuses(s, &l, f);
	if (f->first_unfit != TPH_NOIDX) {
		put(&l, ". Origin reason is %s: ",
		    tph_strtab_str(s->snap->strs, s->tasks.name[f->first_unfit]));
		put_fit_error(s, &l, f->first_unfit);
	}
	r->cond_type = "Unschedulable";
	r->cond_reason = "NotEnoughResources";
	return (r->cond_message = keep(s, &l)) ? TPH_OK : TPH_ENOMEM;
}

/* ---- kinds and lines ---- */

static const char *plugin_name(const tph_session *s, uint16_t by)
{
	return by && by <= s->n_plugins ? s->plugins[by - 1].desc->name : NULL;
}

static tph_idx first_pending(const tph_session *s, tph_idx j)
{
	const tph_job_store *js = s->jobs;
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++)
		if (s->tasks.status[js->task_idx[i]] == TPH_TS_PENDING)
			return js->task_idx[i];
	return TPH_NOIDX;
}

static const char *pl(uint32_t n)
{
	return n == 1 ? "" : "s";
}

static bool conf_runs(const tph_session *s, const char *action)
{
	for (uint32_t i = 0; i < tph_conf_action_count(s->conf); i++)
		if (!strcmp(tph_conf_action(s->conf, i), action))
			return true;
	return false;
}

/* "needs 8, 5 placeable" for a gang; "3 of 4 tasks pending" without one. */
/* The requests of the job's pending tasks whose last transaction allocated them. */
static void tentative(const tph_session *s, tph_idx j, int64_t *out)
{
	const tph_job_store *js = s->jobs;
	memset(out, 0, s->ndim * sizeof *out);
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		uint8_t tx = s->why->last_tx[t];
		if (s->tasks.status[t] != TPH_TS_PENDING || !tx ||
		    !tph_ts_allocated((uint8_t)(tx - 1)))
			continue;
		for (uint32_t d = 0; d < s->ndim; d++)
			out[d] += s->tasks.req[(size_t)t * s->ndim + d];
	}
}

static void put_needs(const tph_session *s, line *l, const jfacts *f)
{
	if (s->jobs->min_member[f->j] > 0)
		put(l, "needs %d, %u placeable", s->jobs->min_member[f->j],
		    f->ready + f->sched_pending);
	else
		put(l, "%u of %u task%s pending", f->pending, f->tasks, pl(f->tasks));
}

/* What else holds a gang back: tasks never tried (and why, when the conf says), or too few
 * tasks to start with. */
static void put_untried(const tph_session *s, line *l, const jfacts *f)
{
	uint32_t untried = f->pending - f->unfit - f->sched_pending;
	if (untried && f->unfit)
		put(l, "; %u not tried", untried);
	else if (untried)
		put(l, ": %u task%s not tried", untried, pl(untried));
	if (untried && !conf_runs(s, "allocate"))
		put(l, " (the conf runs no allocate action)");
	if ((int64_t)f->tasks < s->jobs->min_member[f->j])
		put(l, "; only %u task%s exist%s", f->tasks, pl(f->tasks),
		    f->tasks == 1 ? "s" : "");
	else if (!f->pending)
		put(l, "; none of its %u task%s is Pending", f->tasks, pl(f->tasks));
}

static void put_not_tried(const tph_session *s, line *l, const jfacts *f)
{
	put(l, "%u task%s pending, none tried this session", f->pending, pl(f->pending));
	if (!conf_runs(s, "allocate") && !conf_runs(s, "backfill"))
		put(l, ": the conf runs no allocate or backfill action");
	else if ((int64_t)f->ready >= s->jobs->min_member[f->j])
		put(l, " (minMember %d met, %u ready)", s->jobs->min_member[f->j], f->ready);
}

static void put_not_enqueued(const tph_session *s, line *l, const tph_job_row *r, tph_idx j)
{
	const tph_jobwhy *w = s->why;
	if (w->note[j] & TPH_NOTE_REJECTED) {
		if (w->text[j])
			put(l, "not enqueued: %s: %s", r->plugin ? r->plugin : "?", w->text[j]);
		else
			put(l, "not enqueued: %s's JobEnqueueable vote rejected it",
			    r->plugin ? r->plugin : "a plugin");
	} else if (!conf_runs(s, "enqueue") && !conf_runs(s, "allocate"))
		put(l, "not enqueued: podgroup is Pending and the conf runs no enqueue or allocate "
		       "action");
	else
		put(l, "not enqueued: podgroup is Pending and no action admitted it");
}

/* "<why the queue holds it back>; needs 1, 0 placeable". */
static void put_queue(tph_session *s, const jfacts *f, tph_job_row *r, line *l)
{
	tph_idx q = s->jobs->queue[f->j];
	char buf[512];
	int64_t tent[TPH_RES_MAX];
	tentative(s, f->j, tent);
	tph_queue_why(s, q, first_pending(s, f->j), tent, buf, sizeof buf);
	r->plugin = tph_queue_reporter(s, q);
	put(l, "%s; ", buf);
	put_needs(s, l, f);
}

/* "needs 3, 1 placeable: 2 tasks fit no node — 2 Insufficient cpu", after the hard topology's
 * reason when the job has one. */
static void put_short(tph_session *s, const jfacts *f, line *l, bool topology)
{
	if (topology) {
		char buf[512];
		tph_jobwhy_topology(s, f->j, buf, sizeof buf);
		put(l, "%s; ", buf);
	}
	put_needs(s, l, f);
	if (f->unfit)
		put(l, ": %u task%s fit no node", f->unfit, pl(f->unfit));
	put_unfit(s, l, f->j);
	if (!topology)
		put_untried(s, l, f);
}

/* The kind that applies first (tph_job_why's order) and its line. */
static tph_job_why classify(tph_session *s, const jfacts *f, tph_job_row *r, line *l)
{
	const tph_jobwhy *w = s->why;
	tph_idx j = f->j, q = s->jobs->queue[j];
	bool untried = f->pending && !f->unfit && !f->sched_pending;
	bool held = w->overused[q] || s->queues->state[q] != TPH_QUEUE_OPEN;
	bool gang_short = (int64_t)(f->ready + f->sched_pending) < s->jobs->min_member[j];
	if (w->invalid[j].reason) {
		r->plugin = plugin_name(s, w->invalid_by[j]);
		put(l, "job invalid: %s: %s", w->invalid[j].reason, w->invalid[j].message);
		return TPH_WHY_INVALID;
	}
	if (s->js.phase[j] == TPH_PG_PENDING) {
		r->plugin = plugin_name(s, w->plugin[j]);
		put_not_enqueued(s, l, r, j);
		return TPH_WHY_NOT_ENQUEUED;
	}
	if (f->pipelined) {
		put(l, "%u task%s pipelined, waiting for resources being released; ", f->pipelined,
		    pl(f->pipelined));
		put_needs(s, l, f);
		return TPH_WHY_PIPELINED;
	}
	if ((w->note[j] & TPH_NOTE_QUEUE) || (untried && held)) {
		put_queue(s, f, r, l);
		return TPH_WHY_QUEUE;
	}
	if (gang_short) {
		bool topology = tph_topo_job_contains_hard(s, j);
		put_short(s, f, l, topology);
		return topology ? TPH_WHY_TOPOLOGY : TPH_WHY_GANG;
	}
	if (f->unfit) {
		put(l, "%u of %u pending tasks fit no node", f->unfit, f->pending);
		put_unfit(s, l, j);
		return TPH_WHY_UNPLACED;
	}
	put_not_tried(s, l, f);
	return TPH_WHY_NOT_TRIED;
}

static int one_row(tph_session *s, const jfacts *f, tph_job_row *r)
{
	const tph_strtab *st = s->snap->strs;
	tph_idx j = f->j;
	line l;
	line_init(&l);
	*r = (tph_job_row){.min_member = s->jobs->min_member[j],
	                   .tasks = f->tasks,
	                   .ready = f->ready,
	                   .placeable = f->ready + f->sched_pending,
	                   .pending = f->pending,
	                   .unfit = f->unfit};
	r->podgroup = tph_job_key(s, j, sizeof l.b);
	r->queue = tph_strtab_str(st, s->queues->name[s->jobs->queue[j]]);
	r->why = classify(s, f, r, &l);
	r->message = keep(s, &l);
	tph_queue_row *qr = (tph_queue_row *)&s->out.queues[s->jobs->queue[j]];
	qr->jobs_pending++;
	qr->by_why[r->why]++;
	if (!r->podgroup || !r->message)
		return TPH_ENOMEM;
	return s->js.unschedulable[j] ? condition(s, f, r) : TPH_OK;
}

int tph_jobwhy_rows(tph_session *s)
{
	if (!tph_jobwhy_get(s))
		return TPH_ENOMEM;
	uint32_t n = 0, nj = s->jobs->n;
	jfacts f;
	for (tph_idx j = 0; j < nj; j++)
		n += tph_jobwhy_pending(s, j);
	tph_job_row *rows = TPH_ARENA_NEW(&s->arena, tph_job_row, n + 1);
	if (!rows)
		return TPH_ENOMEM;
	uint32_t k = 0;
	for (tph_idx j = 0; j < nj; j++) {
		if (!tph_jobwhy_pending(s, j))
			continue;
		gather(s, j, &f);
		int rc = one_row(s, &f, &rows[k++]);
		if (rc)
			return rc;
	}
	s->out.jobs = rows;
	s->out.n_jobs = k;
	return TPH_OK;
}
