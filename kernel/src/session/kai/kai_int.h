/* Internal layout of a KAI session (tephra/kai.h): the snapshot's columns, the state the actions
 * change (task status and node, job timestamps), the committed decisions, and the built-in
 * action table (kernel/actions/kai/builtin.c). Actions read `v` and write only through the
 * helpers below, so every decision is recorded. */
#ifndef TPH_KAI_INT_H
#define TPH_KAI_INT_H

#include "tephra/conf.h"
#include "tephra/kai.h"

typedef struct tph_kai_decisions {
	tph_kai_decision *items;
	uint32_t n, cap;
} tph_kai_decisions;

/* A registered callback and its plugin's state. */
typedef struct tph_kai_hook {
	void *fn;
	void *state;
	tph_kai_score_local_fn local; /* score locality (tephra/kai.h), when is_local */
	bool is_local;
} tph_kai_hook;

typedef struct tph_kai_hooks {
	tph_kai_hook *items;
	uint32_t n, cap;
} tph_kai_hooks;

/* An opened plugin: its descriptor and state, for on_session_close. */
typedef struct tph_kai_open_plugin {
	const tph_kai_plugin *p;
	void *state;
} tph_kai_open_plugin;

struct tph_kai_session {
	const tph_kai_view *v;
	const tph_conf *conf;
	uint8_t *status;       /* [task] tph_kai_status */
	int32_t *node;         /* [task] */
	tph_time *last_start;  /* [job] */
	tph_time *stale_since; /* [job] */
	uint32_t *job_first;   /* [job + 1]: job j's tasks are job_tasks[job_first[j] .. [j+1]) */
	uint32_t *job_tasks;
	tph_kai_decisions evictions, binds, pipelined;
	const char *action; /* the action running, for the decisions it makes */
	/* Extension points, per evicting action (tph_kai_evict_action); frozen after open. */
	tph_kai_hooks victim_filters[2], validators[2];
	/* The allocate action's points (tephra/kai.h). */
	tph_kai_hooks job_order, task_order, pod_set_order, queue_order, node_pre_order, node_order,
	    job_capacity, events;
	/* KAI's node ledger, [node * TPH_KAI_DIMS + dim] (kai_ledger.c). */
	double *idle, *releasing;
	/* The same two for MIG instances, [node * v->nodes.n_mig + profile]. */
	int64_t *mig_idle, *mig_rel;
	/* Shared GPUs (kai_gpu.c): node n's devices are dev_first[n] .. dev_first[n + 1], each with
	 * KAI's three memory figures in MiB — used (every shared pod on it), allocated (all but
	 * Pipelined ones), releasing (Releasing pods less what Pipelined ones claimed) — its flags
	 * (KAI_DEV_*) and its gpuGroups name (NULL: a device first taken in this session). A shared
	 * task holds task_n_dev[t] devices, task_devs[task_dev_first[t] ..]; gpu_used[n] is the
	 * whole GPUs other pods use (KAI's UsedVector). Written only by the statement's ledger
	 * calls, serially. */
	uint32_t *dev_first;
	int64_t *dev_used, *dev_alloc, *dev_rel;
	uint8_t *dev_flags;
	const char **dev_group;
	uint32_t *task_dev_first, *task_n_dev;
	int32_t *task_devs;
	double *gpu_used;
	bool gpu_keep; /* a status change: the task leaves and retakes the same devices */
	tph_kai_hooks gpu_order;
	struct tph_kai_gpu_cand *gpu_cands; /* pick scratch, two per device of the largest node */
	/* Every job's sub-groups, each job's slice in sub-group order; scratch counts per
	 * sub-group (kai_tasks.c). */
	uint32_t *sg_order, *sg_alloc;
	/* The open statement's operations, newest last (kai_stmt.c); virt[t]: task t evicted in
	 * the open statement (KAI's IsVirtualStatus: re-placeable by a pipeline-only turn). */
	struct tph_kai_op *ops;
	uint8_t *virt;
	uint32_t *order_tmp; /* [task] tph_kai_sort_tasks' merge buffer */
	uint32_t n_ops, cap_ops;
	/* The device lists placements replaced, a stack beside ops (tph_kai_op devs_at). */
	int32_t *op_devs;
	uint32_t n_op_devs, cap_op_devs;
	bool frozen;
	tph_kai_open_plugin *plugins;
	uint32_t n_plugins;
	uint32_t n_unbuilt; /* plugins of the conf left out: not built yet */
	/* SubsetNodes and PreJobAllocation (kai_subset.c). */
	tph_kai_hooks subset_nodes, pre_job_allocation;
	/* The solver's points (kai_points.c). */
	tph_kai_hooks can_reclaim, solution_start, nonpreemptible_quota, task_capacity;
	/* The predicates and the fair-share getter (kai_pred.c). */
	tph_kai_hooks pre_predicate, victim_invariant, predicate, fair_share;
	/* Wall time of each action the last run ran (tph_kai_session_action_times). */
	tph_kai_action_time *times;
	uint32_t n_times;
	bool naive; /* tph_kai_session_set_naive: the actions' literal loops */
	/* Scenario generators (tph_kai_generator values, registration order, each once). */
	uint8_t generators[TPH_KAI_N_GENERATORS];
	uint32_t n_generators;
	/* [job] KAI's scheduling signature, 0 until first asked, then kept for the session as KAI
	 * caches it on the podgroup (kernel/actions/kai/solver_sig.c). */
	uint64_t *job_sig;
	uint32_t *task_rank;  /* [task] TaskOrder's rank, equal for equal tasks (kai_order.c) */
	uint32_t *job_ranked; /* job_tasks with each job's slice stably sorted by task_rank */
	/* Each resource's free range over the pool (kai_range.c); a pointer, so a const session
	 * can refresh a stale range when asked. */
	struct tph_kai_ranges *ranges;
	/* Each job's last turn (tph_kai_tasks_to_allocate outside naive mode): turn_n[j] tasks at
	 * turn_tasks[job_first[j] ..], valid while turn_gen[j] == job_gen[j]; job_gen[j] grows
	 * with every change of a task's status, node or virt (tph_kai_touch). */
	uint64_t *job_gen, *turn_gen;
	uint32_t *turn_n, *turn_tasks;
	/* While set (partial != NULL), job partial_job's turn reads partial[0 .. partial_n): the
	 * job solver's partial job while its scenario's re-placement queue holds it
	 * (tph_kai_set_partial). */
	const uint32_t *partial;
	uint32_t partial_n, partial_job;
	/* [queue] grows with every event (kai_stmt.c fire) of a task of the queue's subtree: what
	 * QueueOrder reads of the plugins' state changes only then (tephra/kai.h). */
	uint64_t *queue_gen;
};

