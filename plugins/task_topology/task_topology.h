/* task-topology's state, shared by its files: task_topology.c (arguments, extension points),
 * task_topology_parse.c (the podgroup annotations, Volcano's readTopologyFromPgAnnotations and
 * JobManager.ApplyTaskTopology) and task_topology_bucket.c (the buckets: ConstructBucket at open,
 * TaskBound on allocate, and what NodeOrderFn reads of them). Source: volcano
 * pkg/scheduler/plugins/task-topology/{topology,manager,bucket,util}.go. */
#ifndef TPH_PLUGINS_TASK_TOPOLOGY_H
#define TPH_PLUGINS_TASK_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/vres.h"
#include "tephra/plugin.h"

/* Relations between two topology names a, b of one job, rel[a * k + b]: inter-task for a != b,
 * the self relations on the diagonal. */
enum {
	TT_AFF = 1,  /* interAffinity / selfAffinity */
	TT_ANTI = 2, /* interAntiAffinity / selfAntiAffinity */
};

/* A job's topology (JobManager): the names its affinity and anti-affinity groups list (empty
 * names left out: no task carries one, so they never count). */
typedef struct tt_topo {
	uint32_t k;
	tph_sid *name;  /* [k] */
	int32_t *order; /* [k] taskExistOrder: len(list) - index, 0 when not in the task order */
	int32_t *prio;  /* [k] taskAffinityPriority */
	uint8_t *rel;   /* [k * k] TT_* bits */
} tt_topo;

/* Per node, counts kept in two chains of entries: a bucket's tasks bound there (Bucket.node),
 * and a job's tasks of one topology name allocated there this session (JobManager.nodeTaskSet;
 * names without topology never count, so they are not kept). */
typedef struct tt_ent {
	uint32_t key;  /* bucket; or job */
	uint32_t name; /* topology name (name chain) */
	int64_t count;
	uint32_t next; /* TPH_NOIDX ends the chain */
} tt_ent;

/* Written at open and by the allocate handler (session thread); the per-node score only reads. */
typedef struct tt_st {
	int64_t weight; /* task-topology.weight */
	vr_dims vr;
	uint32_t n_cmp;
	uint32_t cmp[TPH_RES_MAX]; /* what Volcano's Resource compares: no pods */
	uint32_t nd;               /* the session's dimensions */
	tt_topo *topo;             /* [job]; k == 0 and no buckets: no manager */
	uint8_t *managed;          /* [job] a JobManager exists */
	uint32_t *max_size;        /* [job] bucketMaxSize */
	/* Per task, NULL when no job is managed. */
	uint32_t *bucket; /* [task] TPH_NOIDX: out of bucket (or no manager) */
	uint32_t *tname;  /* [task] its topology name, TPH_NOIDX: none */
	uint32_t *pos;    /* [task] index in its bucket's unbound members, TPH_NOIDX: not one */
	/* Buckets, session-wide ids, a job's in creation order (Bucket.index). */
	uint32_t nb;
	tph_idx *b_job;
	uint32_t *b_size; /* len(bucket.tasks): members not yet bound */
	int64_t *b_req;   /* [b * nd] bucket.request, kept as Volcano keeps it */
	uint32_t *b_off;  /* [nb + 1] members of b: b_cur[b_off[b] .. b_off[b] + b_size[b]) */
	tph_idx *b_cur;   /* unbound members in the order they joined */
	int64_t *b_pre;   /* rows (b_off[b] + b + i) * nd: the requests of the first i members */
	/* Node chains (heap: they grow on allocate; freed at close). */
	uint32_t *head_b, *head_n; /* [node] */
	tt_ent *ent;
	uint32_t n_ent, cap_ent;
} tt_st;

/* Parse job j's annotations: TPH_OK with t->k set (0 and no name when the job lists no
 * topology name), TPH_DECLINED when the job has none of the three annotations or they are
 * invalid (readTopologyFromPgAnnotations' nil or error: no manager), TPH_ENOMEM. */
int tt_parse_job(tph_session *s, tph_idx j, tt_topo *t);
/* The topology name of a task: its volcano.sh/task-spec annotation (`key`, Volcano's
 * getTaskName reads no label), TPH_NOIDX when it has none or the name has no topology. */
uint32_t tt_name_of(const tph_session *s, const tt_topo *t, tph_sid key, tph_idx task);

/* Build the buckets of every managed job (ConstructBucket). */
int tt_buckets_open(tph_session *s, tt_st *g);
/* JobManager.TaskBound for a task just allocated or pipelined. */
int tt_task_bound(tph_session *s, tt_st *g, tph_idx task);
/* The count of a node chain entry, 0 when absent. */
int64_t tt_bucket_on(const tt_st *g, tph_idx node, uint32_t b);
/* checkTaskSetAffinity(name, nodeTaskSet[node], onlyAnti): minus the tasks there that name
 * `a` of job j is anti-affine to. */
int64_t tt_anti_on(const tt_st *g, tph_idx node, tph_idx j, uint32_t a);
/* How many other members calcBucketScore takes out of bucket b, in member order, until what is
 * left fits `max` (the node's idle + releasing); all of them when nothing does. */
int64_t tt_removals(const tt_st *g, uint32_t b, tph_idx task, const int64_t *task_req,
                    const int64_t *max);

#endif
