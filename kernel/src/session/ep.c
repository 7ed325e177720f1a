/* Extension point registration: the table of points and the tph_on_* calls plugins make in
 * on_session_open, both generated from ep_table.h and gated by the enable flags as Volcano
 * gates the dispatch; the reason table; and ep.c's per-session context (fit reasons and
 * scratch) that ep_dispatch.c and ep_score.c use. */
#include "ep.h"

#include "base/mem.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define INFO(id, name_, reg_, type_, mode_, rule_, gate_, key_, flavour_) \
	[TPH_EP_##id] = {                                                 \
	    .name = name_,                                                \
	    .reg = #reg_,                                                 \
	    .gate_key = key_,                                             \
	    .gate = gate_,                                                \
	    .rule = TPH_RULE_##rule_,                                     \
	    .flavours = TPH_FLAVOUR_##flavour_,                           \
	    .mode = TPH_EP_REG_##mode_,                                   \
	},
const tph_ep_info tph_ep_table[TPH_EP_COUNT] = {TPH_EP_TABLE(INFO)};
#undef INFO

int tph_ep_flag(tph_ep ep)
{
	return (unsigned)ep < TPH_EP_COUNT ? tph_ep_table[ep].gate : TPH_EP_ALWAYS;
}

bool tph_ep_enabled(const tph_plugin_inst *pi, tph_ep ep)
{
	int f = tph_ep_flag(ep);
	if (f == TPH_EP_ALWAYS)
		return true;
	if (f == TPH_EP_PREEMPTABLE_OR_ALLOCATABLE)
		return pi->flags[TPH_FLAG_PREEMPTABLE] > 0 || pi->flags[TPH_FLAG_ALLOCATABLE] > 0;
	return pi->flags[f] > 0;
}

/* ---- registration ---- */

static int check_open(const tph_session *s)
{
	if (s->frozen)
		return TPH_EFROZEN;
	if (s->cur_plugin < 0 || (uint32_t)s->cur_plugin >= s->n_plugins)
		return TPH_EINVAL;
	return TPH_OK;
}

static int push(tph_session *s, tph_ep ep, tph_any_fn fn)
{
	tph_ep_list *l = &s->ep[ep];
	if (tph_grow(&l->e, &l->cap, l->n + 1, sizeof *l->e))
		return TPH_ENOMEM;
	const tph_plugin_inst *pi = &s->plugins[s->cur_plugin];
	l->e[l->n++] = (tph_ep_entry){fn, pi->st, (uint16_t)s->cur_plugin, pi->tier};
	return TPH_OK;
}

/* Volcano keeps one function per plugin name and extension point (a map), so registering
 * again replaces; its victim task filters and event handlers, and every KAI point, are lists
 * and append. */
static int enlist(tph_session *s, tph_ep ep, tph_any_fn fn, int mode)
{
	int rc = check_open(s);
	if (rc)
		return rc;
	if (!fn)
		return TPH_EINVAL;
	if (!tph_ep_enabled(&s->plugins[s->cur_plugin], ep))
		return TPH_OK;
	tph_ep_list *l = &s->ep[ep];
	if (mode == TPH_EP_REG_REPLACE && l->n &&
	    l->e[l->n - 1].plugin == (uint16_t)s->cur_plugin) {
		l->e[l->n - 1].fn = fn;
		return TPH_OK;
	}
	return push(s, ep, fn);
}

#define ANY(fn) ((tph_any_fn)(fn))

int tph_ep_register(tph_session *s, tph_ep ep, tph_any_fn fn)
{
	return enlist(s, ep, fn, TPH_EP_REG_REPLACE);
}

/* tph_on_<reg> for every row but the CUSTOM ones; plugin.h holds the prototypes, which
 * -Wmissing-prototypes and the types of the definitions keep in step with the table. */
