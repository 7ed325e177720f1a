/* Subjobs: Volcano's SubJobInfo partition of every job (api/job_info.go, sub_job_info.go),
 * built at session open (tph_topo_open) and kept current by the task-move hook.
 *
 * A job without subGroupPolicy has one subjob, its default, holding every task, with the job's
 * minMember as MinAvailable and the job's network topology. With policies, each task joins the
 * subjob of the first policy whose labelSelector (when set) matches the pod's labels and whose
 * matchLabelKeys (at least one) all have a non-empty value on the pod: one subjob per policy
 * and distinct value tuple, MinAvailable subGroupSize, the policy's own network topology. Tasks
 * that no policy takes join the default subjob (MinAvailable 1, the job's topology). A job
 * with no task has no subjob.
 *
 * Subjob indices are session-wide and dense: the subjobs of job j are
 * job_off[j] .. job_off[j+1), sorted by Volcano's default SubJobOrder (MatchIndex, then UID),
 * so tph_subjob_order()'s index fallback is Volcano's. These indices are what the SubJob*
 * extension points (tph_on_subjob_order/_ready/_pipelined) and HyperNodeOrder receive. */
#ifndef TPH_SUBJOB_H
#define TPH_SUBJOB_H

#include <stdbool.h>
#include <stdint.h>

#include "cache/snap.h"

typedef struct tph_session tph_session;

typedef struct tph_subjobs {
	uint32_t n;
	uint32_t *job_off; /* [jobs + 1] */
	tph_idx *job;      /* [n] */
	/* The policy (index into the job's meta->subgroups) or TPH_NOIDX for the default subjob;
	 * the policy is also the subjob's GID (the default's GID is the job's own). */
	uint32_t *policy;
	int32_t *min_available;
	int64_t *match_index; /* Atoi of the first match value, else 0 */
	const char **uid;     /* "<job uid>/<policy>-<values joined by '-'>"; the job's uid for the
	                         default, or NULL there: read it through tph_subjob_uid */
	int32_t *priority;    /* the highest task priority, at least 0 */
	/* Topology after adjustNetworkTopologySpec: topo_has = WithNetworkTopology, topo_tier =
	 * the highest allowed tier in hard mode (IsHardTopologyMode), else -1. */
	uint8_t *topo_has;
	int32_t *topo_tier;
	/* Mutable, session thread: AllocatedHyperNode (recovered at open; allocate updates it) and
	 * NominatedHyperNode (gang preempt/reclaim); TPH_NOIDX for "". */
	tph_idx *hn;
	tph_idx *nominated;
	uint32_t *task_off; /* [n + 1]: tasks of subjob k are task[task_off[k] .. task_off[k+1]) */
	tph_idx *task;      /* in the job's task order (the job store's own list when no job has
	                       policies: never written) */
	tph_idx *of_task;   /* [tasks]: the subjob of each task; TPH_NOIDX when it has no job.
	                       NULL when no job has policies: read it through tph_task_subjob */
	/* Mutable (the task-move hook): tasks per status [k * TPH_TS_COUNT + status], and pending
	 * best-effort tasks. */
	uint32_t *count;
	uint32_t *be_pending;
} tph_subjobs;

/* Build the partition (subjob.c; tph_topo_open calls it). */
int tph_subjobs_build(tph_session *s, tph_subjobs *out);
/* The hook's part: a task moved from old_status to its current status. */
void tph_subjobs_task_moved(tph_session *s, tph_idx task, uint8_t old_status);

/* The session's subjobs. */
const tph_subjobs *tph_subjobs_of(const tph_session *s);
/* The subjob of a task (JobInfo.TaskToSubJob), TPH_NOIDX when the task has no job. */
tph_idx tph_task_subjob(const tph_session *s, tph_idx task);
/* The subjobs of a job: *first and the count. */
uint32_t tph_job_subjobs(const tph_session *s, tph_idx job, tph_idx *first);
/* The job's default subjob (JobInfo.DefaultSubJobID: no policy took its tasks), or TPH_NOIDX
 * when it has none. */
tph_idx tph_job_default_subjob(const tph_session *s, tph_idx job);
/* JobInfo.ContainsSubJobPolicy: the podgroup declares at least one subGroupPolicy. */
bool tph_job_has_subjob_policy(const tph_session *s, tph_idx job);

/* SubJobInfo.UID. */
const char *tph_subjob_uid(const tph_session *s, tph_idx sj);
/* SubJobInfo.ReadyTaskNum (Allocated, Binding, Bound, Running, Succeeded). */
uint32_t tph_subjob_ready_num(const tph_session *s, tph_idx sj);
/* SubJobInfo.IsReady / IsPipelined (gang's SubJobReady / SubJobPipelined votes). */
bool tph_subjob_is_ready(const tph_session *s, tph_idx sj);
bool tph_subjob_is_pipelined(const tph_session *s, tph_idx sj);
/* SubJobInfo.AllocatedTaskNum. */
uint32_t tph_subjob_allocated_num(const tph_session *s, tph_idx sj);
/* SubJobInfo.GetMinResources: the requests of its Pending tasks summed into row[0..ndim), pods
 * left at 0 (Volcano's requests carry none). */
void tph_subjob_min_resources(const tph_session *s, tph_idx sj, int64_t *row);
/* JobInfo.CheckSubJobValid: every policy has at least minSubGroups subjobs. */
bool tph_job_subjobs_valid(const tph_session *s, tph_idx job);
/* JobInfo.CheckSubJobReady / CheckSubJobPipelined: every policy with minSubGroups > 0 has
 * that many ready (pipelined) subjobs. */
bool tph_job_subjobs_ready(const tph_session *s, tph_idx job);
bool tph_job_subjobs_pipelined(const tph_session *s, tph_idx job);

#endif
