/* Helpers of the KAI snapshot (kai_snap.c) that the kai loader and kai_snap_k8s.c share. */
#ifndef TPH_KAI_SNAP_H
#define TPH_KAI_SNAP_H

#include "base/arena.h"
#include "tephra/kai.h"

/* How many of g's sub-groups name `parent` as theirs (NULL: the root's children). */
uint32_t tph_kai_children(const tph_kai_podgroup_desc *g, const char *parent);

/* The Kubernetes columns of nodes and tasks (kai_snap_k8s.c), in arena `a`; their interned
 * rows live in a private cluster cache, *out, which the snapshot frees with itself. */
int tph_kai_snap_k8s(tph_arena *a, const tph_kai_cluster_desc *c, tph_kai_nodes *nd,
                     tph_kai_tasks *t, tph_cluster **out, tph_diag *d);

/* The MIG columns of nodes and tasks (kai_snap_mig.c), in arena `a`. */
int tph_kai_snap_mig(tph_arena *a, const tph_kai_cluster_desc *c, tph_kai_nodes *nd,
                     tph_kai_tasks *t, tph_diag *d);

#endif
