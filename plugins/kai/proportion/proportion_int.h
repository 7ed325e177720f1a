/* KAI-Scheduler's proportion arithmetic (pkg/scheduler/plugins/proportion at d5bc503a), private
 * to the kai flavour: the fair-share division of a queue tree (share.c), the accounting that
 * feeds it (queues.c), the capacity checks (capacity.c), the reclaim rules (reclaimable.c) and
 * the queue order (queue_order.c). Pure functions over struct-of-arrays columns the caller owns;
 * no allocation, no hashing, no session types, so the session can fill the columns from its
 * own data model (plugins/kai/README.md says how).
 *
 * Numbers are float64 in KAI's units, as KAI keeps them: cpu millicores, memory bytes, gpu GPUs
 * (fractions allowed). KAI_UNLIMITED (-1) in a quota or a limit means unlimited. Every loop over
 * queues runs in index order where KAI walks a Go map; KAI's results do not depend on that order
 * except for float rounding and the one place reclaimable.c names. */
#ifndef TPH_PLUGINS_KAI_PROPORTION_INT_H
#define TPH_PLUGINS_KAI_PROPORTION_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KAI_UNLIMITED (-1.0)
#define KAI_NOQ       UINT32_MAX /* no queue: a top-level queue's parent */

/* KAI's AllResources, in its order (the order checks report the first exceeding one in). */
enum kai_res {
	KAI_CPU,
	KAI_MEM,
	KAI_GPU,
	KAI_NRES
};

/* One resource of every queue: a column per attribute, indexed by queue (KAI's ResourceShare). */
typedef struct kai_share {
	double *deserved;    /* quota; KAI_UNLIMITED */
	double *max_allowed; /* limit; KAI_UNLIMITED */
	double *weight;      /* overQuotaWeight */
	double *usage;       /* historical usage over cluster capacity; 0 without a usage DB */
	double *allocated;   /* the queue's and its descendants' allocated tasks */
	double *alloc_np;    /* allocatedNotPreemptible: the part of non-preemptible jobs */
	double *request;     /* allocated + pending requests */
	double *fair;        /* fairShare: kai_share_tree's output */
} kai_share;

/* The queue tree. A queue's parent has a smaller or larger index, never itself; kai_share_tree
 * rejects cycles and parents out of range. Ties that KAI breaks by queue UID use `rank`. */
typedef struct kai_queues {
	uint32_t n;
	uint32_t *parent;  /* KAI_NOQ: a top-level queue */
	int32_t *priority; /* over-quota priority band (KAI's default 100) */
	int64_t *created;  /* creation time, any unit that orders */
	uint32_t *rank;    /* position of the queue's UID in byte order */
	kai_share r[KAI_NRES];
} kai_queues;

/* Bytes of one block holding every column of n queues (8-byte aligned pieces). */
size_t kai_queues_bytes(uint32_t n);
/* Carve q's columns out of mem (kai_queues_bytes(n), 8-byte aligned) and zero them; parents
 * KAI_NOQ, priority 100, rank = index. */
void kai_queues_init(kai_queues *q, uint32_t n, void *mem);
/* dst = src, column by column (the same n): OnJobSolutionStart's clone. */
void kai_queues_copy(kai_queues *dst, const kai_queues *src);

/* ---- queues.c: the plugin's accounting (proportion.go) ---- */

/* A queue spec's quota, limit and weight for resource res, in the units above. The format
 * gives memory in megabytes: KAI multiplies by 10^6 and keeps -1 for anything below. */
void kai_queue_set_quota(kai_queues *q, uint32_t queue, int res, double quota, double limit,
                         double weight);
/* A task the snapshot holds in an allocated status: allocated and request of the queue and
 * every ancestor grow by v; allocatedNotPreemptible too when the job is not preemptible
 * (updateQueuesResourceUsageForAllocatedJob). */
void kai_account_allocated(kai_queues *q, uint32_t queue, const double v[KAI_NRES],
                           bool preemptible);
/* A pending task: request of the queue and every ancestor grows by v (gpu-memory requests
 * converted by the caller with kai_gpu_memory_fraction and the smallest node GPU memory). */
void kai_account_pending(kai_queues *q, uint32_t queue, const double v[KAI_NRES]);
/* The event handlers: sign +1 on allocate, -1 on deallocate (allocated, and
 * allocatedNotPreemptible for a non-preemptible job, of the queue and every ancestor). */
void kai_account_event(kai_queues *q, uint32_t queue, const double v[KAI_NRES], bool preemptible,
                       int sign);
/* One node's contribution to the totals (getNodeResources): nothing when not ready; its
 * allocatable (gpu 0 when ignore_gpus: restrict-node-scheduling on a node without the GPU
 * worker label) less foreign, the requests of active pods of other schedulers. */
