/* Private to the scenario loader (scenario_*.c): the loader state shared by the section readers
 * and the readers themselves. Flow: scenario_load.c parses the document, stashes the top-level
 * sections, reads them in dependency order (objects, then references, then expect/probe) and
 * only then fills a fresh cache. */
#ifndef TPH_SCENARIO_LD_H
#define TPH_SCENARIO_LD_H

#include "load/scenario_int.h"

/* The value bit that marks a hypernode in the shared node/hypernode name map. */
#define SC_HN_BIT 0x80000000u

enum sc_section {
	SEC_FLAVOUR,
	SEC_NAME,
	SEC_NOW,
	SEC_CONF,
	SEC_CONF_FILE,
	SEC_EFD,
	SEC_SAMPLING,
	SEC_PCLASSES,
	SEC_QUEUES,
	SEC_NODES,
	SEC_HYPERNODES,
	SEC_QUOTAS,
	SEC_PDBS,
	SEC_SHARD,
	SEC_EXT_RESPONSES,
	SEC_PODGROUPS,
	SEC_PODS,
	SEC_EXPECT,
	SEC_PROBE,
	SEC_KAI_PARAMS,
	SEC_KAI_TOPOLOGIES,
	SEC_COUNT
};

typedef struct sc_ld {
	yu_ctx c; /* first member: yu_walk handlers get the loader back with sc_ld_of() */
	tph_scenario *sc;
	const char *buf; /* the file text */
	size_t len;
	yu_map names;     /* nodes and hypernodes (SC_HN_BIT set), by name */
	yu_map pods;      /* (namespace, name) -> index */
	yu_map podgroups; /* (namespace, name) -> index */
	yu_map queues;
	yu_map pclasses;
	yu_map quotas;
	yu_map pdbs;
	tph_time latest;   /* latest creationTimestamp read */
	bool kai;          /* flavour: kai (keys of namespace "" are bare names) */
	yu_map topologies; /* kai: Topology objects by name */
	yu_node *sec[SEC_COUNT];
} sc_ld;

static inline sc_ld *sc_ld_of(yu_ctx *c)
{
	return (sc_ld *)c;
}

int sc_nomem(sc_ld *L, const yu_node *n);

/* The scalar text under `key` in a mapping, or NULL (used to name objects before reading). */
const char *sc_peek(sc_ld *L, const yu_node *map, const char *key);

/* Name the object of item `i` of a section for messages and reset the field path. */
void sc_begin_obj(sc_ld *L, const char *kind, const yu_node *item, bool namespaced, uint32_t i);

typedef int (*sc_item_fn)(sc_ld *L, yu_node *item, uint32_t i);

/* Run `fn` over every item of a sequence section (`key` names it in messages). */
int sc_each(sc_ld *L, const yu_node *seq, const char *key, sc_item_fn fn);
/* The same with `then` (if not NULL) run on each item after `fn` succeeds on it. */
int sc_each_then(sc_ld *L, const yu_node *seq, const char *key, sc_item_fn fn, sc_item_fn then);

/* sc_each_then for a large section, on several threads: `decode` reads item i into the
 * section's array (`items`, `n` elements of `size` bytes) and touches nothing shared but that
 * element; `finish` then runs in item order on the caller's thread (names into maps), after
 * the item's warnings, which the threads hold back. An error on any thread discards their
 * work and the section decodes again serially, `decode` then `finish` per item, so messages
 * and warnings are always a serial load's. */
int sc_each_par(sc_ld *L, const yu_node *seq, const char *key, sc_item_fn decode, sc_item_fn finish,
                void *items, size_t size);

/* Sections of at least this many items decode in parallel (tests lower it); how many did. */
extern uint32_t sc_par_min_items;
extern unsigned long sc_par_done;

/* The first of `n` decoded items (`size` bytes each, a string at offset `off`) whose string an
 * earlier item has goes to *at (UINT32_MAX when all differ): pairwise for a few items, hashed
 * for many. TPH_ENOMEM when out of memory. */
int sc_find_repeat(const void *items, uint32_t n, size_t size, size_t off, uint32_t *at);

/* Register `(a, b)` in `map` with value `i`; a duplicate is an error naming `what`. */
int sc_register(sc_ld *L, yu_map *map, const yu_node *at, const char *a, const char *b, uint32_t i,
                const char *what);

/* Go's zero time (0001-01-01T00:00:00Z) written for a time reads as unset (0). */
void sc_zero_time(tph_time *t);
/* Keep the latest creationTimestamp for the `now` default; Go's zero time reads as unset. */
void sc_note_creation(sc_ld *L, tph_time *t);

/* Shared field handlers (yu_walk): a Kubernetes LabelSelector (tph_label_selector) and a
 * Volcano networkTopology (tph_net_topology). */
