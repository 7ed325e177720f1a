/* `tephra simulate`: what the command line says (sim_cmd.c) for the driver (sim_main.c). */
#ifndef TPH_SIM_CMD_H
#define TPH_SIM_CMD_H

#include "sim.h"

typedef struct sim_args {
	const char *scenario, *profile, *arrivals, *confs[2], *jsonl, *html;
	uint32_t n_confs, seed, nodes, tasks, jobs, queues, from, span, threads, stop;
	double over, median, sigma, period;
	bool capacity, no_skip, has_span, expect_b;
} sim_args;

/* 0, 2 after a usage error (printed), -1 after --help. `g` starts with the defaults. */
int sim_parse(int argc, char **argv, sim_args *g);

#endif
