/* Pods and podgroups rebuilt as put descriptors from a session's view of the loaded scenario:
 * the simulator removes what has not arrived yet and puts it back at its arrival, and puts each
 * pod again when the kubelet starts or completes it. The view keeps interned, resolved rows;
 * these become the descriptor's strings and lists again, copied into the workload's arena. */
#include "sim.h"

#include <string.h>

typedef struct conv {
	const tph_session *s;
	sim_arena *a;
} conv;

static const char *str(const conv *c, tph_sid id)
{
	return id == TPH_SID_NONE ? NULL : sim_strdup(c->a, tph_session_str(c->s, id));
}

#define NEW(c, type, n) ((type *)sim_alloc((c)->a, sizeof(type) * ((n) ? (n) : 1)))

static tph_kv_list kvs(const conv *c, tph_labels l)
{
	tph_kv *kv = NEW(c, tph_kv, l.n);
	for (uint32_t i = 0; kv && i < l.n; i++)
		kv[i] = (tph_kv){str(c, l.items[i].key), str(c, l.items[i].value)};
	return (tph_kv_list){kv, kv ? l.n : 0};
}

static tph_str_list strs(const conv *c, const tph_sid *ids, uint32_t n)
{
	const char **v = NEW(c, const char *, n);
	for (uint32_t i = 0; v && i < n; i++)
		v[i] = str(c, ids[i]);
	return (tph_str_list){v, v ? n : 0};
}

static tph_sel_term term(const conv *c, tph_term_row t)
{
	tph_sel_expr *e = NEW(c, tph_sel_expr, t.n);
	for (uint32_t i = 0; e && i < t.n; i++)
		e[i] = (tph_sel_expr){str(c, t.exprs[i].key), (tph_sel_op)t.exprs[i].op,
		                      strs(c, t.exprs[i].values, t.exprs[i].n_values)};
	return (tph_sel_term){e, e ? t.n : 0};
}

static tph_label_selector selector(const conv *c, const tph_selector_row *r)
{
	return (tph_label_selector){r->present, kvs(c, r->match_labels), term(c, r->match_exprs)};
}

static const tph_pod_affinity_term *podaff(const conv *c, const tph_podaff_row *r, uint32_t n)
{
	tph_pod_affinity_term *t = NEW(c, tph_pod_affinity_term, n);
	for (uint32_t i = 0; t && i < n; i++)
		t[i] = (tph_pod_affinity_term){selector(c, &r[i].selector),
		                               strs(c, r[i].namespaces, r[i].n_namespaces),
		                               str(c, r[i].topology_key), r[i].weight};
	return t;
}

static const tph_affinity *affinity(const conv *c, const tph_pod_spec *sp)
{
	if (!sp->n_node_required && !sp->n_node_preferred && !sp->n_pod_required &&
	    !sp->n_pod_preferred && !sp->n_anti_required && !sp->n_anti_preferred)
		return NULL;
	tph_affinity *af = NEW(c, tph_affinity, 1);
	tph_sel_term *req = NEW(c, tph_sel_term, sp->n_node_required);
	tph_pref_term *pref = NEW(c, tph_pref_term, sp->n_node_preferred);
	if (!af || !req || !pref)
		return NULL;
	for (uint32_t i = 0; i < sp->n_node_required; i++)
		req[i] = term(c, sp->node_required[i]);
	for (uint32_t i = 0; i < sp->n_node_preferred; i++)
		pref[i] = (tph_pref_term){sp->node_preferred[i].weight,
		                          term(c, sp->node_preferred[i].term)};
	*af = (tph_affinity){req,
	                     sp->n_node_required,
	                     pref,
	                     sp->n_node_preferred,
	                     podaff(c, sp->pod_required, sp->n_pod_required),
	                     sp->n_pod_required,
	                     podaff(c, sp->pod_preferred, sp->n_pod_preferred),
	                     sp->n_pod_preferred,
	                     podaff(c, sp->anti_required, sp->n_anti_required),
	                     sp->n_anti_required,
	                     podaff(c, sp->anti_preferred, sp->n_anti_preferred),
	                     sp->n_anti_preferred};
	return af;
}

