/* The fit log's records (fitlog.h): their storage, the reasons and unresolvable nodes of each
 * task, and the failed roles derived from them. The pending rows are fitlog_rows.c's, the
 * per-role error cache fitlog_cache.c's. */
#include "fitlog.h"

#include "ep.h"
#include "session/topo/subjob.h"
#include "base/mem.h"

#include <string.h>

/* The two kinds of failed-role sets, fl->roles[kind]. */
enum {
	JOBS = 0,
	SUBJOBS = 1
};

/* ---- storage ---- */

static void roles_free(tph_fit_roles *r, uint32_t n)
{
	for (uint32_t i = 0; r && i < n; i++)
		tph_free(r[i].v);
	tph_free(r);
}

static void roles_drop(tph_fitlog *fl)
{
	for (int kind = JOBS; kind <= SUBJOBS; kind++) {
		roles_free(fl->roles[kind], fl->n_roles[kind]);
		fl->roles[kind] = NULL;
		fl->n_roles[kind] = 0;
	}
}

void tph_fitlog_drop_roles(tph_session *s)
{
	if (s->fit)
		roles_drop(s->fit);
}

static void fitlog_free(void *ud)
{
	tph_fitlog *fl = ud;
	tph_seq_free(&fl->seqs);
	tph_free(fl->why);
	tph_free(fl->unres);
	tph_free(fl->scratch);
	tph_free(fl->texts);
	roles_drop(fl);
	*fl = (tph_fitlog){.seqs = fl->seqs};
}

void tph_fitlog_drop(tph_session *s)
{
	if (s->fit)
		fitlog_free(s->fit);
}

/* The session's fit log, made on first use; NULL when out of memory. */
static tph_fitlog *fitlog_of(tph_session *s)
{
	if (s->fit)
		return s->fit;
	tph_fitlog *fl = TPH_ARENA_NEW(&s->arena, tph_fitlog, 1);
	if (!fl || tph_arena_on_cleanup(&s->arena, fitlog_free, fl))
		return NULL;
	tph_seq_init(&fl->seqs, &s->arena);
	return s->fit = fl;
}

/* *col, allocated zeroed for every task if it was NULL; NULL when out of memory. */
static uint32_t *column(const tph_session *s, uint32_t **col)
{
	if (!*col)
		*col = tph_calloc((size_t)s->tasks.n + 1, sizeof **col);
	return *col;
}

static int scratch(tph_fitlog *fl, uint32_t n)
{
	return tph_grow(&fl->scratch, &fl->cap_scratch, n ? n : 1, sizeof *fl->scratch);
}

/* ---- failed roles ---- */

static int roles_add(tph_fit_roles *r, tph_sid role)
{
	if (tph_fit_roles_has(r, role))
		return TPH_OK;
	if (tph_grow(&r->v, &r->cap, r->n + 1, sizeof *r->v))
		return TPH_ENOMEM;
	r->v[r->n++] = role;
	return TPH_OK;
}

bool tph_fit_roles_has(const tph_fit_roles *r, tph_sid role)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->v[i] == role)
			return true;
	return false;
}

/* The sets that hold `task`, where they exist: its job's and its subjob's. */
static uint32_t sets_of(const tph_session *s, const tph_fitlog *fl, tph_idx task,
                        tph_fit_roles *out[2])
{
	tph_idx j = s->tasks.job[task], k;
	uint32_t n = 0;
	if (j != TPH_NOIDX && fl->roles[JOBS])
		out[n++] = &fl->roles[JOBS][j];
	if (fl->roles[SUBJOBS] && (k = tph_task_subjob(s, task)) != TPH_NOIDX)
		out[n++] = &fl->roles[SUBJOBS][k];
	return n;
}

/* A new reasons record for `task`: its role joins the sets already built. */
static int note_role(const tph_session *s, const tph_fitlog *fl, tph_idx task)
{
	tph_fit_roles *sets[2];
	uint32_t n = sets_of(s, fl, task, sets);
	for (uint32_t i = 0; i < n; i++)
		if (sets[i]->built && roles_add(sets[i], s->tasks.role[task]))
			return TPH_ENOMEM;
	return TPH_OK;
}

/* A forgotten record may take the last task of a role: the sets are built again. */
static void stale_roles(const tph_session *s, const tph_fitlog *fl, tph_idx task)
{
	tph_fit_roles *sets[2];
	uint32_t n = sets_of(s, fl, task, sets);
	for (uint32_t i = 0; i < n; i++)
		sets[i]->built = false;
}

static void roles_empty(tph_fit_roles *r)
{
	r->n = 0;
	r->built = true;
}

