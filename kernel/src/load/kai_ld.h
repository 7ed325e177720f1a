/* Private to the kai scenario readers (kai_*.c): a `flavour: kai` file is read by the same
 * loader state as a Volcano one (scenario_ld.h) with its own top-level table and section
 * readers (shared/spec/kai-format.md). Flow: scenario_load.c sees the flavour and hands the
 * document to sc_kai_decode; the readers fill sc->kai and the shared pod and node lists. */
#ifndef TPH_KAI_LD_H
#define TPH_KAI_LD_H

#include "load/scenario_ld.h"

/* Read every section of a kai scenario (the flavour is already checked). */
int sc_kai_decode(sc_ld *L, const yu_node *root);

/* A yu_walk handler that keeps the value node (a top-level section, read later). */
int sc_f_stash(yu_ctx *c, yu_node *v, void *dst, const void *aux);

/* Section readers (kai_objects.c, kai_podgroups.c, kai_pods.c, kai_expect.c). */
int sc_kai_params(sc_ld *L, const yu_node *map);
int sc_kai_topologies(sc_ld *L, const yu_node *seq);
int sc_kai_queues(sc_ld *L, const yu_node *seq);
int sc_kai_nodes(sc_ld *L, const yu_node *seq);
int sc_kai_podgroups(sc_ld *L, const yu_node *seq);
int sc_kai_pods(sc_ld *L, const yu_node *seq);
int sc_kai_expect(sc_ld *L, const yu_node *map);
int sc_kai_probe(sc_ld *L, const yu_node *map);

/* A Go duration in milliseconds (any sign unless `nonneg`), and as a yu_walk handler into an
 * int64_t (aux non-NULL: must not be negative). */
int sc_kai_ms(yu_ctx *c, const yu_node *v, bool nonneg, int64_t *ms);
int sc_kai_f_ms(yu_ctx *c, yu_node *v, void *dst, const void *aux);

/* A KAI task status by name ("Pending", ..., "Unknown") into a tph_kai_status. */
int sc_kai_f_status(yu_ctx *c, yu_node *v, void *dst, const void *aux);

#endif
