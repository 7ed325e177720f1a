/* The snapshot layout: dense struct-of-arrays stores for nodes, tasks, jobs and queues, plus
 * interned cold data (labels, taints, pod scheduling specs) shared with the cluster cache.
 *
 * Index spaces are dense (0..n-1) and follow the cache's insertion order, which is the
 * snapshot order that breaks ties. Columns marked "mutable" are copied into each session's
 * arena when it opens; the snapshot itself is never written after it is built. */
#ifndef TPH_SNAP_H
#define TPH_SNAP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/strtab.h"
#include "tephra/args.h" /* tph_parse_int */
#include "tephra/columns.h"
#include "tephra/cluster.h"

struct tph_snapshot {
	/* Holders: the host (tph_snapshot_release) and each session over it (tph_snapshot_hold);
	 * the last to let go parks or frees it. Atomic: sessions end on any thread. */
	_Atomic uint32_t refs;
	tph_arena arena; /* owns every column below */
	const tph_strtab *strs;
	tph_time now;
	tph_dims dims;
	tph_node_store nodes;
	tph_task_store tasks;
	tph_job_store jobs;
	tph_queue_store queues;
	tph_pclass_store pclasses;
	tph_hypernode_store hypernodes;
	tph_quota_store quotas;
	tph_pdb_store pdbs;
	uint8_t shard_mode; /* tph_shard_mode */
	tph_sid shard_name;
	uint32_t n_specs; /* every tasks.spec[t]->id is below this (ids are dense per cache) */
	/* Podgroup of each job, by its key in the cache ("namespace/name"); TPH_SID_NONE for the
	 * job of a pod without one. tph_cluster_apply writes phases back through it. */
	tph_sid *job_pg;
	/* The cache it came from, held until the snapshot is let go of; a released snapshot is
	 * parked there so that its arena is reused. */
	tph_cluster *cache;
	/* The cache's pod columns the task columns read in place (cluster_share.c), held until
	 * the snapshot is let go of; NULL: every column is in the arena. */
	struct tph_colshare *pod_share;
	size_t shared_bytes; /* what the task columns read there */
};

/* One more holder of `s` (a session), let go of with tph_snapshot_release. */
void tph_snapshot_hold(const tph_snapshot *s);

#endif
