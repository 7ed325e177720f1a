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
#include "tephra/topology.h"

typedef struct tph_session tph_session;

/* Build the partition (subjob.c; tph_topo_open calls it). */
int tph_subjobs_build(tph_session *s, tph_subjobs *out);
/* The hook's part: a task moved from old_status and old_node to its current status and node
 * (the status counts, and the move counter when the node changed). */
void tph_subjobs_task_moved(tph_session *s, tph_idx task, uint8_t old_status, tph_idx old_node);

#endif
