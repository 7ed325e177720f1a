/* The cache's image states, as Volcano's scheduler cache keeps them (addNodeImageStates and
 * removeNodeImageStates in pkg/scheduler/cache/event_handlers.go): a node's put takes its names
 * out of the counts (an update is a remove and an add), then adds them, and freezes in the
 * node's meta each name's size and node count as they stand at that moment. The ImageLocality
 * score reads those frozen summaries, as Volcano's does. */
#include "cache/cluster_int.h"

#include "base/mem.h"

#include <string.h>

static uint32_t find(const tph_image_states *st, tph_sid name)
{
	return name < st->map_cap && st->slot[name] ? st->slot[name] - 1 : TPH_NOIDX;
}

/* Whether the meta lists `name` (sorted by name id). */
static bool holds(const tph_node_meta *m, tph_sid name)
{
	uint32_t lo = 0, hi = m ? m->n_images : 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->images[mid].name < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	return m && lo < m->n_images && m->images[lo].name == name;
}

/* A slot for a name never seen: map and columns have room; the slot's count stays 0 (absent)
 * until a put commits. */
static int add_slot(tph_image_states *st, tph_sid name)
{
	if (tph_cl_grow_map(&st->slot, &st->map_cap, name))
		return TPH_ENOMEM;
	if (st->n == st->cap) {
		uint32_t cap = st->cap, cap2 = cap;
		if (tph_grow(&st->size, &cap, st->n + 1, sizeof *st->size) ||
		    tph_grow(&st->count, &cap2, st->n + 1, sizeof *st->count))
			return TPH_ENOMEM;
		st->cap = cap < cap2 ? cap : cap2;
	}
	st->size[st->n] = 0;
	st->count[st->n] = 0;
	st->slot[name] = ++st->n;
	return TPH_OK;
}

int tph_images_reserve(tph_cluster *c, const tph_node_desc *n)
{
	for (uint32_t i = 0; i < n->n_images; i++)
		for (uint32_t k = 0; k < n->images[i].names.n; k++) {
			int err = TPH_OK;
			tph_sid name = tph_cl_intern(c, n->images[i].names.items[k], &err);
			if (err ||
			    (find(&c->images, name) == TPH_NOIDX && add_slot(&c->images, name)))
				return TPH_ENOMEM;
		}
	return TPH_OK;
}

void tph_images_summary(const tph_cluster *c, tph_sid name, int64_t size, const tph_node_meta *old,
                        int64_t *size_out, uint32_t *count_out)
{
	uint32_t s = find(&c->images, name);
	uint32_t others = s == TPH_NOIDX ? 0 : c->images.count[s] - holds(old, name);
	*size_out = others ? c->images.size[s] : size; /* a name gone comes back with this size */
	*count_out = others + 1;
}

void tph_images_commit(tph_cluster *c, const tph_node_meta *old, const tph_node_meta *fresh)
{
	tph_image_states *st = &c->images;
	for (uint32_t i = 0; old && i < old->n_images; i++)
		st->count[find(st, old->images[i].name)]--;
	for (uint32_t i = 0; fresh && i < fresh->n_images; i++) {
		uint32_t s = find(st, fresh->images[i].name);
		if (!st->count[s]++)
			st->size[s] = fresh->images[i].size;
	}
}

void tph_images_free(tph_cluster *c)
{
	tph_free(c->images.slot);
	tph_free(c->images.size);
	tph_free(c->images.count);
	memset(&c->images, 0, sizeof c->images);
}
