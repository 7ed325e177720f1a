/* Trackers (allocate_fast.h): followers of the per-role error cache's entries
 * (session/fitlog.h), standing in for their codes. In a job's pass the entry of (job, role)
 * holds, for every node that failed an evaluation by a task of the role, the reason of its
 * first failure. A node whose verdict never changed since the role's first evaluation is
 * cached exactly when its current verdict fails, with that reason; so only nodes whose
 * verdict changed need remembering: the shape tells the tracker the verdict each had at the
 * role's last evaluation (mods), and the tracker keeps those that failed then (overlays). */
#include "allocate_fast.h"

#include "base/mem.h"

static tph_fit_cache *cache(const alloc_fast *f)
{
	return &f->ph->cache;
}

static bool live(const alloc_fast *f, const af_track *t)
{
	return t->sh && t->gen == cache(f)->pass;
}

static void track_release(af_track *t)
{
	tph_free(t->mod_at);
	tph_free(t->ov_at);
	tph_free(t->mod_old);
	tph_free(t->ov_code);
	tph_free(t->mods);
	tph_free(t->ovs);
	tph_free(t);
}

static af_track *track_new(alloc_fast *f)
{
	size_t n = (size_t)f->n + 1;
	af_track *t = tph_calloc(1, sizeof *t);
	if (!t || tph_grow(&f->tr, &f->cap_tr, f->n_tr + 1, sizeof *f->tr)) {
		tph_free(t);
		return NULL;
	}
	t->mod_at = tph_calloc(n, sizeof *t->mod_at);
	t->ov_at = tph_calloc(n, sizeof *t->ov_at);
	t->mod_old = tph_malloc(n * sizeof *t->mod_old);
	t->ov_code = tph_malloc(n * sizeof *t->ov_code);
	t->mods = tph_malloc(n * sizeof *t->mods);
	t->ovs = tph_malloc(n * sizeof *t->ovs);
	if (!t->mod_at || !t->ov_at || !t->mod_old || !t->ov_code || !t->mods || !t->ovs) {
		track_release(t);
		return NULL;
	}
	f->tr[f->n_tr++] = t;
	return t;
}

/* A tracker of an earlier pass, or a new one. */
static af_track *track_take(alloc_fast *f)
{
	for (uint32_t i = 0; i < f->n_tr; i++)
		if (!live(f, f->tr[i]))
			return f->tr[i];
	return track_new(f);
}

af_track *af_track_get(alloc_fast *f, tph_idx task, af_shape *sh, bool *decline)
{
	tph_fit_role *r = tph_fit_cache_find(cache(f), task);
	af_track *t = r ? r->follower : NULL;
	*decline = false;
	if (t) {
		*decline = t->sh != sh; /* one role, two shapes: the cache is shared */
		return *decline ? NULL : t;
	}
	if (!tph_fit_cache_applies(cache(f), task))
		return NULL;
	/* a task of the role took the normal path in this pass and cached failures */
	if ((r && r->failed) || !(r = tph_fit_cache_get(cache(f), task)) || !(t = track_take(f))) {
		*decline = true;
		return NULL;
	}
	r->follower = t;
	t->gen = cache(f)->pass, t->sh = sh;
	t->evals = t->n_mods = t->n_ovs = 0;
	t->mod_gen++;
	t->ov_gen++;
	return t;
}

/* p's verdict at the role's last evaluation is `old`, unless one was kept since. */
static void track_mod(af_track *t, uint32_t p, tph_reason_code old)
{
	if (t->mod_at[p] == t->mod_gen)
		return;
	t->mod_at[p] = t->mod_gen;
	t->mod_old[p] = old;
	t->mods[t->n_mods++] = p;
}

void af_track_notify(alloc_fast *f, const af_shape *sh, uint32_t p, tph_reason_code old)
{
	if (af_shared_verdicts(sh))
		return; /* its trackers follow the row and spec (af_track_moved) */
	for (uint32_t i = 0; i < f->n_tr; i++) {
		af_track *t = f->tr[i];
		if (t->sh == sh && live(f, t) && t->evals)
			track_mod(t, p, old);
	}
}

/* Both columns were current at each evaluation (af_type_sync, af_sync), so at the first change
 * of either since, the other still holds its value then: the old verdict is exact. A change
 * that leaves the verdict as it was is kept too (its old verdict is the current one). */
void af_track_moved(alloc_fast *f, const af_row *r, const af_pred *v, uint32_t p,
                    tph_reason_code old)
{
	for (uint32_t i = 0; i < f->n_tr; i++) {
		af_track *t = f->tr[i];
		const af_shape *sh = t->sh;
		if (!sh || !af_shared_verdicts(sh) || (r ? sh->row != r : sh->pred != v) ||
		    !live(f, t) || !t->evals)
			continue;
		tph_reason_code fit = r ? old : af_row_fit(sh->row, p);
		track_mod(t, p, fit == TPH_PASS ? (v ? old : sh->pred->code[p]) : fit);
	}
}

void af_track_eval(af_track *t)
{
	for (uint32_t i = 0; i < t->n_mods; i++) {
		uint32_t p = t->mods[i];
		if (t->mod_old[p] == TPH_PASS || t->ov_at[p] == t->ov_gen)
			continue;
		t->ov_at[p] = t->ov_gen;
		t->ov_code[p] = t->mod_old[p];
		t->ovs[t->n_ovs++] = p;
	}
	t->n_mods = 0;
	t->mod_gen++;
	t->evals++;
}

/* What the cache holds for p as of the role's last evaluation. */
static tph_reason_code cached(const af_track *t, uint32_t p)
{
	if (t->ov_at[p] == t->ov_gen)
		return t->ov_code[p];
	return t->mod_at[p] == t->mod_gen ? t->mod_old[p] : af_track_base(t->sh, p);
}

void af_track_handover(alloc_fast *f, tph_idx task)
{
	tph_fit_role *r = tph_fit_cache_find(cache(f), task);
	af_track *t = r ? r->follower : NULL;
	if (!t)
		return;
	for (uint32_t p = 0; t->evals && p < f->n; p++) {
		tph_reason_code c = cached(t, p);
		if (c != TPH_PASS)
			tph_fit_role_put(r, f->s->ready_nodes[p], c);
	}
	t->sh = NULL;
	r->follower = NULL;
}

bool af_track_pins(const alloc_fast *f, const af_shape *sh)
{
	for (uint32_t i = 0; i < f->n_tr; i++)
		if (f->tr[i]->sh == sh && live(f, f->tr[i]))
			return true;
	return false;
}

void af_track_free(alloc_fast *f)
{
	for (uint32_t i = 0; i < f->n_tr; i++)
		track_release(f->tr[i]);
	tph_free(f->tr);
	f->tr = NULL;
	f->n_tr = f->cap_tr = 0;
}