int sc_f_label_selector(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_net_topology(yu_ctx *c, yu_node *v, void *dst, const void *aux);
/* A node's `numa:` (its Numatopology spec) into a const tph_node_numa * (scenario_numa.c). */
int sc_f_numa(yu_ctx *c, yu_node *v, void *dst, const void *aux);
/* preemptionPolicy (PreemptLowerPriority | Never) into a bool "never". */
int sc_f_preempt_never(yu_ctx *c, yu_node *v, void *dst, const void *aux);
/* A non-empty string that may hold '/' (label keys, topology keys, taint keys). */
int sc_f_key(yu_ctx *c, yu_node *v, void *dst, const void *aux);
/* "<a><sep><b>" copied into the reading context's arena (NULL when out of memory). */
const char *sc_join(sc_ld *L, const char *a, char sep, const char *b);
/* Allocate the scenario's array for a section of `seq`'s length (0 if it is no sequence);
 * NULL (and the error set) when out of memory. */
void *sc_alloc_items(sc_ld *L, const yu_node *seq, size_t size, uint32_t *n);
/* A field that tephra does not support: always an error (TPH_ENOTSUP). */
int sc_f_unsupported(yu_ctx *c, yu_node *v, void *dst, const void *aux);
/* Read `items` of a sequence into an arena array of `size`-byte elements with `fn`. */
int sc_seq(yu_ctx *c, const yu_node *v, size_t size, void **items, uint32_t *n,
           int (*fn)(yu_ctx *c, yu_node *item, void *dst));

/* Container fields (scenario_containers.c): a pod's images (tph_str_list), initContainers and
 * hostPorts (into the tph_pod_desc), a node's images (into the tph_node_desc). */
int sc_f_images(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_init_containers(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_host_ports(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_node_images(yu_ctx *c, yu_node *v, void *dst, const void *aux);

/* ---- expect / probe helpers (scenario_expect.c), shared with the kai readers ---- */

typedef enum ref_kind {
	REF_POD = 0,
	REF_PODGROUP = 1,
	REF_QUEUE = 2,
	REF_NODE = 3,
} ref_kind;

/* The kinds as ints, for a yu_field's aux (&sc_ref_kinds[REF_POD]). */
extern const int sc_ref_kinds[];

/* Resolve a reference to an object of `kind` ("ns/name" for pods and podgroups; a bare name
 * in a kai scenario means namespace ""); an unknown object is a located error. */
int sc_resolve(yu_ctx *c, const yu_node *n, ref_kind kind, tph_sc_ref *out);

/* Reads the value of a keyed row into the rest of `row` (its key is resolved already). */
typedef int (*sc_row_fn)(yu_ctx *c, yu_node *val, void *row);

/* A mapping of keyed rows (pod -> node, podgroup -> phase, ...): keys are unique and name
 * `kind` objects; row i (`size` bytes, a tph_sc_ref first) gets key i resolved, then `fn`
 * reads value i into it, with the key on the path. */
int sc_keyed_rows(yu_ctx *c, const yu_node *v, ref_kind kind, size_t size, sc_row_fn fn,
                  uint32_t *n, void **items);

/* yu_walk handlers: references (aux: &sc_ref_kinds[kind]) into tph_sc_refs; key -> [nodes]
 * into tph_sc_keyed_nodes_list; key -> bool into tph_sc_flags; pod -> node into tph_sc_binds;
 * a count (0..INT32_MAX) into int64_t; pod -> node -> score into tph_sc_score_rows. */
int sc_f_refs(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_keyed_nodes(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_flags(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_binds(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_count(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_scores(yu_ctx *c, yu_node *v, void *dst, const void *aux);

/* Kubernetes shapes shared with the kai readers (scenario_pods.c, scenario_objects.c): a pod's
 * affinity and tolerations (into a tph_pod_desc), a node's taints (into a tph_node_desc). */
int sc_f_affinity(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_tolerations(yu_ctx *c, yu_node *v, void *dst, const void *aux);
int sc_f_taints(yu_ctx *c, yu_node *v, void *dst, const void *aux);

/* A yu_walk handler for a key only the other flavour reads: always an error naming that
 * flavour (aux: its name). The macros make table rows of it. */
int sc_f_other_flavour(yu_ctx *c, yu_node *v, void *dst, const void *aux);
#define SC_VOLCANO_ONLY(key)                             \
	{                                                \
		key, sc_f_other_flavour, 0, "volcano", 0 \
	}
#define SC_KAI_ONLY(key)                             \
	{                                            \
		key, sc_f_other_flavour, 0, "kai", 0 \
	}

/* Section readers. */
int sc_load_pclasses(sc_ld *L, const yu_node *seq);
int sc_load_queues(sc_ld *L, const yu_node *seq);
int sc_load_nodes(sc_ld *L, const yu_node *seq);
int sc_load_hypernodes(sc_ld *L, const yu_node *seq);
int sc_load_quotas(sc_ld *L, const yu_node *seq);
int sc_load_pdbs(sc_ld *L, const yu_node *seq);
int sc_load_ext_responses(sc_ld *L, const yu_node *map);
int sc_load_shard(sc_ld *L, const yu_node *map);
int sc_load_podgroups(sc_ld *L, const yu_node *seq);
int sc_load_pods(sc_ld *L, const yu_node *seq);
int sc_load_expect(sc_ld *L, const yu_node *map);
int sc_load_probe(sc_ld *L, const yu_node *map);

/* Checks made once every queue / hypernode is read: parents exist and form no cycle; members
 * name a node or a hypernode and hypernodes form no cycle. */
int sc_check_queue_parents(sc_ld *L);
int sc_resolve_hypernodes(sc_ld *L);

/* The header keys (name, now, the conf, ...) and the name maps, once the sections are stashed. */
int sc_load_header(sc_ld *L);
int sc_init_maps(sc_ld *L);

/* One flavour's reading of a scenario: its top-level keys, then its sections in dependency
 * order (what a section refers to is read before it), then `now` from the latest timestamp
 * when the file gives none. */
typedef struct sc_step {
	int id; /* enum sc_section */
	int (*fn)(sc_ld *L, const yu_node *n);
} sc_step;
int sc_decode_sections(sc_ld *L, const yu_node *root, const yu_field *top, size_t n_top,
                       const sc_step *order, size_t n_order);

/* Fill the scenario's fresh cache from the decoded objects. */
int sc_build(sc_ld *L);

#endif