static void constraints(const conv *c, const tph_pod_spec *sp, tph_pod_desc *o)
{
	o->node_selector = kvs(c, sp->node_selector);
	tph_toleration *tol = NEW(c, tph_toleration, sp->n_tolerations);
	for (uint32_t i = 0; tol && i < sp->n_tolerations; i++) {
		const tph_tol_row *r = &sp->tolerations[i];
		tol[i] = (tph_toleration){str(c, r->key), (tph_toleration_op)r->op,
		                          str(c, r->value), r->effect};
	}
	o->tolerations = tol;
	o->n_tolerations = tol ? sp->n_tolerations : 0;
	o->affinity = affinity(c, sp);
	tph_spread_constraint *sc = NEW(c, tph_spread_constraint, sp->n_spread);
	for (uint32_t i = 0; sc && i < sp->n_spread; i++) {
		const tph_spread_row *r = &sp->spread[i];
		sc[i] = (tph_spread_constraint){r->max_skew, str(c, r->topology_key),
		                                r->do_not_schedule, selector(c, &r->selector),
		                                r->min_domains};
	}
	o->spread = sc;
	o->n_spread = sc ? sp->n_spread : 0;
	tph_host_port *hp = NEW(c, tph_host_port, sp->n_host_ports);
	for (uint32_t i = 0; hp && i < sp->n_host_ports; i++)
		hp[i] = (tph_host_port){sp->host_ports[i].port,
		                        (tph_port_protocol)sp->host_ports[i].protocol,
		                        str(c, sp->host_ports[i].ip)};
	o->host_ports = hp;
	o->n_host_ports = hp ? sp->n_host_ports : 0;
	o->images = strs(c, sp->images, sp->n_images);
}

/* The request over every dimension but pods, which the cache counts for each pod itself. */
static tph_res_list request(const conv *c, const int64_t *row, uint32_t ndim,
                            const tph_dimmask *mask)
{
	tph_res_item *it = NEW(c, tph_res_item, ndim);
	uint32_t n = 0;
	for (uint32_t d = 0; it && d < ndim; d++)
		if (d != TPH_RES_PODS && (row[d] || (mask && (*mask >> d & 1))))
			it[n++] =
			    (tph_res_item){sim_strdup(c->a, tph_session_dim_name(c->s, d)), row[d]};
	return (tph_res_list){it, n};
}

static void pod_meta(const conv *c, const tph_pod_meta *m, tph_pod_desc *o)
{
	o->labels = kvs(c, m->labels);
	o->annotations = kvs(c, m->annotations);
	tph_res_item *lim = NEW(c, tph_res_item, m->n_limits);
	for (uint32_t i = 0; lim && i < m->n_limits; i++)
		lim[i] = (tph_res_item){str(c, m->limits[i].name), m->limits[i].value};
	o->limits = (tph_res_list){lim, lim ? m->n_limits : 0};
	tph_pod_condition *cd = NEW(c, tph_pod_condition, m->n_conditions);
	for (uint32_t i = 0; cd && i < m->n_conditions; i++) {
		const tph_cond_row *r = &m->conditions[i];
		cd[i] = (tph_pod_condition){str(c, r->type),    (tph_cond_status)r->status,
		                            r->last_transition, r->last_probe,
		                            str(c, r->reason),  str(c, r->message)};
	}
	o->conditions = cd;
	o->n_conditions = cd ? m->n_conditions : 0;
}

