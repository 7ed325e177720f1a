/* The per-role error cache (fitlog.h). Entries stay chained to their job and come back to
 * life when a later pass meets their role again; node columns are pooled, since only one
 * pass's entries are live: a new pass hands every column back at once, and a column is
 * cleared when it is taken again. */
#include "fitlog.h"

#include "base/mem.h"

#include <string.h>

void tph_fit_cache_init(tph_fit_cache *c, tph_session *s, bool on, bool codes)
{
	*c = (tph_fit_cache){.s = s, .on = on, .codes = codes, .pass = 1};
}

void tph_fit_cache_free(tph_fit_cache *c)
{
	for (uint32_t i = 0; i < c->n_cols; i++) {
		tph_free(c->cols[i].bits);
		tph_free(c->cols[i].code);
	}
	tph_free(c->cols);
	tph_free(c->roles);
	tph_free(c->head);
	*c = (tph_fit_cache){.s = c->s, .on = c->on, .codes = c->codes, .pass = c->pass};
}

void tph_fit_cache_pass(tph_fit_cache *c)
{
	c->pass++;
	c->live_cols = 0;
}

bool tph_fit_cache_applies(const tph_fit_cache *c, tph_idx task)
{
	tph_sid role = c->s->tasks.role[task];
	return c->on && c->s->tasks.job[task] != TPH_NOIDX && role != TPH_SID_EMPTY &&
	       role != TPH_SID_NONE;
}

/* The entry of the task's (job, role), live or not; NULL when the job has none. */
static tph_fit_role *lookup(const tph_fit_cache *c, tph_idx task)
{
	tph_sid role = c->s->tasks.role[task];
	uint32_t i = c->head ? c->head[c->s->tasks.job[task]] : 0;
	for (; i; i = c->roles[i - 1].next)
		if (c->roles[i - 1].role == role)
			return &c->roles[i - 1];
	return NULL;
}

tph_fit_role *tph_fit_cache_find(tph_fit_cache *c, tph_idx task)
{
	tph_fit_role *r = tph_fit_cache_applies(c, task) ? lookup(c, task) : NULL;
	return r && r->pass == c->pass ? r : NULL;
}

static tph_fit_role *add(tph_fit_cache *c, tph_idx task)
{
	tph_idx job = c->s->tasks.job[task];
	if (!c->head && !(c->head = tph_calloc((size_t)c->s->jobs->n + 1, sizeof *c->head)))
		return NULL;
	if (tph_grow(&c->roles, &c->cap, c->n + 1, sizeof *c->roles))
		return NULL;
	c->roles[c->n] = (tph_fit_role){.role = c->s->tasks.role[task], .next = c->head[job]};
	c->head[job] = ++c->n;
	return &c->roles[c->n - 1];
}

/* Whether column set k may hold a bit: only an entry's failures set them, and an entry that
 * took k and still holds it with none cached left it clear. */
static bool maybe_set(const tph_fit_cache *c, const tph_fit_cols *k)
{
	const tph_fit_role *o = k->owner ? &c->roles[k->owner - 1] : NULL;
	return !o || o->bits != k->bits || o->failed;
}

/* The next free column set, cleared. */
static tph_fit_cols *take_cols(tph_fit_cache *c)
{
	size_t words = c->s->nodes.n / 64 + 1;
	if (c->live_cols < c->n_cols) {
		tph_fit_cols *k = &c->cols[c->live_cols++];
		if (maybe_set(c, k))
			memset(k->bits, 0, words * sizeof *k->bits);
		return k;
	}
	if (tph_grow(&c->cols, &c->cap_cols, c->n_cols + 1, sizeof *c->cols))
		return NULL;
	tph_fit_cols *k = &c->cols[c->n_cols];
	k->bits = tph_calloc(words, sizeof *k->bits);
	k->code = c->codes ? tph_malloc(((size_t)c->s->nodes.n + 1) * sizeof *k->code) : NULL;
	k->owner = 0;
	if (!k->bits || (c->codes && !k->code)) {
		tph_free(k->bits);
		tph_free(k->code);
		return NULL;
	}
	c->live_cols = ++c->n_cols;
	return k;
}

tph_fit_role *tph_fit_cache_get(tph_fit_cache *c, tph_idx task)
{
	if (!tph_fit_cache_applies(c, task))
		return NULL;
	tph_fit_role *r = lookup(c, task);
	if (r && r->pass == c->pass)
		return r;
	tph_fit_cols *k = take_cols(c);
	if (!k || (!r && !(r = add(c, task))))
		return NULL;
	k->owner = (uint32_t)(r - c->roles) + 1;
	r->pass = c->pass;
	r->failed = false;
	r->bits = k->bits;
	r->code = k->code;
	r->follower = NULL;
	return r;
}