void kai_total_add_node(double total[KAI_NRES], const double alloc[KAI_NRES],
                        const double foreign[KAI_NRES], bool ready, bool ignore_gpus);
/* GpuMemoryAsGpuFraction: devices * mib / device_mib; 0 when either is not positive. */
double kai_gpu_memory_fraction(int64_t devices, int64_t mib, int64_t device_mib);
/* The queues on the paths from the top to a and to b, at the first level where the paths
 * differ, or at the shorter path's end (getLeveledQueues). */
void kai_leveled(const kai_queues *q, uint32_t a, uint32_t b, uint32_t *la, uint32_t *lb);
/* GetAllocatableShare: the most the queue may hold of res (KAI_UNLIMITED possible). */
double kai_allocatable(const kai_queues *q, uint32_t queue, int res);
/* compareQuantities: -1, 0, 1, with KAI_UNLIMITED above everything else. */
int kai_cmp(double a, double b);

/* ---- share.c: resource_division ---- */

/* Scratch for the division: kai_share_scratch_bytes(n) bytes, 8-byte aligned. */
size_t kai_share_scratch_bytes(uint32_t n);

/* setResourceShare over one set of sibling queues and one resource: each gets
 * min(quota, requested) (quota -1 = total), then what is left is divided over quota. Adds to
 * fair; returns what stays undivided (0 when the quotas took everything). */
double kai_share_divide(kai_queues *q, int res, const uint32_t *set, uint32_t m, double total,
                        double k, void *scratch);
/* divideOverQuotaResource: `total` divided over the set, priority bands highest first, each in
 * rounds by weights max(0, w' + k (w' - usage)), w' = weight over the weights of the queues
 * that still request; grants floored to whole units unless a queue's rest fits; then the
 * floored-off remainders, one unit (or what is left) to each queue of a band, largest
 * remainder first, then creation, then rank. Returns what stays undivided. */
double kai_share_over_quota(kai_queues *q, int res, const uint32_t *set, uint32_t m, double total,
                            double k, void *scratch);
/* The whole tree (setFairShare): fair = 0, the top-level queues divide total, then each
 * queue's children divide its fair share, level by level. -1 on a bad tree (a parent out of
 * range, or a cycle), 0 otherwise. */
int kai_share_tree(kai_queues *q, const double total[KAI_NRES], double k, void *scratch);

/* ---- capacity.c: capacity_policy ---- */

enum kai_verdict_reason {
	KAI_SCHEDULABLE = 0,
	KAI_OVER_LIMIT,          /* v2alpha2.OverLimit */
	KAI_NONPREEMPTIBLE_OVER, /* v2alpha2.NonPreemptibleOverQuota */
};

/* A SchedulableResult: why, where (the first queue up the path that fails, the first resource
 * in KAI's order), and the numbers its message prints, taken when checked. */
typedef struct kai_verdict {
	int reason;
	uint32_t queue;
	int res;
	double bound;     /* limit (over limit) or quota (non-preemptible over quota) */
	double used;      /* allocated, or allocatedNotPreemptible */
	double requested; /* of that resource */
	double req[KAI_NRES];
} kai_verdict;

/* IsJobOverQueueCapacity and IsTaskAllocationOnNodeOverCapacity: over a limit anywhere up the
 * path, else (non-preemptible jobs) over a quota anywhere up the path. req is getRequiredQuota
 * (gpu-memory requests as fractions of the largest node GPU memory) or, per node, the task's
 * required init quota. Returns v->reason. */
int kai_job_over_capacity(const kai_queues *q, uint32_t queue, const double req[KAI_NRES],
                          bool preemptible, kai_verdict *v);
/* IsNonPreemptibleJobOverQueueQuota: only the quota check. */
int kai_nonpreemptible_over_quota(const kai_queues *q, uint32_t queue, const double req[KAI_NRES],
                                  bool preemptible, kai_verdict *v);
/* KAI's message for a verdict that is not schedulable, with the failing queue's name, cut to
 * fit buf (NUL-terminated when n > 0). Returns the length it wanted, as snprintf. */
int kai_verdict_message(const kai_verdict *v, const char *queue_name, char *buf, size_t n);

/* ---- reclaimable.c: reclaimable, strategies, filter_victims ---- */

/* A reclaimer: its queue, the resources of its tasks to allocate (GetTasksToAllocateInit-
 * ResourceVector quantified: gpu is TotalGPUs), the resources present in its vector's cpu,
 * memory and GPU slots (bit 1 << res; MIG-only requests have quantity without the GPU bit), and
 * whether its job is preemptible. */
