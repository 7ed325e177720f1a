/* tdm's state, shared by its two files: tdm.c (extension points) and tdm_zone.c (the revocable
 * zones and their time windows). */
#ifndef TPH_PLUGINS_TDM_H
#define TPH_PLUGINS_TDM_H

#include <stdbool.h>
#include <stdint.h>

#include "tephra/plugin.h"

/* What the predicate makes of a node (NodeInfo.RevocableZone and availableRevocableZone). */
enum {
	TDM_NODE_PLAIN = 0, /* no zone: every task passes */
	TDM_NODE_OPEN = 1,  /* a zone whose window is open: tasks that may use revocable nodes */
	TDM_NODE_SHUT = 2,  /* a closed zone, a bad window, or a zone no argument names */
};

/* PodGroup disruption budget (JobInfo.Budget), as getMaxPodEvictNum reads it. */
enum {
	TDM_BUDGET_NONE = 0,
	TDM_BUDGET_MIN = 1, /* volcano.sh/jdb-min-available */
	TDM_BUDGET_MAX = 2, /* volcano.sh/jdb-max-unavailable */
};

typedef struct tdm_zone {
	const char *name;    /* as the argument key gives it */
	tph_sid sid;         /* TPH_SID_NONE: no node carries it */
	bool open;           /* the window holds the session clock */
	tph_reason_code why; /* the predicate's reason on its nodes when not open */
} tdm_zone;

/* Written at open; the victim scratch and `evicted` by the victim callbacks (session thread);
 * the per-node callbacks only read. */
typedef struct tdm_st {
	const char *period; /* tdm.evict.period as written; NULL when absent */
	int64_t period_ns;  /* default one minute */
	tdm_zone *zone;
	uint32_t n_zone;
	bool any_open;               /* some node is in an open zone */
	uint8_t *node_state;         /* [node] TDM_NODE_* */
	uint32_t *node_zone;         /* [node] its configured zone, else TPH_NOIDX */
	tph_reason_code *node_why;   /* [node] the reason on a SHUT node */
	tph_reason_code not_allowed; /* an OPEN node and a task without a zone */
	uint8_t *task_rz;            /* [task] TaskInfo.RevocableZone is "*" */
	uint8_t *chosen;             /* [task] VictimTasks scratch */
	uint8_t *job_pre;            /* [job] JobInfo.Preemptable */
	uint8_t *budget_kind;        /* [job] TDM_BUDGET_* */
	int64_t *budget;             /* [job] its value, a percentage already taken of the tasks */
	uint32_t *stamp;             /* [job] room[j] belongs to call `call` */
	int64_t *room;               /* [job] victims this job may still give in this call */
	uint32_t call;
	bool evicted; /* VictimTasks ran in this session: Volcano's lastEvictAt is now */
} tdm_st;

int tdm_zones_open(tph_session *s, tdm_st *g, const tph_args *args);
int tdm_nodes_open(tph_session *s, tdm_st *g);

#endif
