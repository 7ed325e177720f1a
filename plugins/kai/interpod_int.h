/* Kubernetes' inter-pod affinity counts for the kai flavour (InterPodAffinity, k8s 1.35 as KAI
 * d5bc503a vendors it), shared by the predicates plugin (PreFilter and Filter: the required
 * terms) and the podaffinity plugin (PreScore and Score: the preferred ones). Not public API.
 *
 * Counting is by rule: one term of a pod class (pods with one interned spec in one namespace)
 * and what it counts per domain of its topology key (the nodes with one value of that label):
 * - the class's own terms count the placed pods that match them (a required affinity term only
 *   pods that match all the class's required affinity terms, as updateWithAffinityTerms does);
 * - existing pods' terms ("owner" rules) count the placed pods of the class that owns them,
 *   and apply to an incoming pod the term matches.
 * Which rules a pod feeds when placed, and which owner rules apply to it, are listed once at
 * open; a placement then moves one counter per fed rule (the event handler), and a task-node
 * question reads one counter per rule: no pod is scanned per task and no string compared. */
#ifndef TPH_PLUGINS_KAI_INTERPOD_INT_H
#define TPH_PLUGINS_KAI_INTERPOD_INT_H

#include "tephra/kai.h"

typedef enum ip_kind {
	IP_AFF = 0, /* own required affinity term */
	IP_ANTI,    /* own required anti-affinity term */
	IP_PAFF,    /* own preferred affinity term: +weight per matching pod */
	IP_PANTI,   /* own preferred anti-affinity term: -weight */
	IP_XANTI,   /* an existing pod's required anti-affinity term */
	IP_XPAFF,   /* an existing pod's preferred affinity term: +weight */
	IP_XPANTI,  /* an existing pod's preferred anti-affinity term: -weight */
	IP_KINDS
} ip_kind;

/* What an index is built for: the required kinds (predicates) or the preferred ones. */
typedef enum ip_want {
	IP_REQUIRED = 1,
	IP_PREFERRED = 2
} ip_want;

typedef struct ip_rule {
	uint8_t kind;   /* ip_kind */
	uint32_t cls;   /* the class whose term it is */
	uint32_t key;   /* index into ip_index.keys */
	int32_t weight; /* signed for the score kinds; 0 otherwise */
	int64_t total;  /* sum of count[] */
	int64_t *count; /* [domain of key] placed pods counted there */
	const tph_podaff_row *term;
} ip_rule;

typedef struct ip_index {
	uint32_t n_tasks, n_nodes;
	uint32_t n_keys;
	tph_sid *keys; /* the topology keys the terms name */
	uint32_t
	    *dom; /* [k * n_nodes + node]: domain of the node's value, TPH_NOIDX without the key */
	uint32_t *n_dom; /* [k] */
	uint32_t n_rules;
	ip_rule *rules; /* a class's own rules are contiguous: [own_first[c], own_first[c + 1]) */
	uint32_t n_cls;
	uint32_t *own_first;         /* [n_cls + 1] */
	int32_t *cls;                /* [task]: its class, -1 with no term of the wanted kinds */
	uint8_t *self_aff;           /* [task]: matches all its own required affinity terms */
	uint32_t *feed_first, *feed; /* CSR: the rules a placed task counts in */
	uint32_t *xq_first, *xq;     /* CSR: the owner rules whose term matches the task */
	int32_t *at;                 /* [task]: the node it is counted at by an event, -1: none */
	int32_t *home;               /* [task]: the node it was counted at when opened, -1: none */
} ip_index;

/* Builds the index over the session's pods (NULL: no pod has a term of the kinds wanted, so
 * nothing is to count) and counts the pods placed at open (active statuses, as KAI's node
 * infos hold them). TPH_OK or TPH_ENOMEM. */
int ip_build(const tph_kai_session *s, unsigned want, ip_index **out);
void ip_free(ip_index *ix);

/* The event handler's work: task t placed on (+1) or taken back from (-1) node. */
void ip_event(ip_index *ix, const tph_kai_session *s, uint32_t t, int32_t node, int sign);

/* PreFilter's Skip: no required term of t and no existing pod's anti-affinity matching it. */
bool ip_filter_skips(const ip_index *ix, uint32_t t);
/* Filter: t's required affinity, its required anti-affinity, existing pods' anti-affinity. */
bool ip_filter(const ip_index *ix, uint32_t t, uint32_t node);
/* PreScore's Skip: no placed pod adds to t's topology scores. */
bool ip_score_skips(const ip_index *ix, uint32_t t);
/* Score: the raw sum of weights over the node's domains (KAI does not normalise it). */
int64_t ip_score(const ip_index *ix, uint32_t t, uint32_t node);

#endif