typedef struct kai_reclaimer {
	uint32_t queue;
	double req[KAI_NRES];
	uint8_t involved;
	bool preemptible;
} kai_reclaimer;

/* The involved mask of a vector whose GPU slot holds its whole gpu quantity. */
uint8_t kai_involved(const double v[KAI_NRES]);

/* CanReclaimResources: allocated + req within fair share everywhere; non-preemptible jobs also
 * allocatedNotPreemptible + req within quota. */
bool kai_can_reclaim(const kai_queues *q, const kai_reclaimer *r);
/* allocatedNotPreemptible + req within quota on queue i, every resource. */
bool kai_np_within_quota(const kai_queues *q, uint32_t i, const double req[KAI_NRES]);
/* FilterVictim (ReclaimVictimFilter) for a victim job of queue victim_queue. */
bool kai_filter_victim(const kai_queues *q, const kai_reclaimer *r, uint32_t victim_queue);
/* The strategies (FitsReclaimStrategy): MaintainFairShare (the reclaimee's remaining exceeds its
 * allocatable somewhere) or GuaranteeDeservedQuota (reclaimer's allocated + req within quota,
 * reclaimee's remaining over quota somewhere). lr, le: the leveled queues. */
bool kai_strategy_fits(const kai_queues *q, const double req[KAI_NRES], uint32_t lr, uint32_t le,
                       const double remaining[KAI_NRES]);
bool kai_fits_maintain_fair_share(const kai_queues *q, uint32_t le,
                                  const double remaining[KAI_NRES]);
bool kai_fits_guarantee_deserved(const kai_queues *q, const double req[KAI_NRES], uint32_t lr,
                                 uint32_t le, const double remaining[KAI_NRES]);

/* One resource vector a scenario takes from a victim queue (getVictimResources: each elastic
 * task alone, the job's core tasks together; tasks only moved are left out when consolidating
 * reclaim is allowed). */
typedef struct kai_victim_res {
	uint32_t queue;
	double v[KAI_NRES];
	uint8_t involved;
} kai_victim_res;

/* One task of a victim job as the scenario lists it: its pod set (an index into the job's pod
 * sets), its accepted resources, and whether it is only moved (an active allocated status:
 * re-placed by the scenario). */
typedef struct kai_victim_task {
	uint32_t podset;
	double v[KAI_NRES];
	bool moved;
} kai_victim_task;

/* getVictimResources for one victim job of queue `queue`: per pod set, the first min_avail of
 * its tasks (in t's order) are core, the rest elastic; each elastic task is one vector, the
 * core tasks of every pod set together one more, after them. Moved tasks are left out when
 * skip_moved (allowConsolidatingReclaim). out has room for nt + 1; count is scratch of nps.
 * Returns the vectors written. KAI lists elastic tasks pod set by pod set in Go map order;
 * tephra in task order. The involved mask assumes the gpu slot holds all GPUs (kai_involved). */
uint32_t kai_victim_vectors(uint32_t queue, const kai_victim_task *t, uint32_t nt,
                            const uint32_t *min_avail, uint32_t *count, uint32_t nps,
                            bool skip_moved, kai_victim_res *out);

size_t kai_reclaim_scratch_bytes(uint32_t n);
/* Reclaimable (ReclaimScenarioValidator), over the queue state cloned at the job solution's
 * start, with saturation = relcaimerSaturationMultiplier (>= 1). Victim queues are visited in
 * the order of their first vector in vic (KAI: Go map order; it can matter when two victim
 * queues share the reclaimer's leveled sibling), each queue's vectors in list order. */
bool kai_reclaimable(const kai_queues *q, const kai_reclaimer *r, const kai_victim_res *vic,
                     uint32_t nv, double saturation, void *scratch);

/* ---- queue_order.c ---- */

/* One side of QueueOrder: the queue, the init resources of its best job (zeros for none; gpu
 * memory converted with the smallest node GPU memory), and the allocated resources of its
 * victims popped so far (zeros for none). */
typedef struct kai_qo_side {
	uint32_t queue;
	double job[KAI_NRES];
	double victims[KAI_NRES];
} kai_qo_side;

/* GetQueueOrderResult: -1 when l goes first, 1 when r does; never 0 (equal creation times give
 * r). total: the cluster totals (the dominant resource share of unlimited queues). */
int kai_queue_order(const kai_queues *q, const double total[KAI_NRES], const kai_qo_side *l,
                    const kai_qo_side *r);
/* GetDominantResourceShare of a queue with allocated `alloc`. */
double kai_dominant_share(const kai_queues *q, uint32_t queue, const double alloc[KAI_NRES],
                          const double total[KAI_NRES]);

#endif
