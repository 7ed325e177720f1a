/* Scenario section `extenderResponses:`: the one answer the HTTP extender gives per verb, kept
 * as a test harness serves it: the status, and the body as JSON text (a mapping) or as written
 * (a string). */
#include "scenario_ld.h"

static int f_status(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_i32(c, v, 100, 599, (int32_t *)dst);
}

static int f_body(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_extender_response *r = dst;
	if (v->type == YU_MAP) {
		r->json = true;
		return yu_json(c, v, &r->body);
	}
	if (v->type == YU_SCALAR)
		return yu_str(c, v, &r->body);
	return yu_err(c, v, TPH_EINVAL, "expected a mapping (sent as JSON) or a string, got %s",
	              yu_kind(v));
}

static const yu_field response_fields[] = {
    YU_F("status", f_status, tph_extender_response, status, NULL, 0),
    {"body", f_body, 0, NULL, 0},
};

static int read_response(sc_ld *L, const yu_pair *p, tph_sc_ext_response *out)
{
	yu_ctx *c = &L->c;
	yu_node *k = yu_at(c, p->key), *v = yu_at(c, p->value);
	if (k->len == 0 || yu_is_null(k)) {
		yu_push(c, "extenderResponses");
		return yu_err(c, k, TPH_EINVAL, "empty verb");
	}
	tph_extender_response *r = &out->r;
	int rc = yu_str(c, k, &r->verb);
	yu_set_obj(c, "extenderResponse", NULL, r->verb, -1);
	out->line = yu_line(c, v);
	r->status = 200;
	r->body = "";
	return rc < 0 ? rc
	              : yu_walk(c, v, response_fields,
	                        sizeof response_fields / sizeof response_fields[0], r);
}

int sc_load_ext_responses(sc_ld *L, const yu_node *map)
{
	yu_ctx *c = &L->c;
	yu_set_obj(c, "scenario", NULL, NULL, -1);
	c->depth = 0;
	yu_push(c, "extenderResponses");
	int rc = yu_check_unique_keys(c, map);
	yu_pop(c);
	uint32_t n = rc < 0 ? 0 : (uint32_t)yu_map_len(map);
	tph_sc_ext_response *items = yu_alloc_array(&L->sc->arena, n, sizeof *items);
	if (rc == TPH_OK && !items)
		rc = sc_nomem(L, map);
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++)
		rc = read_response(L, &map->u.pairs[i], &items[i]);
	L->sc->ext_responses = items;
	L->sc->n_ext_responses = rc < 0 ? 0 : n;
	c->depth = 0;
	yu_set_obj(c, "scenario", NULL, NULL, -1);
	return rc;
}
