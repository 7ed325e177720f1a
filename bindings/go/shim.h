/* C helpers for the Go binding: each descriptor starts from its TPH_*_DESC_INIT macro (cgo cannot
 * expand a macro that is a compound initialiser), and the warning trampoline into Go. */
#ifndef TEPHRA_GO_SHIM_H
#define TEPHRA_GO_SHIM_H

#include <stdlib.h>
#include <string.h>

#include <tephra/tephra.h>

#define TPH_GO_INIT(type, macro)                    \
	static inline type tph_go_init_##type(void) \
	{                                           \
		type v = macro;                     \
		return v;                           \
	}
TPH_GO_INIT(tph_node_desc, TPH_NODE_DESC_INIT)
TPH_GO_INIT(tph_pod_desc, TPH_POD_DESC_INIT)
TPH_GO_INIT(tph_podgroup_desc, TPH_PODGROUP_DESC_INIT)
TPH_GO_INIT(tph_queue_desc, TPH_QUEUE_DESC_INIT)
TPH_GO_INIT(tph_priority_class_desc, TPH_PRIORITY_CLASS_DESC_INIT)
TPH_GO_INIT(tph_hypernode_desc, TPH_HYPERNODE_DESC_INIT)
TPH_GO_INIT(tph_quota_desc, TPH_QUOTA_DESC_INIT)
TPH_GO_INIT(tph_pdb_desc, TPH_PDB_DESC_INIT)
TPH_GO_INIT(tph_subgroup_policy, TPH_SUBGROUP_POLICY_INIT)
TPH_GO_INIT(tph_net_topology, TPH_NET_TOPOLOGY_INIT)

/* Volcano's default conf, as the header spells it. */
static inline const char *tph_go_default_conf(size_t *len)
{
	*len = sizeof TPH_CONF_VOLCANO_DEFAULT - 1;
	return TPH_CONF_VOLCANO_DEFAULT;
}

/* The puts and removes by kind, so the Go side has one call path for each (cluster.go). */
enum {
	TPH_GO_NODE,
	TPH_GO_POD,
	TPH_GO_PODGROUP,
	TPH_GO_QUEUE,
	TPH_GO_PRIORITY_CLASS,
	TPH_GO_HYPERNODE,
	TPH_GO_QUOTA,
	TPH_GO_PDB
};

static inline int tph_go_put(tph_cluster *c, int kind, const void *desc, tph_diag *d)
{
	switch (kind) {
	case TPH_GO_NODE:
		return tph_cluster_put_node(c, desc, d);
	case TPH_GO_POD:
		return tph_cluster_put_pod(c, desc, d);
	case TPH_GO_PODGROUP:
		return tph_cluster_put_podgroup(c, desc, d);
	case TPH_GO_QUEUE:
		return tph_cluster_put_queue(c, desc, d);
	case TPH_GO_PRIORITY_CLASS:
		return tph_cluster_put_priority_class(c, desc, d);
	case TPH_GO_HYPERNODE:
		return tph_cluster_put_hypernode(c, desc, d);
	case TPH_GO_QUOTA:
		return tph_cluster_put_quota(c, desc, d);
	case TPH_GO_PDB:
		return tph_cluster_put_pdb(c, desc, d);
	}
	return TPH_EINVAL;
}

/* `ns` is ignored for the kinds that have none. */
static inline int tph_go_remove(tph_cluster *c, int kind, const char *ns, const char *name,
                                tph_diag *d)
{
	switch (kind) {
	case TPH_GO_NODE:
		return tph_cluster_remove_node(c, name, d);
	case TPH_GO_POD:
		return tph_cluster_remove_pod(c, ns, name, d);
	case TPH_GO_PODGROUP:
		return tph_cluster_remove_podgroup(c, ns, name, d);
	case TPH_GO_QUEUE:
		return tph_cluster_remove_queue(c, name, d);
	case TPH_GO_PDB:
		return tph_cluster_remove_pdb(c, ns, name, d);
	}
	return TPH_EINVAL;
}

/* Points a diag's warning sink at the Go handler registered under `handle` (warn.c). */
void tph_go_diag_warn_to(tph_diag *d, uintptr_t handle);

#endif
