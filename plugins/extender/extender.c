/* extender: Volcano's extender plugin (pkg/scheduler/plugins/extender). Each `extender.*Verb`
 * argument names an HTTP endpoint <urlPrefix>/<verb> that answers one extension point: the
 * plugin sends Volcano's request objects as JSON and turns the reply into the point's answer.
 * A failed request (transport, timeout, a status other than 200, a reply that does not decode)
 * counts as Volcano counts it: with `extender.ignorable` the point passes or abstains, without
 * it the point rejects; a reply that says no says no either way. Points that look at a task
 * ask only when the extender is interested in it (IsInterested: `extender.managedResources`
 * empty, or the pod names one of them in its requests or limits).
 *
 * Where tephra differs (see the README's plugin table): requests carry a subset of Volcano's
 * objects; a victim reply is matched to the candidates by UID; a request of 0 of a managed
 * resource does not count as naming it (the task's row cannot tell 0 from absent). */
#include "extender.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tephra/alloc.h"

typedef struct ext_st {
	/* arguments (strings owned by the conf) */
	const char *url, *v_open, *v_close, *v_pred, *v_prio, *v_preempt, *v_reclaim, *v_overused,
	    *v_enqueueable, *v_enqueued, *v_ready, *v_alloc, *v_dealloc;
	bool ignorable;
	/* extender.managedResources: none means every task interests the extender */
	bool managed;
	tph_dimmask managed_dims; /* dimensions named there */
	tph_sid *managed_sids;    /* names (limits are keyed by name), sorted */
	uint32_t n_managed;
	tph_session *s; /* predicates register their reasons on it (tph_reason is serialised) */
	ext_http *http;
	/* BatchNodeOrder scratch (session thread): nodes by name id, each call's scores */
	tph_sid *name_key;
	tph_idx *name_node;
	uint32_t name_cap; /* power of two */
	double *score;
	uint32_t *score_mark, mark;
	/* failed requests, for one warning at close; any thread */
	pthread_mutex_t mu;
	bool mu_init;
	uint64_t n_failed;
	char first_err[320];
} ext_st;