static int roles_build(const tph_session *s, const tph_fitlog *fl, tph_fit_roles *r,
                       const tph_idx *tasks, uint32_t n)
{
	roles_empty(r);
	for (uint32_t i = 0; fl->why && i < n; i++)
		if (fl->why[tasks[i]] && roles_add(r, s->tasks.role[tasks[i]]))
			return TPH_ENOMEM;
	return TPH_OK;
}

/* The set of job or subjob i (kind JOBS or SUBJOBS), built when stale; the sets of a kind are
 * made on first use. NULL when out of memory. */
static tph_fit_roles *set_at(tph_session *s, tph_fitlog *fl, int kind, tph_idx i)
{
	const tph_job_store *js = s->jobs;
	const tph_subjobs *o = kind == SUBJOBS ? tph_subjobs_of(s) : NULL;
	const uint32_t *off = o ? o->task_off : js->task_off;
	const tph_idx *tasks = o ? o->task : js->task_idx;
	if (!fl->roles[kind]) {
		uint32_t count = o ? o->n : js->n;
		if (!(fl->roles[kind] = tph_calloc((size_t)count + 1, sizeof *fl->roles[kind])))
			return NULL;
		fl->n_roles[kind] = count;
	}
	tph_fit_roles *r = &fl->roles[kind][i];
	return r->built || !roles_build(s, fl, r, tasks + off[i], off[i + 1] - off[i]) ? r : NULL;
}

const tph_fit_roles *tph_fitlog_failed_roles(tph_session *s, tph_idx job, tph_idx sj)
{
	static const tph_fit_roles none = {NULL, 0, 0, true};
	tph_fitlog *fl = fitlog_of(s);
	tph_fit_roles *r = NULL;
	if (fl)
		r = sj == TPH_NOIDX ? set_at(s, fl, JOBS, job) : set_at(s, fl, SUBJOBS, sj);
	if (!r)
		s->oom = true;
	return r ? r : &none;
}

bool tph_fitlog_role_failed(tph_session *s, tph_idx task, tph_idx sj)
{
	tph_sid role = s->tasks.role[task];
	return role != TPH_SID_EMPTY &&
	       tph_fit_roles_has(tph_fitlog_failed_roles(s, s->tasks.job[task], sj), role);
}

/* ---- records ---- */

static int set_why(tph_session *s, tph_fitlog *fl, tph_idx task, const uint32_t *v, uint32_t n)
{
	if (!column(s, &fl->why))
		return TPH_ENOMEM;
	uint32_t id = tph_seq_intern(&fl->seqs, v, n);
	if (!id)
		return TPH_ENOMEM;
	fl->why[task] = id;
	return note_role(s, fl, task);
}

static int record_literal(tph_session *s, tph_idx task, uint32_t code)
{
	tph_fitlog *fl = fitlog_of(s);
	const uint32_t pair[2] = {0, code};
	return fl ? set_why(s, fl, task, pair, 2) : TPH_ENOMEM;
}

int tph_fitlog_text(tph_session *s, tph_idx task, const char *reason)
{
	tph_fitlog *fl = fitlog_of(s);
	if (!fl || tph_grow(&fl->texts, &fl->cap_texts, fl->n_texts + 1, sizeof *fl->texts))
		return TPH_ENOMEM;
	uint32_t id = 0;
	while (id < fl->n_texts && fl->texts[id] != reason)
		id++;
	if (id == fl->n_texts)
		fl->texts[fl->n_texts++] = reason;
	return record_literal(s, task, id);
}

int tph_fitlog_skip(tph_session *s, tph_idx task)
{
	return record_literal(s, task, TPH_FITLOG_SKIP);
}

/* Each code's count among the verdicts into hist (tph_fitlog_hist's). */
static void histogram(uint32_t *hist, uint32_t nr, const tph_reason_code *codes, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		hist[tph_fitlog_slot(nr, codes[i])]++;
}

/* The reasons: (count, code) pairs in code order, from the histogram; then hist[c] says
 * whether c is an unresolvable code that occurs. Returns whether any does, or an error. */
static int record_reasons(tph_session *s, tph_fitlog *fl, tph_idx task, uint32_t *hist,
                          uint32_t *pairs)
{
	uint32_t nr = s->n_reasons, k = 0, any = 0;
	hist[TPH_PASS] = 0;
	for (uint32_t c = 1; c < nr; c++)
		if (hist[c]) {
			pairs[k++] = hist[c];
			pairs[k++] = c;
			hist[c] = tph_reason_unresolvable(s, (tph_reason_code)c);
			any |= hist[c];
		}
	int rc = set_why(s, fl, task, pairs, k);
	return rc ? rc : (int)any;
}

