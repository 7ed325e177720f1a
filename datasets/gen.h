/* The generator's internal model, shared by its section writers: racks of one node type each,
 * the existing running load, and the pending gangs, planned in memory (a few flat arrays) and
 * then written section by section. */
#ifndef TPH_GEN_H
#define TPH_GEN_H

#include "datasets.h"
#include "gen_io.h"

#define GIB ((int64_t)1 << 30)

/* The session clock of every generated scenario: 2026-01-01T12:00:00Z. */
#define GEN_NOW 1767268800

typedef struct gen_node_type {
	const char *name;
	int64_t cpu; /* millicores */
	int64_t mem; /* bytes */
	uint32_t gpu;
	uint32_t weight; /* among CPU racks or among GPU racks */
} gen_node_type;

extern const gen_node_type gen_node_types[];
extern const uint32_t gen_n_node_types;
extern const char *const gen_zones[];
#define GEN_ZONES 4u

enum {
	PRIO_HIGH = 0,
	PRIO_NORMAL = 1,
	PRIO_LOW = 2,
};

enum {
	PHASE_PENDING = 0,
	PHASE_INQUEUE = 1,
	PHASE_RUNNING = 2,
};

/* Constraints a pending gang's pods carry; equal within a job, so a job is one equivalence
 * class (two with a master). */
enum {
	JOB_GPU = 1u << 0,       /* tolerates the GPU taint */
	JOB_ZONE_SEL = 1u << 1,  /* nodeSelector on the zone */
	JOB_TYPE_AFF = 1u << 2,  /* required node affinity: instance type In [...] */
	JOB_ZONE_PREF = 1u << 3, /* preferred node affinity on the zone */
	JOB_ANTI = 1u << 4,      /* pod anti-affinity between the job's pods, per host */
	JOB_SPREAD = 1u << 5,    /* topology spread over zones */
	JOB_MASTER = 1u << 6,    /* the first task is a smaller master */
	JOB_TOPO_HARD = 1u << 7, /* networkTopology hard, highestTierAllowed topo_tier */
	JOB_TOPO_SOFT = 1u << 8,
	JOB_TYPE_SEL = 1u << 9, /* nodeSelector on the GPU instance type */
};

typedef struct gen_job {
	uint32_t size, min, queue;
	uint32_t flags;
	uint8_t prio, phase, topo_tier, sel; /* sel: zone or node type index */
	int64_t cpu, mem, gpu;               /* a worker's request (gpu in whole devices) */
	int64_t created;                     /* seconds since the epoch */
} gen_job;

/* A running pod of the existing load. */
typedef struct gen_pod {
	uint32_t node, job;
	int64_t cpu, mem, gpu;
} gen_pod;

typedef struct gen_state {
	const tph_gen_opts *o;
	gen_out *w;
	tph_gen_stats st;
	uint32_t n_racks;
	uint8_t *rack_type;     /* node type of each rack */
	uint32_t *queue_weight; /* per queue */
	gen_pod *run;           /* the running pods, node by node */
	uint32_t n_run;
	gen_job *rjobs; /* running jobs, then pending jobs in one array */
	uint32_t n_rjobs;
	gen_job *jobs;
	uint32_t n_jobs;
	int64_t total_cpu;
} gen_state;

/* The type of node i. */
static inline const gen_node_type *gen_node(const gen_state *g, uint32_t i)
{
	return &gen_node_types[g->rack_type[i / g->o->rack_size]];
}

/* Grow *p (of *cap elements of `size` bytes, doubling from 1,024) to hold `need`; 0, or -1
 * when memory runs out (*p unchanged). gen.c. */
int gen_grow(void **p, uint32_t *cap, uint32_t need, size_t size);

/* gen_cluster.c */
int gen_plan_racks(gen_state *g);
void gen_write_classes(gen_state *g);
void gen_write_queues(gen_state *g);
void gen_write_nodes(gen_state *g);
void gen_write_hypernodes(gen_state *g);

/* gen_plan.c */
int gen_plan_running(gen_state *g);
int gen_plan_jobs(gen_state *g);

/* gen_emit.c */
void gen_write_podgroups(gen_state *g);
void gen_write_pods(gen_state *g);

#endif