#define ON(id, name, reg, type, mode, ...) ON_##mode(id, reg, type)
#define ON_REPLACE(id, reg, type)          DEFINE_ON(id, reg, type, TPH_EP_REG_REPLACE)
#define ON_APPEND(id, reg, type)           DEFINE_ON(id, reg, type, TPH_EP_REG_APPEND)
#define ON_CUSTOM(id, reg, type)
#define DEFINE_ON(id, reg, type, mode)                        \
	int tph_on_##reg(tph_session *s, type fn)             \
	{                                                     \
		return enlist(s, TPH_EP_##id, ANY(fn), mode); \
	}
TPH_EP_TABLE(ON)
#undef ON
#undef ON_REPLACE
#undef ON_APPEND
#undef ON_CUSTOM
#undef DEFINE_ON

/* The two event lists stay parallel (entry i of each is one registration; either fn may be
 * NULL) so that a failing handler's predecessors can be undone pairwise. */
int tph_on_task_events(tph_session *s, tph_task_event_fn on_allocate,
                       tph_task_event_fn on_deallocate)
{
	int rc = check_open(s);
	if (rc)
		return rc;
	if (!on_allocate && !on_deallocate)
		return TPH_OK;
	tph_ep_list *a = &s->ep[TPH_EP_ALLOCATE_EVENT], *d = &s->ep[TPH_EP_DEALLOCATE_EVENT];
	if (tph_grow(&a->e, &a->cap, a->n + 1, sizeof *a->e) ||
	    tph_grow(&d->e, &d->cap, d->n + 1, sizeof *d->e))
		return TPH_ENOMEM;
	push(s, TPH_EP_ALLOCATE_EVENT, ANY(on_allocate));
	push(s, TPH_EP_DEALLOCATE_EVENT, ANY(on_deallocate));
	return TPH_OK;
}

/* ---- reasons ---- */

/* Predicates may register from OpenMP workers (plugin.h): one at a time, and no worker reads
 * the table while a parallel region runs (texts are read once filtering is over). One lock for
 * every session: registrations are rare. */
static pthread_mutex_t reason_mu = PTHREAD_MUTEX_INITIALIZER;
static tph_reason_code reason_locked(tph_session *s, const char *text, bool unresolvable);

tph_reason_code tph_reason(tph_session *s, const char *text, bool unresolvable)
{
	if (!text)
		return TPH_REASON_INVALID;
	pthread_mutex_lock(&reason_mu);
	tph_reason_code code = reason_locked(s, text, unresolvable);
	pthread_mutex_unlock(&reason_mu);
	return code;
}

static tph_reason_code reason_locked(tph_session *s, const char *text, bool unresolvable)
{
	int16_t owner = (int16_t)s->cur_plugin;
	for (uint32_t i = 1; i < s->n_reasons; i++)
		if (s->reasons[i].unresolvable == unresolvable &&
		    !strcmp(s->reasons[i].text, text)) {
			/* a code two registrants share no longer tells whose verdict it is */
			if (s->reasons[i].owner != owner)
				s->reasons[i].owner = -1;
			return (tph_reason_code)i;
		}
	uint32_t n = s->n_reasons ? s->n_reasons : 1; /* row 0 is TPH_PASS */
	char *copy = NULL;
	if (n >= TPH_REASON_INVALID ||
	    tph_grow(&s->reasons, &s->cap_reasons, n + 1, sizeof *s->reasons) ||
	    !(copy = tph_arena_strndup(&s->arena, text, strlen(text)))) {
		tph_diag_warn(s->diag, "cannot register reason \"%s\"", text);
		return TPH_REASON_INVALID;
	}
	s->reasons[0] = (tph_reason_row){"", false, false, -1};
	s->reasons[n] = (tph_reason_row){copy, unresolvable, false, owner};
	s->n_reasons = n + 1;
	return (tph_reason_code)n;
}

const char *tph_reason_text(const tph_session *s, tph_reason_code code)
{
	if (code == TPH_PASS)
		return "";
	if (code >= s->n_reasons)
		return "unknown reason";
	return s->reasons[code].text;
}

bool tph_reason_unresolvable(const tph_session *s, tph_reason_code code)
{
	return code != TPH_PASS && code < s->n_reasons && s->reasons[code].unresolvable;
}

/* ---- per-session context ---- */

tph_ep_ctx *tph_ep_ctx_of(const tph_session *s)
{
	return s->epx;
}

/* "Insufficient <resource>" (Volcano's WrapInsufficientResourceReason). */
static int register_fit_reasons(tph_session *s, tph_ep_ctx *c)
{
	const tph_snapshot *sn = s->snap;
	char buf[256];
	for (uint32_t d = 0; d < s->ndim && d < TPH_RES_MAX; d++) {
		const char *name = tph_strtab_str(sn->strs, sn->dims.name[d]);
		snprintf(buf, sizeof buf, "Insufficient %s", name);
		c->insuff[d] = tph_reason(s, buf, false);
		if (c->insuff[d] == TPH_REASON_INVALID)
			return TPH_ENOMEM;
	}
	return TPH_OK;
}

#define SPAN TPH_SPAN

int tph_ep_init(tph_session *s)
{
	if (tph_ep_ctx_of(s))
		return TPH_OK;
	tph_ep_ctx *c = TPH_ARENA_NEW(&s->arena, tph_ep_ctx, 1);
	if (!c)
		return TPH_ENOMEM;
	uint32_t n = s->nodes.n ? s->nodes.n : 1;
	c->cols_cap = n;
	c->map = TPH_ARENA_NEW(&s->arena, double, n);
	c->reduce = TPH_ARENA_NEW(&s->arena, double, n);
	c->batch = TPH_ARENA_NEW(&s->arena, double, n);
	c->chunk_cap = n / SPAN + 1;
	c->chunk_cnt = TPH_ARENA_NEW(&s->arena, uint32_t, c->chunk_cap);
	if (!c->map || !c->reduce || !c->batch || !c->chunk_cnt)
		return TPH_ENOMEM;
	int rc = s->snap ? register_fit_reasons(s, c) : TPH_OK;
	if (!rc)
		s->epx = c;
	return rc;
}

void tph_ep_free(tph_session *s)
{
	tph_ep_ctx *c = s->epx;
	if (c) {
		tph_free(c->mask);
		tph_free(c->pod_index);
		tph_free(c->task_rank);
	}
	s->epx = NULL;
	for (int i = 0; i < TPH_EP_COUNT; i++) {
		tph_free(s->ep[i].e);
		s->ep[i] = (tph_ep_list){0};
	}
	tph_free(s->reasons);
	s->reasons = NULL;
	s->n_reasons = s->cap_reasons = 0;
}

tph_reason_code tph_reason_insufficient(const tph_session *s, uint32_t dim)
{
	tph_ep_ctx *c = tph_ep_ctx_of(s);
	return c && dim < TPH_RES_MAX ? c->insuff[dim] : TPH_REASON_INVALID;
}
