/* rescheduling's state, shared by its files: rescheduling.c (arguments, open) and
 * rescheduling_lnu.c (the lowNodeUtilization strategy's VictimTasks). */
#ifndef TPH_PLUGINS_RESCHEDULING_H
#define TPH_PLUGINS_RESCHEDULING_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/qos.h"
#include "tephra/plugin.h"

/* How lowNodeUtilization sorts a node (groupNodesByUtilization). */
enum {
	LNU_OTHER = 0,
	LNU_LOW = 1,  /* schedulable, every resource below its threshold: a target */
	LNU_HIGH = 2, /* not low, some resource above its target threshold: a source */
};

/* A pod in the order lowNodeUtilization evicts a node's pods (sortPods). */
typedef struct lnu_pod {
	uint8_t has_prio; /* pod.Spec.Priority is set: after every pod without one */
	uint8_t qos;      /* lib/qos.h: BestEffort, Burstable, Guaranteed */
	int32_t prio;
	tph_idx task;
} lnu_pod;

/* Written at open; the scratch by VictimTasks (session thread). */
typedef struct rs_st {
	/* LowNodeUtilizationConf: Thresholds and TargetThresholds in percent; only cpu and memory
	 * are compared (a node's utilisation has no other resource). */
	double low_cpu, low_mem, target_cpu, target_mem;
	qos_keys qk;                /* the victims' QoS classes read these limits */
	uint8_t *kind;              /* [node] LNU_* (ready nodes; others LNU_OTHER) */
	double *cpu, *mem;          /* [node] utilisation, percent (CPUUsageAvg[metricsPeriod]) */
	tph_idx *high;              /* the high nodes, most used (cpu + memory) first */
	uint32_t n_low, n_high;     /* over the session's (ready) nodes */
	int64_t room_cpu, room_mem; /* totalAllocatableResource at the start of a call */
	/* VictimTasks scratch, sized at open. */
	uint32_t *off;   /* [node + 1] pods of high nodes, CSR */
	lnu_pod *pods;   /* [task] */
	uint64_t *names; /* [task] candidate name << 32 | position, sorted */
} rs_st;

/* rescheduling_lnu.c */
int lnu_open(tph_session *s, rs_st *g, int64_t period_s, bool period_ok);
void lnu_victims(void *st, const tph_session *s, const tph_idx *tasks, uint32_t n, uint8_t *victim);

#endif