void sim_pod_desc(const tph_session *s, tph_idx t, sim_arena *a, tph_pod_desc *out)
{
	conv c = {s, a};
	const tph_view *v = tph_view_of(s);
	const tph_task_store *ts = v->tasks;
	tph_pod_desc o = TPH_POD_DESC_INIT;
	o.name = str(&c, ts->name[t]);
	o.namespace_ = str(&c, ts->ns[t]);
	tph_idx j = ts->job[t];
	if (!(ts->flags[t] & TPH_TASK_OWN_JOB) && j != TPH_NOIDX)
		o.pod_group = str(&c, v->jobs->name[j]);
	o.requests = request(&c, &ts->req[(size_t)t * v->ndim], v->ndim, NULL);
	o.task_spec = ts->role[t] == TPH_SID_EMPTY ? NULL : str(&c, ts->role[t]);
	pod_meta(&c, ts->meta[t], &o);
	constraints(&c, ts->spec[t], &o);
	o.has_priority = !(ts->flags[t] & TPH_TASK_PRIORITY_NIL);
	o.priority = ts->priority[t];
	o.priority_class = str(&c, ts->pclass[t]);
	o.preempt_never = ts->flags[t] & TPH_TASK_PREEMPT_NEVER;
	o.preemptable =
	    ts->flags[t] & TPH_TASK_PREEMPTABLE ? TPH_PREEMPTABLE_YES : TPH_PREEMPTABLE_NO;
	o.creation = ts->creation[t];
	o.uid = str(&c, ts->uid[t]);
	*out = o;
}

/* The class a podgroup's priority came from: the first of that value (NULL when none has it). */
static const char *class_of(const conv *c, int32_t prio)
{
	const tph_pclass_store *pc = tph_view_of(c->s)->pclasses;
	for (uint32_t i = 0; i < pc->n; i++)
		if (pc->value[i] == prio)
			return str(c, pc->name[i]);
	return NULL;
}

static void subgroups(const conv *c, const tph_job_meta *m, tph_podgroup_desc *o)
{
	tph_subgroup_policy *sg = NEW(c, tph_subgroup_policy, m->n_subgroups);
	for (uint32_t i = 0; sg && i < m->n_subgroups; i++) {
		const tph_subgroup_row *r = &m->subgroups[i];
		sg[i] = (tph_subgroup_policy)TPH_SUBGROUP_POLICY_INIT;
		sg[i].name = str(c, r->name);
		sg[i].subgroup_size = r->subgroup_size;
		sg[i].min_subgroups = r->min_subgroups;
		sg[i].match_label_keys = strs(c, r->match_label_keys, r->n_match_label_keys);
		sg[i].selector = selector(c, &r->selector);
		sg[i].topology = (tph_net_topology){(tph_topo_mode)r->topo_mode, r->topo_tier,
		                                    str(c, r->topo_tier_name)};
	}
	o->subgroups = sg;
	o->n_subgroups = sg ? m->n_subgroups : 0;
}

void sim_group_desc(const tph_session *s, tph_idx j, sim_arena *a, tph_podgroup_desc *out)
{
	conv c = {s, a};
	const tph_view *v = tph_view_of(s);
	const tph_job_store *js = v->jobs;
	tph_podgroup_desc o = TPH_PODGROUP_DESC_INIT;
	o.name = str(&c, js->name[j]);
	o.namespace_ = str(&c, js->ns[j]);
	o.queue = str(&c, v->queues->name[js->queue[j]]);
	o.min_member = js->min_member[j];
	const tph_job_meta *m = js->meta[j];
	tph_min_task *mt = NEW(&c, tph_min_task, m->n_min_tasks);
	for (uint32_t i = 0; mt && i < m->n_min_tasks; i++)
		mt[i] = (tph_min_task){str(&c, m->min_tasks[i].key), m->min_task_counts[i]};
	o.min_tasks = mt;
	o.n_min_tasks = mt ? m->n_min_tasks : 0;
	o.has_min_resources = js->has_min_res[j];
	if (o.has_min_resources)
		o.min_resources = request(&c, &js->min_res[(size_t)j * v->ndim], v->ndim,
		                          TPH_VIEW_REV(v, 1) ? &js->min_res_mask[j] : NULL);
	o.phase = (tph_pg_phase)js->phase[j];
	o.priority_class = class_of(&c, js->priority[j]);
	o.creation = js->creation[j];
	o.annotations = kvs(&c, m->annotations);
	o.uid = str(&c, js->uid[j]);
	o.topology = (tph_net_topology){(tph_topo_mode)js->topo_mode[j], js->topo_tier[j],
	                                str(&c, js->topo_tier_name[j])};
	subgroups(&c, m, &o);
	*out = o;
}