/* Job j's turn is tasks[0..n) until cleared (tasks NULL): every reader of
 * tph_kai_tasks_to_allocate, plugins' QueueOrder included, sees KAI's partial job
 * representative. Its kept turns go stale both ways (tph_kai_touch). */
void tph_kai_set_partial(tph_kai_session *s, uint32_t j, const uint32_t *tasks, uint32_t n);

/* Task t's status, node or virt changed (or is about to): its job's kept turn is stale. */
static inline void tph_kai_touch(const tph_kai_session *s, uint32_t t)
{
	int32_t j = s->v->tasks.job[t];
	if (j >= 0)
		s->job_gen[j]++;
}

/* The built plugins, NULL-terminated (plugins/kai/builtin.c). */
extern const tph_kai_plugin *const tph_kai_builtin_plugins[];

/* Open every plugin of the conf (kai_ep.c): a known KAI plugin not built yet is left out with
 * a warning; then freeze the registry. Close them in reverse order. */
int tph_kai_open_plugins(tph_kai_session *s, tph_diag *d);
void tph_kai_close_plugins(tph_kai_session *s);
void tph_kai_free_hooks(tph_kai_session *s);
/* Append a callback to a point's list (kai_order.c); TPH_EINVAL once frozen. */
int tph_kai_hooks_add(tph_kai_session *s, tph_kai_hooks *h, void *fn, void *state);
/* Whether every NodeOrder and NodePreOrder function is local for task t (tephra/kai.h, score
 * locality). */
bool tph_kai_scores_local(const tph_kai_session *s, uint32_t t);
void tph_kai_free_order_hooks(tph_kai_session *s);
void tph_kai_free_subset_hooks(tph_kai_session *s);
void tph_kai_free_solver_hooks(tph_kai_session *s);
void tph_kai_free_pred_hooks(tph_kai_session *s);

/* A KAI action: `run` makes the action's decisions over the whole session. */
typedef struct tph_kai_action {
	const char *name;
	int (*run)(tph_kai_session *s, tph_diag *d);
} tph_kai_action;

/* The built actions, NULL-terminated (kernel/actions/kai/builtin.c). */
extern const tph_kai_action *const tph_kai_builtin_actions[];

/* Evict task t now (KAI's Session.Evict, outside a statement): Releasing, recorded; its node's
 * ledger moves its resources to releasing and the event handlers hear a deallocation, so an
 * action after stalegangeviction sees what KAI's does. */
int tph_kai_evict(tph_kai_session *s, uint32_t t);