/* The unresolvable nodes out[0..k) replace the task's. */
static int record_unres(tph_session *s, tph_fitlog *fl, tph_idx task, const uint32_t *out,
                        uint32_t k)
{
	if (!k && !fl->unres)
		return TPH_OK; /* nothing to skip, and no earlier record to replace */
	if (!column(s, &fl->unres))
		return TPH_ENOMEM;
	uint32_t id = k ? tph_seq_intern(&fl->seqs, out, k) : 0;
	if (k && !id)
		return TPH_ENOMEM;
	fl->unres[task] = id;
	return TPH_OK;
}

/* The scratch holds the histogram, then its pairs, then a list of nodes. */
static uint32_t slots(const tph_session *s)
{
	return s->n_reasons ? s->n_reasons : 1;
}

uint32_t *tph_fitlog_hist(tph_session *s)
{
	tph_fitlog *fl = fitlog_of(s);
	if (!fl || scratch(fl, 3 * slots(s)))
		return NULL;
	memset(fl->scratch, 0, slots(s) * sizeof *fl->scratch);
	return fl->scratch;
}

int tph_fitlog_counted(tph_session *s, tph_idx task)
{
	tph_fitlog *fl = s->fit;
	uint32_t *hist = fl->scratch;
	int any = record_reasons(s, fl, task, hist, hist + slots(s));
	if (any)
		return any;
	return record_unres(s, fl, task, NULL, 0);
}

int tph_fitlog_unres(tph_session *s, tph_idx task, const tph_idx *nodes,
                     const tph_reason_code *codes, uint32_t n)
{
	tph_fitlog *fl = s->fit;
	uint32_t m = slots(s), nr = s->n_reasons, k = 0;
	if (scratch(fl, 3 * m + n))
		return TPH_ENOMEM;
	const uint32_t *unres = fl->scratch; /* record_reasons' marks */
	uint32_t *out = fl->scratch + 3 * m;
	for (uint32_t i = 0; i < n; i++)
		if (codes[i] < nr && unres[codes[i]])
			out[k++] = nodes[i];
	return record_unres(s, fl, task, out, k);
}

int tph_fitlog_unres_nodes(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t k)
{
	return record_unres(s, s->fit, task, nodes, k);
}

/* The histogram says which codes occur: the nodes are walked again only when one of them is
 * unresolvable, most failures at scale (insufficient resources) are not. */
int tph_fitlog_nodes(tph_session *s, tph_idx task, const tph_idx *nodes,
                     const tph_reason_code *codes, uint32_t n)
{
	uint32_t *hist = tph_fitlog_hist(s);
	if (!hist)
		return TPH_ENOMEM;
	histogram(hist, s->n_reasons, codes, n);
	int rc = tph_fitlog_counted(s, task);
	return rc == 1 ? tph_fitlog_unres(s, task, nodes, codes, n) : rc;
}

bool tph_fitlog_has(const tph_session *s, tph_idx task)
{
	return s->fit && s->fit->why && s->fit->why[task];
}

uint32_t tph_fitlog_unresolvable(const tph_session *s, tph_idx task, const tph_idx **out)
{
	uint32_t n = 0;
	*out = s->fit && s->fit->unres ? tph_seq_get(&s->fit->seqs, s->fit->unres[task], &n) : NULL;
	return n;
}

/* ---- forgetting ---- */

void tph_fitlog_forget(tph_session *s, tph_idx task, unsigned parts)
{
	tph_fitlog *fl = s->fit;
	if (!fl)
		return;
	if ((parts & TPH_FIT_REASONS) && fl->why && fl->why[task]) {
		fl->why[task] = 0;
		stale_roles(s, fl, task);
	}
	if ((parts & TPH_FIT_NODES) && fl->unres)
		fl->unres[task] = 0;
}

static void forget_all(tph_session *s, const tph_idx *tasks, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		tph_fitlog_forget(s, tasks[i], TPH_FIT_REASONS | TPH_FIT_NODES);
}

void tph_fitlog_reset_job(tph_session *s, tph_idx job)
{
	const tph_job_store *js = s->jobs;
	tph_fitlog *fl = s->fit;
	forget_all(s, js->task_idx + js->task_off[job], js->task_off[job + 1] - js->task_off[job]);
	if (fl && fl->roles[JOBS])
		roles_empty(&fl->roles[JOBS][job]);
	tph_idx first;
	uint32_t n = fl && fl->roles[SUBJOBS] ? tph_job_subjobs(s, job, &first) : 0;
	for (uint32_t i = 0; i < n; i++)
		roles_empty(&fl->roles[SUBJOBS][first + i]);
}

void tph_fitlog_reset_subjob(tph_session *s, tph_idx sj)
{
	const tph_subjobs *o = tph_subjobs_of(s);
	forget_all(s, o->task + o->task_off[sj], o->task_off[sj + 1] - o->task_off[sj]);
	if (s->fit && s->fit->roles[SUBJOBS])
		roles_empty(&s->fit->roles[SUBJOBS][sj]);
}
