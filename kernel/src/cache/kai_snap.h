/* Helpers of the KAI snapshot (kai_snap.c) that the kai loader shares. */
#ifndef TPH_KAI_SNAP_H
#define TPH_KAI_SNAP_H

#include "tephra/kai.h"

/* How many of g's sub-groups name `parent` as theirs (NULL: the root's children). */
uint32_t tph_kai_children(const tph_kai_podgroup_desc *g, const char *parent);

#endif
