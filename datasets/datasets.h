/* Synthetic scenarios (`tephra gen`) and real-trace importers (`tephra import`), built as the
 * static library tph_datasets and linked into the tephra CLI. Not part of the public API: the
 * CLI, the unit tests and the benchmark scripts are its only users. Every writer emits the
 * scenario format of shared/spec/scenario-format.md. */
#ifndef TPH_DATASETS_H
#define TPH_DATASETS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What a profile builds besides the common cluster: plain batch load, a full cluster of
 * preemptable work under high-priority arrivals, network-topology-aware gangs, or a realistic
 * mix of the three under Volcano's Helm-chart conf with every action; or a KAI cluster of GPU
 * nodes, departments and quota'd queues with shared-GPU, gang and elastic work (`flavour: kai`,
 * KAI's default conf; datasets/gen_kai.h). */
typedef enum tph_gen_kind {
	TPH_GEN_STANDARD = 0,
	TPH_GEN_PREEMPT = 1,
	TPH_GEN_TOPOLOGY = 2,
	TPH_GEN_MIXED = 3,
	TPH_GEN_KAI_GPU = 4,
} tph_gen_kind;

/* Generator knobs; a profile fills all of them and flags override single fields. */
typedef struct tph_gen_opts {
	const char *profile; /* the profile name, written as the scenario's name */
	tph_gen_kind kind;
	uint64_t seed;
	uint32_t nodes;     /* exact */
	uint32_t tasks;     /* pending tasks, exact */
	uint32_t queues;    /* exact */
	uint32_t jobs;      /* pending gangs, approximate: sets the mean gang size tasks/jobs */
	uint32_t max_gang;  /* largest gang */
	uint32_t load_pct;  /* running load: percent of each node's cpu, on average */
	uint32_t gpu_pct;   /* percent of racks that hold GPU nodes */
	uint32_t tiers;     /* hypernode tiers above the nodes (0: no hyperNodes section) */
	uint32_t rack_size; /* nodes per rack (and per tier-1 hypernode) */
	/* Percent of the unconstrained CPU gangs whose pods repel each other per host (required
	 * pod anti-affinity; gangs over 16 pods get a zone spread instead). Off in every profile:
	 * one such pod makes every node's verdict depend on other nodes, which today turns the
	 * equivalence classes off for the whole session. */
	uint32_t pod_affinity_pct;
} tph_gen_opts;

/* What a run wrote. */
typedef struct tph_gen_stats {
	uint32_t nodes, queues, hypernodes;
	uint32_t jobs, tasks;                 /* pending */
	uint32_t running_jobs, running_tasks; /* the existing load */
	uint64_t bytes;
} tph_gen_stats;

/* The profile names, NULL-terminated, in the order `tephra gen --help` lists them. */
extern const char *const tph_gen_profiles[];

/* Fill `o` with the named profile's defaults (seed 1). Returns 0, or -1 for an unknown name. */
int tph_gen_profile(const char *name, tph_gen_opts *o);

/* Write the scenario to `f` (buffered; flushed before returning). The same options give the
 * same bytes on every machine. Returns 0, or -1 with errno set when the options are out of range
 * (EINVAL), memory runs out or a write fails (that write's errno). `st` may be NULL. */
int tph_gen_write(const tph_gen_opts *o, FILE *f, tph_gen_stats *st);

/* The commands: argv[0] is the command name. Exit codes as the CLI's: 0 ok, 2 bad usage or
 * input. */
int tph_cmd_gen(int argc, char **argv);
int tph_cmd_import(int argc, char **argv);

#endif
