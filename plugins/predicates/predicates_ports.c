/* kube-scheduler's NodePorts filter as Volcano's predicates plugin runs it: the host ports a pod
 * binds (tph_pod_spec.host_ports) against NodeInfo.UsedPorts, the ports of the pods the node
 * holds. UsedPorts is a set (HostPortInfo): adding a port twice keeps one entry and removing it
 * once drops it, as Kubernetes' does. The sets follow the shared k8s view: built at open from
 * the pods it holds, changed by predicates' event handlers as the view is. */
#include "predicates.h"

#include "tephra/alloc.h"

#include <string.h>

static bool same(const tph_port_row *a, const tph_port_row *b)
{
	return a->port == b->port && a->protocol == b->protocol && a->ip == b->ip;
}

/* HostPortInfo.Add */
static int add(pred_ports *pp, tph_idx node, const tph_port_row *p)
{
	pred_port_set *set = &pp->node[node];
	for (uint32_t i = 0; i < set->n; i++)
		if (same(&set->items[i], p))
			return TPH_OK;
	if (tph_grow(&set->items, &set->cap, set->n + 1, sizeof *set->items))
		return TPH_ENOMEM;
	set->items[set->n++] = *p;
	return TPH_OK;
}

/* HostPortInfo.Remove: the entry goes, whoever else bound it. */
static void del(pred_ports *pp, tph_idx node, const tph_port_row *p)
{
	pred_port_set *set = &pp->node[node];
	for (uint32_t i = 0; i < set->n; i++)
		if (same(&set->items[i], p)) {
			set->items[i] = set->items[--set->n];
			return;
		}
}

int tph_pred_ports_event(pred_st *st, const tph_session *s, tph_idx task, tph_idx node, int sign)
{
	pred_ports *pp = &st->ports;
	if (!pp->node || node == TPH_NOIDX)
		return TPH_OK;
	const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[task];
	for (uint32_t i = 0; i < sp->n_host_ports; i++) {
		if (sign < 0)
			del(pp, node, &sp->host_ports[i]);
		else if (add(pp, node, &sp->host_ports[i]))
			return TPH_ENOMEM;
	}
	return TPH_OK;
}

/* HostPortInfo.CheckConflict: a port on 0.0.0.0 meets the same protocol and port on any
 * address; one on an address meets it there and on 0.0.0.0. */
static bool conflict(const pred_port_set *set, const tph_port_row *want, tph_sid any)
{
	for (uint32_t i = 0; i < set->n; i++) {
		const tph_port_row *e = &set->items[i];
		if (e->port == want->port && e->protocol == want->protocol &&
		    (want->ip == any || e->ip == any || e->ip == want->ip))
			return true;
	}
	return false;
}

tph_reason_code tph_pred_ports_filter(const pred_st *st, const tph_pod_spec *sp, tph_idx node)
{
	const pred_ports *pp = &st->ports;
	if (!pp->node || !sp->n_host_ports || !pp->node[node].n)
		return TPH_PASS; /* PreFilter skips a pod without host ports */
	for (uint32_t i = 0; i < sp->n_host_ports; i++)
		if (conflict(&pp->node[node], &sp->host_ports[i], pp->any))
			return st->r_ports;
	return TPH_PASS;
}

int tph_pred_ports_init(pred_st *st, tph_session *s)
{
	const tph_task_store *ts = tph_view_of(s)->tasks;
	bool any = false;
	for (tph_idx t = 0; t < ts->n && !any; t++)
		any = ts->spec[t]->n_host_ports > 0;
	st->r_ports =
	    tph_reason(s, "node(s) didn't have free ports for the requested pod ports", false);
	if (st->r_ports == TPH_REASON_INVALID)
		return TPH_ENOMEM;
	if (!any || !st->node_ports)
		return TPH_OK; /* no pod binds a host port: every node passes, no set is kept */
	pred_ports *pp = &st->ports;
	pp->any = tph_session_sid(s, "0.0.0.0", 7);
	pp->n_nodes = st->v->n_nodes;
	if (!(pp->node = TPH_SESSION_NEW(s, pred_port_set, pp->n_nodes + 1)))
		return TPH_ENOMEM;
	for (tph_idx n = 0; n < pp->n_nodes; n++)
		for (tph_idx t = st->v->head[n]; t != TPH_NOIDX; t = st->v->next[t])
			if (tph_pred_ports_event(st, s, t, n, +1))
				return TPH_ENOMEM;
	return TPH_OK;
}

void tph_pred_ports_free(pred_st *st)
{
	pred_ports *pp = &st->ports;
	for (uint32_t n = 0; pp->node && n < pp->n_nodes; n++)
		tph_free(pp->node[n].items);
	pp->node = NULL;
}