#define OFF(f) offsetof(ext_st, f)
static const tph_arg_spec ext_args[] = {
    {"extender.urlPrefix", TPH_ARG_STRING, NULL, 0, 0, OFF(url), "the extender's base URL"},
    {"extender.httpTimeout", TPH_ARG_STRING, NULL, 0, 0, TPH_ARG_NOFIELD,
     "a Go duration bounding each request (default 1s)"},
    {"extender.onSessionOpenVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_open), NULL},
    {"extender.onSessionCloseVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_close), NULL},
    {"extender.predicateVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_pred), NULL},
    {"extender.prioritizeVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_prio), NULL},
    {"extender.preemptableVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_preempt), NULL},
    {"extender.reclaimableVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_reclaim), NULL},
    {"extender.queueOverusedVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_overused), NULL},
    {"extender.jobEnqueueableVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_enqueueable), NULL},
    {"extender.jobEnqueuedVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_enqueued), NULL},
    {"extender.jobReadyVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_ready), NULL},
    {"extender.allocateFuncVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_alloc), NULL},
    {"extender.deallocateFuncVerb", TPH_ARG_STRING, NULL, 0, 0, OFF(v_dealloc), NULL},
    {"extender.ignorable", TPH_ARG_BOOL, "false", 0, 0, OFF(ignorable), NULL},
    {"extender.managedResources", TPH_ARG_LIST, NULL, 0, 0, TPH_ARG_NOFIELD,
     "resource names; a task naming none of them is not sent"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* The replies, as argument.go declares them. */
static const ej_field f_pred[] = {{"status", EJ_STRING}, {"code", EJ_INT}};
static const ej_field f_prio[] = {{"nodeScore", EJ_SCORES}, {"errorMessage", EJ_STRING}};
static const ej_field f_victims[] = {{"status", EJ_INT}, {"victims", EJ_VICTIMS}};
static const ej_field f_enq[] = {{"status", EJ_INT}};
static const ej_field f_overused[] = {{"overused", EJ_BOOL}};
static const ej_field f_ready[] = {{"status", EJ_BOOL}};
static const ej_field f_event[] = {{"errorMessage", EJ_STRING}};
static const ej_type t_pred = {"PredicateResponse", f_pred, 2};
static const ej_type t_prio = {"PrioritizeResponse", f_prio, 2};
static const ej_type t_preempt = {"PreemptableResponse", f_victims, 2};
static const ej_type t_reclaim = {"ReclaimableResponse", f_victims, 2};
static const ej_type t_enq = {"JobEnqueueableResponse", f_enq, 1};
static const ej_type t_enqueued = {"JobEnqueuedResponse", NULL, 0};
static const ej_type t_overused = {"QueueOverusedResponse", f_overused, 1};
static const ej_type t_ready = {"JobReadyResponse", f_ready, 1};
static const ej_type t_event = {"EventHandlerResponse", f_event, 1};

/* api.Status codes. */
enum {
	CODE_SUCCESS = 0,
	CODE_ERROR = 1,
	CODE_UNRESOLVABLE = 3,
};

/* ---- sending ---- */

static void note_failure(ext_st *st, const char *err)
{
	pthread_mutex_lock(&st->mu);
	if (!st->n_failed++)
		snprintf(st->first_err, sizeof st->first_err, "%s", err);
	pthread_mutex_unlock(&st->mu);
}

/* One request whose reply decodes into `t`: true when send() would return nil. On false,
 * err holds its error; `out` may still hold what decoded before a type error (Go fills what it
 * can). Free `out` with ej_out_free in both cases. */
static bool send_one(ext_st *st, const char *verb, const ej_buf *req, const ej_type *t, ej_out *out,
                     char *err, size_t cap)
{
	ext_call c = {.body = req->p, .len = req->len};
	memset(out, 0, sizeof *out);
	if (req->oom)
		snprintf(c.err, sizeof c.err, "out of memory writing the request");
	else
		ext_http_perform(st->http, verb, &c, 1, t != NULL);
	bool ok = c.ok && (!t || ej_decode(c.reply, c.reply_len, t, out));
	if (!ok)
		snprintf(err, cap, "%s", c.ok ? out->err : c.err);
	if (!ok)
		note_failure(st, err);
	ext_calls_done(&c, 1);
	return ok;
}

/* ---- IsInterested ---- */

static bool managed_name(const ext_st *st, tph_sid name)
{
	uint32_t lo = 0, hi = st->n_managed;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (st->managed_sids[mid] == name)
			return true;
		if (st->managed_sids[mid] < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool interested(const ext_st *st, const tph_session *s, tph_idx t)
{
	if (!st->managed)
		return true;
	const tph_view *v = tph_view_of(s);
	const int64_t *req = v->tasks->req + (size_t)t * v->ndim;
	for (uint32_t d = 0; d < v->ndim && d < TPH_RES_MAX; d++)
		if (st->managed_dims >> d & 1 && req[d] - (d == TPH_RES_PODS ? 1000 : 0) != 0)
			return true;
	const tph_pod_meta *m = v->tasks->meta[t];
	for (uint32_t i = 0; m && i < m->n_limits; i++)
		if (managed_name(st, m->limits[i].name))
			return true;
	return false;
}

/* ---- Predicate: one request per node, as Volcano's PredicateFn, a span at a time ---- */

/* The last reason registered within a span: consecutive nodes mostly fail alike. */
typedef struct pred_memo {
	bool valid, unresolvable;
	tph_reason_code code;
	char text[320];
} pred_memo;

static tph_reason_code reason_of(ext_st *st, pred_memo *m, const char *text, bool unresolvable)
{
	if (m->valid && m->unresolvable == unresolvable && !strcmp(m->text, text))
		return m->code;
	snprintf(m->text, sizeof m->text, "%s", text);
	m->unresolvable = unresolvable;
	m->valid = true;
	m->code = tph_reason(st->s, m->text, unresolvable);
	return m->code;
}

/* One node's answer: a failed send passes with ignorable and fails with api.NewFitError's
 * code Error otherwise; a non-empty `status` fails with its code (0 read as Error). */
static tph_reason_code verdict(ext_st *st, pred_memo *memo, const ext_call *c)
{
	ej_out o;
	bool ok = c->ok && ej_decode(c->reply, c->reply_len, &t_pred, &o);
	tph_reason_code r = TPH_PASS;
	if (!ok) {
		const char *err = c->ok ? o.err : c->err;
		note_failure(st, err);
		if (!st->ignorable)
			r = reason_of(st, memo, err, false);
	} else if (o.set[0] && o.slen[0]) {
		int64_t code = o.set[1] ? o.num[1] : CODE_SUCCESS;
		r = reason_of(st, memo, ej_str(&o, 0), code == CODE_UNRESOLVABLE);
	}
	if (c->ok)
		ej_out_free(&o);
	return r;
}

/* The requests of a span, {"task": T, "node": N} each, in one buffer; offsets in off[0..n]. */
static bool write_span(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                       ej_buf *all, size_t *off)
{
	ej_buf tb = {0};
	enc_task(&tb, s, task);
	for (uint32_t i = 0; i < n && !tb.oom; i++) {
		off[i] = all->len;
		jb_lit(all, "{\"task\":");
		jb_raw(all, tb.p, tb.len);
		jb_lit(all, ",\"node\":");
		enc_node(all, s, nodes[i]);
		jb_lit(all, "}");
	}
	off[n] = all->len;
	bool ok = !tb.oom && !all->oom;
	jb_free(&tb);
	return ok;
}

static void predicate(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, tph_reason_code *out)
{
	ext_st *st = stv;
	for (uint32_t i = 0; i < n; i++)
		out[i] = TPH_PASS;
	if (!n || !interested(st, s, task))
		return;
	ej_buf all = {0};
	size_t *off = tph_calloc(n + 1, sizeof *off);
	ext_call *calls = tph_calloc(n, sizeof *calls);
	pred_memo memo = {0};
	if (off && calls && write_span(s, task, nodes, n, &all, off)) {
		for (uint32_t i = 0; i < n; i++)
			calls[i] = (ext_call){.body = all.p + off[i], .len = off[i + 1] - off[i]};
		ext_http_perform(st->http, st->v_pred, calls, n, true);
		for (uint32_t i = 0; i < n; i++)
			out[i] = verdict(st, &memo, &calls[i]);
		ext_calls_done(calls, n);
	} else { /* as a failed json.Marshal: a failed send for every node */
		ext_call nomem = {.err = "out of memory writing the request"};
		for (uint32_t i = 0; i < n; i++)
			out[i] = verdict(st, &memo, &nomem);
	}
	tph_free(calls);
	tph_free(off);
	jb_free(&all);
}

/* ---- BatchNodeOrder: the prioritize verb over every candidate ---- */

static uint32_t name_slot(const ext_st *st, tph_sid name)
{
	uint32_t h = (name * 2654435761u) & (st->name_cap - 1);
	while (st->name_key[h] != TPH_SID_NONE && st->name_key[h] != name)
		h = (h + 1) & (st->name_cap - 1);
	return h;
}

static tph_idx node_named(const ext_st *st, const tph_session *s, const char *name, size_t len)
{
	tph_sid id = tph_session_sid(s, name, len);
	if (id == TPH_SID_NONE || !st->name_cap)
		return TPH_NOIDX;
	uint32_t h = name_slot(st, id);
	return st->name_key[h] == id ? st->name_node[h] : TPH_NOIDX;
}

static void prioritize(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                       uint32_t n, double *out)
{
	ext_st *st = stv;
	if (!interested(st, s, task))
		return; /* Volcano: an empty map, no error */
	ej_buf b = {0};
	enc_task_and_list(&b, s, "task", task, "nodes", nodes, n, enc_node);
	ej_out o;
	char err[320];
	bool sent = send_one(st, st->v_prio, &b, &t_prio, &o, err, sizeof err);
	jb_free(&b);
	/* A failed send: (nil, nil) when ignorable. A reply with an errorMessage or without a
	 * nodeScore map is an error whatever `ignorable` says. */
	if (!sent || (o.set[1] && o.slen[1]) || o.nil) {
		if (sent || !st->ignorable)
			tph_score_fail(s);
		ej_out_free(&o);
		return;
	}
	if (++st->mark == 0) {
		memset(st->score_mark, 0, tph_view_of(s)->nodes->n * sizeof *st->score_mark);
		st->mark = 1;
	}
	for (uint32_t i = 0; i < o.n_ent; i++) { /* later keys win, as in a Go map */
		tph_idx node = node_named(st, s, o.text + o.ent[i].key, o.ent[i].klen);
		if (node != TPH_NOIDX) {
			st->score[node] = o.ent[i].num;
			st->score_mark[node] = st->mark;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		out[i] = st->score_mark[nodes[i]] == st->mark ? st->score[nodes[i]] : 0.0;
	ej_out_free(&o);
}

/* ---- Preemptable / Reclaimable ---- */

static int victims(ext_st *st, const tph_session *s, const char *verb, const ej_type *t,
                   tph_idx evictor, const tph_idx *cands, uint32_t n, uint8_t *keep)
{
	if (!interested(st, s, evictor))
		return 0; /* Abstain */
	ej_buf b = {0};
	enc_task_and_list(&b, s, "evictor", evictor, "evictees", cands, n, enc_task);
	ej_out o;
	char err[320];
	bool sent = send_one(st, verb, &b, t, &o, err, sizeof err);
	jb_free(&b);
	/* A failed send gives (nil, Permit) or (nil, Reject): a decision with no victim either
	 * way. A status of 0 abstains, whatever the victims. */
	int decided = !sent || (o.set[0] && o.num[0] != 0);
	const tph_task_store *ts = tph_view_of(s)->tasks;
	for (uint32_t e = 0; sent && decided && e < o.n_ent; e++) {
		if (o.ent[e].klen == UINT32_MAX || !o.ent[e].klen)
			continue;
		tph_sid uid = tph_session_sid(s, o.text + o.ent[e].key, o.ent[e].klen);
		for (uint32_t i = 0; uid != TPH_SID_NONE && i < n; i++)
			keep[i] |= ts->uid[cands[i]] == uid;
	}
	ej_out_free(&o);
	return decided;
}

static int preemptable(void *stv, const tph_session *s, tph_idx preemptor, const tph_idx *cands,
                       uint32_t n, uint8_t *keep)
{
	ext_st *st = stv;
	return victims(st, s, st->v_preempt, &t_preempt, preemptor, cands, n, keep);
}

static int reclaimable(void *stv, const tph_session *s, tph_idx reclaimer, const tph_idx *cands,
                       uint32_t n, uint8_t *keep)
{
	ext_st *st = stv;
	return victims(st, s, st->v_reclaim, &t_reclaim, reclaimer, cands, n, keep);
}

/* ---- jobs and queues ---- */

/* One job or queue request: {"<field>": <object>}. */
static bool send_obj(ext_st *st, const tph_session *s, const char *verb, const char *field,
                     tph_idx idx, bool job, const ej_type *t, ej_out *o)
{
	ej_buf b = {0};
	char err[320];
	jb_lit(&b, "{");
	jb_str(&b, field, strlen(field));
	jb_lit(&b, ":");
	if (job)
		enc_job(&b, s, idx);
	else
		enc_queue(&b, s, idx);
	jb_lit(&b, "}");
	bool ok = send_one(st, verb, &b, t, o, err, sizeof err);
	jb_free(&b);
	return ok;
}

static int job_enqueueable(void *stv, const tph_session *s, tph_idx job)
{
	ext_st *st = stv;
	ej_out o;
	bool ok = send_obj(st, s, st->v_enqueueable, "job", job, true, &t_enq, &o);
	int64_t v = o.set[0] ? o.num[0] : 0;
	ej_out_free(&o);
	if (!ok)
		return st->ignorable ? TPH_PERMIT : TPH_REJECT;
	return v < 0 ? TPH_REJECT : v > 0 ? TPH_PERMIT : TPH_ABSTAIN;
}

static bool overused(void *stv, const tph_session *s, tph_idx queue)
{
	ext_st *st = stv;
	ej_out o;
	bool ok = send_obj(st, s, st->v_overused, "queue", queue, false, &t_overused, &o);
	bool v = ok ? o.set[0] && o.num[0] : !st->ignorable;
	ej_out_free(&o);
	return v;
}

static bool job_ready(void *stv, const tph_session *s, tph_idx job)
{
	ext_st *st = stv;
	ej_out o;
	bool ok = send_obj(st, s, st->v_ready, "job", job, true, &t_ready, &o);
	bool v = ok ? o.set[0] && o.num[0] : !st->ignorable;
	ej_out_free(&o);
	return v;
}

static void job_enqueued(void *stv, tph_session *s, tph_idx job)
{
	ext_st *st = stv;
	ej_out o;
	send_obj(st, s, st->v_enqueued, "job", job, true, &t_enqueued, &o); /* errors only warn */
	ej_out_free(&o);
}

/* ---- AllocateFunc / DeallocateFunc ---- */

static bool task_event(ext_st *st, tph_session *s, const char *verb, tph_idx task)
{
	if (!interested(st, s, task))
		return true;
	ej_buf b = {0};
	jb_lit(&b, "{\"task\":");
	enc_task(&b, s, task);
	jb_lit(&b, "}");
	ej_out o;
	char err[320];
	bool sent = send_one(st, verb, &b, &t_event, &o, err, sizeof err);
	jb_free(&b);
	/* event.Err: the send error unless ignorable, and the reply's errorMessage (read even
	 * from a reply that failed to decode later on) always. */
	bool fine = (sent || st->ignorable) && !(o.set[0] && o.slen[0]);
	ej_out_free(&o);
	return fine;
}

static int on_allocate(void *stv, tph_session *s, tph_idx task)
{
	ext_st *st = stv;
	return task_event(st, s, st->v_alloc, task) ? TPH_OK : TPH_EINVAL;
}

/* Volcano's Statement ignores DeallocateFunc errors. */
static int on_deallocate(void *stv, tph_session *s, tph_idx task)
{
	ext_st *st = stv;
	task_event(st, s, st->v_dealloc, task);
	return TPH_OK;
}

/* ---- open and close ---- */

static bool set(const char *verb)
{
	return verb && *verb;
}

/* extender.httpTimeout: a string time.ParseDuration accepts, else the default 1s. */
static int64_t timeout_ms(const tph_args *args)
{
	const char *text = NULL;
	int64_t ns = 1000000000;
	if (tph_args_type(args, "extender.httpTimeout") == TPH_ARG_STRING &&
	    tph_args_string(args, "extender.httpTimeout", &text) == TPH_OK && *text) {
		const char *why;
		int64_t v;
		if (tph_parse_duration(text, strlen(text), &v, &why) == TPH_OK)
			ns = v;
	}
	if (ns <= 0)
		return 0;                          /* http.Client{Timeout: <= 0}: none */
	return ns / 1000000 + (ns % 1000000 != 0); /* curl counts ms; never round to "none" */
}

static int cmp_sid(const void *a, const void *b)
{
	tph_sid x = *(const tph_sid *)a, y = *(const tph_sid *)b;
	return x < y ? -1 : x > y;
}

/* framework.Get[[]string]: a sequence, or null (an empty set); anything else makes
 * mapstructure fail and Volcano exit (klog.Fatalf), here the session's open. */
static int read_managed(ext_st *st, tph_session *s, const tph_args *args)
{
	const char *key = "extender.managedResources";
	int type = tph_args_type(args, key);
	if (type == TPH_ENOENT || type == TPH_EINVAL)
		return TPH_OK;
	const tph_args *l = type == TPH_ARG_LIST ? tph_args_child(args, key) : NULL;
	if (!l) {
		tph_session_warn(s, "extender: %s must be a list of resource names", key);
		return TPH_EINVAL;
	}
	uint32_t n = tph_args_count(l);
	st->managed_sids = TPH_SESSION_NEW(s, tph_sid, n + 1);
	if (!st->managed_sids)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const char *name = tph_args_text(tph_args_at(l, i));
		if (!name) {
			tph_session_warn(s, "extender: %s: item %u is not a resource name", key,
			                 i + 1);
			return TPH_EINVAL;
		}
		st->managed = true;
		uint32_t d = tph_session_dim_find(s, name, strlen(name));
		if (d != TPH_NOIDX && d < TPH_RES_MAX)
			st->managed_dims |= (tph_dimmask)1 << d;
		tph_sid id = tph_session_sid(s, name, strlen(name));
		if (id != TPH_SID_NONE)
			st->managed_sids[st->n_managed++] = id;
	}
	qsort(st->managed_sids, st->n_managed, sizeof *st->managed_sids, cmp_sid);
	return TPH_OK;
}

/* Nodes by name id, and the per-node score scratch of BatchNodeOrder. */
static int index_nodes(ext_st *st, tph_session *s)
{
	const tph_node_store *ns = tph_view_of(s)->nodes;
	uint32_t cap = 16;
	while (cap < 2 * ns->n)
		cap *= 2;
	st->name_key = TPH_SESSION_NEW(s, tph_sid, cap);
	st->name_node = TPH_SESSION_NEW(s, tph_idx, cap);
	st->score = TPH_SESSION_NEW(s, double, ns->n + 1);
	st->score_mark = TPH_SESSION_NEW(s, uint32_t, ns->n + 1);
	if (!st->name_key || !st->name_node || !st->score || !st->score_mark)
		return TPH_ENOMEM;
	st->name_cap = cap;
	for (uint32_t i = 0; i < cap; i++)
		st->name_key[i] = TPH_SID_NONE;
	for (uint32_t i = 0; i < ns->n; i++) {
		uint32_t h = name_slot(st, ns->name[i]);
		st->name_key[h] = ns->name[i];
		st->name_node[h] = i;
	}
	return TPH_OK;
}

static int register_verbs(ext_st *st, tph_session *s)
{
	int rc = TPH_OK;
	if (set(st->v_pred))
		rc = tph_on_predicate(s, predicate);
	if (!rc && set(st->v_prio))
		rc = tph_on_batch_node_order(s, prioritize);
	if (!rc && set(st->v_preempt))
		rc = tph_on_preemptable(s, preemptable);
	if (!rc && set(st->v_reclaim))
		rc = tph_on_reclaimable(s, reclaimable);
	if (!rc && set(st->v_enqueueable))
		rc = tph_on_job_enqueueable(s, job_enqueueable);
	if (!rc && set(st->v_enqueued))
		rc = tph_on_job_enqueued(s, job_enqueued);
	if (!rc && set(st->v_overused))
		rc = tph_on_overused(s, overused);
	if (!rc && set(st->v_ready))
		rc = tph_on_job_ready(s, job_ready);
	if (!rc && (set(st->v_alloc) || set(st->v_dealloc)))
		rc = tph_on_task_events(s, set(st->v_alloc) ? on_allocate : NULL,
		                        set(st->v_dealloc) ? on_deallocate : NULL);
	return rc;
}

static int ext_open(tph_session *s, void *stv, const tph_args *args)
{
	ext_st *st = stv;
	st->s = s;
	pthread_mutex_init(&st->mu, NULL);
	st->mu_init = true;
	int rc = read_managed(st, s, args);
	if (!rc)
		rc = index_nodes(st, s);
	if (!rc)
		rc = ext_http_open(st->url, timeout_ms(args), &st->http);
	if (rc)
		return rc;
	if (set(st->v_open)) {
		ej_buf b = {0};
		enc_session(&b, s);
		ej_out o;
		char err[320];
		bool sent = send_one(st, st->v_open, &b, NULL, &o, err, sizeof err);
		jb_free(&b);
		/* Without ignorable, a failed onSessionOpen leaves the plugin with no callback. */
		if (!sent && !st->ignorable)
			return TPH_OK;
	}
	return register_verbs(st, s);
}

static void ext_close(tph_session *s, void *stv)
{
	ext_st *st = stv;
	if (st->http && set(st->v_close)) {
		ej_buf b = {0};
		ej_out o;
		char err[320];
		jb_lit(&b, "{}");
		send_one(st, st->v_close, &b, NULL, &o, err, sizeof err);
		jb_free(&b);
	}
	if (st->n_failed)
		tph_session_warn(s, "extender: %llu request(s) failed; the first: %s",
		                 (unsigned long long)st->n_failed, st->first_err);
	ext_http_close(st->http);
	st->http = NULL;
	if (st->mu_init)
		pthread_mutex_destroy(&st->mu);
	st->mu_init = false;
}

const tph_plugin tph_plugin_extender = {
    .abi = TPH_PLUGIN_ABI,
    .name = "extender",
    .args = ext_args,
    .state_size = sizeof(ext_st),
    .on_session_open = ext_open,
    .on_session_close = ext_close,
};
