/* conformance: Volcano's conformance plugin. Never evicts critical pods: those of the
 * system-cluster-critical or system-node-critical priority classes, or in kube-system. Applies
 * to preemption, reclaim and gang-aware eviction alike. Reads no arguments. */
#include "tephra/plugin.h"

typedef struct conformance_st {
	/* Interned ids of the protected names, TPH_SID_NONE when no object uses the name (then
	 * no pod can carry it either). */
	tph_sid cluster_critical, node_critical, kube_system;
} conformance_st;

static bool critical(const conformance_st *c, const tph_session *s, tph_idx t)
{
	tph_sid pc = tph_view_of(s)->tasks->pclass[t];
	return (pc != TPH_SID_NONE && (pc == c->cluster_critical || pc == c->node_critical)) ||
	       (c->kube_system != TPH_SID_NONE && tph_view_of(s)->tasks->ns[t] == c->kube_system);
}

static int evictable(void *st, const tph_session *s, tph_idx evictor, const tph_idx *cands,
                     uint32_t n, uint8_t *keep)
{
	(void)evictor;
	for (uint32_t i = 0; i < n; i++)
		keep[i] = !critical(st, s, cands[i]);
	return 1;
}

static int conformance_open(tph_session *s, void *st, const tph_args *args)
{
	(void)args;
	conformance_st *c = st;
	c->cluster_critical = tph_session_sid(s, "system-cluster-critical", 23);
	c->node_critical = tph_session_sid(s, "system-node-critical", 20);
	c->kube_system = tph_session_sid(s, "kube-system", 11);
	int rc = tph_on_preemptable(s, evictable);
	if (!rc)
		rc = tph_on_reclaimable(s, evictable);
	if (!rc) /* the evictor is not read */
		rc = tph_declare_victim_locality(s, TPH_VICTIM_CLASS);
	if (!rc)
		rc = tph_on_unified_evictable(s, evictable);
	return rc;
}

const tph_plugin tph_plugin_conformance = {
    .abi = TPH_PLUGIN_ABI,
    .name = "conformance",
    .state_size = sizeof(conformance_st),
    .on_session_open = conformance_open,
};