/* One operation of a statement: task t moved from status `was` on node `from` to `now` on
 * `node`. A placement (allocate, pipeline) charges `node` only: a victim pipelined elsewhere
 * still releases its old node. An eviction and an unevict (a victim pipelined back onto its
 * own node, KAI's Unevict) move the task between Releasing and its old status in place;
 * `virt` is the task's virtual-eviction mark before the operation. */
typedef enum tph_kai_op_kind {
	TPH_KAI_OP_PLACE,
	TPH_KAI_OP_EVICT,
	TPH_KAI_OP_UNEVICT
} tph_kai_op_kind;
typedef struct tph_kai_op {
	uint32_t task;
	int32_t node, from;
	/* the task's shared devices before: op_devs[devs_at ..], n_devs of them */
	uint32_t devs_at, n_devs;
	uint8_t was, now, kind, virt;
} tph_kai_op;

/* The node ledger (kai_ledger.c): built at open from every pod holding a node. */
int tph_kai_ledger_build(tph_kai_session *s);
/* Task t enters (sign +1) or leaves (-1) node n's ledger in status st. */
void tph_kai_ledger_take(tph_kai_session *s, uint32_t t, uint32_t n, uint8_t st, int sign);
/* The free ranges (kai_range.c): built after the ledger; every ledger change of node n is
 * noted. */
typedef struct tph_kai_ranges tph_kai_ranges;
int tph_kai_ranges_build(tph_kai_session *s);
void tph_kai_ranges_note(tph_kai_session *s, uint32_t n);
void tph_kai_ranges_free(tph_kai_session *s);
/* A node's idle plus releasing GPUs, shared devices' free parts and MIG instances (as GPUs)
 * included (KAI's
 * GetSumOfIdleGPUs + GetSumOfReleasingGPUs, the solver's idle-GPU filter): kept per node until
 * the ledger changes the node (computed afresh in naive mode). */
double tph_kai_free_gpus(const tph_kai_session *s, uint32_t n);
/* The ledger's touch log (kai_range.c): the nodes it touched since the log last restarted
 * (`gen` grows at each restart), oldest first, a node again unless it is the latest entry and
 * nobody read the log since;
 * last[node] is 1 + the node's latest position, 0 when not touched since the restart. So node
 * n is untouched since the log held `at` entries iff last[n] <= at (same gen). False before
 * the ranges are built. */
typedef struct tph_kai_touches {
	const uint32_t *log, *last;
	uint32_t n, gen;
} tph_kai_touches;
bool tph_kai_touch_log(const tph_kai_session *s, tph_kai_touches *out);
/* The dims whose range tph_kai_session_free_range gave since the last call (bit d), so the
 * placement walk knows which ranges a NodePreOrder read. */
unsigned tph_kai_ranges_read(const tph_kai_session *s);
/* Declares the set `nodes`, n (distinct in-pool nodes; NULL: none) whose free ranges
 * tph_kai_session_free_range keeps too, for a set handed at that same address with that size
 * (the owner declares again whenever it changes the contents, and NULL before freeing it). */
void tph_kai_ranges_subset(const tph_kai_session *s, const uint32_t *nodes, uint32_t n);
/* Which set `nodes`, n is for the ranges: 0 the pool, the declared subset's declaration
 * number (never 0, new at each declaration), UINT32_MAX neither; *member[node] tells its nodes. */
uint32_t tph_kai_ranges_set(const tph_kai_session *s, const uint32_t *nodes, uint32_t n,
                            const uint8_t **member);
/* How many nodes the pool holds (0 before the ranges are built). */
uint32_t tph_kai_pool_size(const tph_kai_session *s);
/* Whether task t fits node n's idle resources, or idle plus releasing. */
bool tph_kai_fits_idle(const tph_kai_session *s, uint32_t t, uint32_t n);
bool tph_kai_fits_future(const tph_kai_session *s, uint32_t t, uint32_t n);

/* Shared GPUs (kai_gpu.c). Whether task t takes parts of shared devices (a fraction or GPU
 * memory, on gpu_devices devices); its fraction of a device of node n (above 1: cannot fit);
 * the devices it would get there (KAI's FittingGPUs and GetNodePreferableGpuForSharing:
 * candidates by GpuOrder, written to out, room for its device count; -1: too few fit even
 * once Releasing pods go; *releasing: some device or the node fits it only then); task t
 * entering (+1) or leaving (-1) its devices in status st. */
#define KAI_DEV_MARKED 1u /* KAI's ReleasingSharedGPUs: counted once in the releasing vector */
#define KAI_DEV_SEEN   2u /* KAI's AllocatedSharedGPUsMemory has an entry: it can fit now */
int tph_kai_gpu_build(tph_kai_session *s);
void tph_kai_gpu_free(tph_kai_session *s);
bool tph_kai_gpu_shared(const tph_kai_session *s, uint32_t t);
double tph_kai_gpu_fraction(const tph_kai_session *s, uint32_t t, uint32_t n);
int32_t tph_kai_gpu_pick(const tph_kai_session *s, uint32_t t, uint32_t n, int32_t *out,
                         bool *releasing);
/* Whether the devices pick would give shared task t on node n include one no pod uses yet (a new
 * GPU group: KAI's reservation pod takes a pod slot), or none fit. */
bool tph_kai_gpu_opens_group(const tph_kai_session *s, uint32_t t, uint32_t n);
void tph_kai_gpu_take(tph_kai_session *s, uint32_t t, uint32_t n, uint8_t st, int sign);
/* KAI's GetResourceGpuMemory: the MiB task t takes of each of its devices on node n. */
int64_t tph_kai_gpu_memory(const tph_kai_session *s, uint32_t t, uint32_t n);
/* KAI's IsTaskAllocatable for a shared pod (kai_gpu_pick.c). */
bool tph_kai_gpu_allocatable(const tph_kai_session *s, uint32_t t, uint32_t n);
/* The pick's scratch for nodes of up to `devices` devices (kai_gpu_pick.c); tph_free it. */
struct tph_kai_gpu_cand *tph_kai_gpu_cands_alloc(uint32_t devices);

/* KAI's Statement (kai_stmt.c): virtual operations on the session state and ledger, with
 * event handlers called, undone by rollback to a checkpoint or by discard; commit records
 * Allocated tasks as binds (status Binding) and Pipelined ones as pipelined. */
int tph_kai_stmt_allocate(tph_kai_session *s, uint32_t t, uint32_t n);
int tph_kai_stmt_pipeline(tph_kai_session *s, uint32_t t, uint32_t n);
/* Every Allocated task of job j in the statement becomes Pipelined (the ledger keeps them). */
void tph_kai_stmt_to_pipelined(tph_kai_session *s, uint32_t j);
static inline uint32_t tph_kai_stmt_checkpoint(const tph_kai_session *s)
{
	return s->n_ops;
}
void tph_kai_stmt_rollback(tph_kai_session *s, uint32_t checkpoint);
/* Evict task t (active on its node) in the statement: Releasing there, marked virtual; commit
 * records the eviction unless the task was pipelined back onto the same node meanwhile. */
int tph_kai_stmt_evict(tph_kai_session *s, uint32_t t);
int tph_kai_stmt_commit(tph_kai_session *s);

/* Sort job j's slice of sg_order: children grouped by parent, each group by SubGroupOrder over
 * the current state (kai_tasks.c). */
void tph_kai_order_subgroups(const tph_kai_session *s, uint32_t j);
/* Sort only the children of `set` (-1: the root) among the places they hold in job j's slice,
 * so a walk over a parent's children survives the sort of a child's own members. */
void tph_kai_order_members(const tph_kai_session *s, uint32_t j, int32_t set);

/* Record a committed bind or pipeline by the running action. */
int tph_kai_record_bind(tph_kai_session *s, uint32_t t, int32_t node);
int tph_kai_record_pipelined(tph_kai_session *s, uint32_t t, int32_t node);
int tph_kai_record_eviction(tph_kai_session *s, uint32_t t);

/* Whether job j's gang is satisfied when each task counts for `counts(status)`: every pod set
 * at its minMember, every set with minSubGroup children satisfied, the root likewise. */
bool tph_kai_gang_satisfied(const tph_kai_session *s, uint32_t j, bool (*counts)(uint8_t));

/* Sort tasks by TaskOrder (dir +1: first first; -1: last first), stable, in O(n log n)
 * comparisons: jobs of hundreds of pods are sorted per turn and per solver probe. Outside
 * naive mode it compares the ranks tph_kai_rank_tasks gave (TaskOrder is static, tephra/kai.h),
 * equal tasks equal ranks, so the order is the same. */
void tph_kai_sort_tasks(const tph_kai_session *s, uint32_t *t, uint32_t n, int dir);
/* Rank every task by TaskOrder once the plugins are open (s->task_rank, s->job_ranked). */
int tph_kai_rank_tasks(tph_kai_session *s);

/* Task t (active on its node, else just marked) turns Releasing now, outside any statement:
 * the ledger and the event handlers follow (kai_stmt.c). */
void tph_kai_release_now(tph_kai_session *s, uint32_t t);

#endif
