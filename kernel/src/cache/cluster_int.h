/* Internal layout of the cluster cache: per-kind slot columns with tombstones, key maps that are
 * plain arrays indexed by interned string id, the resource dimension table, and the content-hash
 * tables that intern cold data into the cache's permanent arena. snapshot.c reads it. */
#ifndef TPH_CLUSTER_INTERNAL_H
#define TPH_CLUSTER_INTERNAL_H

#include "snap.h"

#include <stdatomic.h>

/* ---- slot stores ---- */

#define TPH_KIND_MAXCOLS 20

/* A column: `elem` bytes per slot, or per dimension when `rows` (a row of dims.n values). */
typedef struct tph_coldef {
	uint16_t elem;
	uint8_t rows;
} tph_coldef;

/* Columns of a kind that snapshots read in place instead of copying (cluster_share.c). The
 * cache writes them only after it has its own copy: a write to a slot below `n`, compaction,
 * growth and free first detach the kind from the set. */
typedef struct tph_colshare {
	/* Holders: the kind while its columns are these (host thread) and every snapshot over
	 * them, released on any thread; the last frees the columns and the set. */
	_Atomic uint32_t refs;
	uint32_t n;                  /* slots some snapshot reads; host thread only */
	void *col[TPH_KIND_MAXCOLS]; /* NULL: not shared */
} tph_colshare;

/* One kind of object (nodes, pods, ...). Slots are in insertion order; a removed object leaves
 * a tombstone (live == 0) until the store is compacted, which keeps order. Column 0 is the
 * live byte and column 1 the key sid of every kind. */
typedef struct tph_kind {
	const char *what; /* "pod", for messages */
	uint32_t n, cap;  /* slots used, slots allocated */
	uint32_t dead;    /* tombstones among the n slots */
	uint32_t ncols;
	const tph_coldef *defs;
	void *col[TPH_KIND_MAXCOLS];
	uint32_t *map; /* [key sid] slot + 1; 0: absent */
	uint32_t map_cap;
	tph_colshare *share; /* the set some of col[] belong to, or NULL: all are the kind's */
} tph_kind;

#define KCOL(k, i, T) ((T *)(k)->col[i])

enum {
	K_LIVE = 0,
	K_KEY = 1
};
enum {
	N_ALLOC = 2,
	N_CAPACITY,
	N_FLAGS,
	N_META,
	N_NCOLS
};
enum {
	P_NAME = 2,
	P_NS,
	P_UID,
	P_ROLE,
	P_NODE,      /* node name sid, TPH_SID_NONE: unbound */
	P_NOMINATED, /* node name sid or TPH_SID_NONE */
	P_PG,        /* "namespace/podgroup" sid or TPH_SID_NONE */
	P_PCLASS,    /* priority class name sid or TPH_SID_NONE */
	P_STATUS,    /* tph_task_status, derived at put */
	P_FLAGS,     /* TPH_TASK_* known at put, plus P_PRIO_FIXED */
	P_PRIO,      /* valid when P_PRIO_FIXED */
	P_CREATION,
	P_SPEC,
	P_META,
	P_REQ,
	P_NZ, /* int64[2]: kube's non-zero cpu and memory requests (tph_task_store.nonzero) */
	P_NCOLS
};
enum {
	G_NAME = 2,
	G_NS,
	G_UID,
	G_QUEUE,
	G_PCLASS,
	G_MIN_MEMBER,
	G_PHASE,
	G_HAS_MIN_RES,
	G_TOPO_MODE,
	G_TOPO_TIER,
	G_TOPO_TIER_NAME,
	G_CREATION,
	G_META,
	G_MIN_RES,
	G_MIN_MASK,
	G_NCOLS
};
enum {
	Q_WEIGHT = 2,
	Q_PARENT, /* sid or TPH_SID_NONE */
	Q_STATE,
	Q_RECLAIM,
	Q_PRIO,
	Q_CREATION,
	Q_META,
	Q_CAP,
	Q_DES,
	Q_GUA,
	Q_CAP_MASK,
	Q_DES_MASK,
	Q_GUA_MASK,
	Q_NCOLS
};
enum {
	C_VALUE = 2,
	C_GDEF,
	C_NEVER,
	C_NCOLS
};
enum {
	H_TIER = 2,
	H_TIER_NAME,
	H_MEMBERS,
	H_NMEMBERS,
	H_NCOLS
};
enum {
	R_NAME = 2,
	R_NS,
	R_HARD,
	R_HARD_MASK,
	R_USED,
	R_NCOLS
};
enum {
	D_NAME = 2,
	D_NS,
	D_ALLOWED,
	D_META,
	D_NCOLS
};

/* Pod flag bits beside the TPH_TASK_* ones: P_PRIO holds the priority (explicit or annotation);
 * the pod names a priority itself (pod.Spec.Priority is set even without a class). */
#define P_PRIO_FIXED 0x80u
#define P_PRIO_SPEC  0x40u
/* Another scheduler's pod: without a podgroup it has no job (tph_pod_desc.scheduler_name). */
#define P_FOREIGN 0x20u

/* ---- cold-data interning ---- */

typedef struct tph_blob_ent {
	uint64_t hash;
	const uint32_t *blob; /* canonical serialisation, in the permanent arena */
	uint32_t len;         /* words */
	const void *obj;
} tph_blob_ent;

typedef struct tph_blobtab {
	tph_blob_ent *ents; /* open addressing; obj == NULL: empty */
	uint32_t mask, n;
} tph_blobtab;

/* Volcano's scheduler-cache imageStates (cache.go): per image name, the size the first node
 * that brought it gave and how many live nodes hold it; a name whose count fell to 0 is gone
 * (removeNodeImageStates), and comes back with the next node's size. Slots are never freed:
 * they are bounded by the names ever interned. */
typedef struct tph_image_states {
	uint32_t *slot; /* [name sid] slot + 1; 0: never seen */
	uint32_t map_cap;
	int64_t *size;
	uint32_t *count;
	uint32_t n, cap;
} tph_image_states;

/* An exact sum of values in [0, 2^63): 2^32 rows of 2^53 units pass 64 bits. */
typedef struct tph_cl_sum {
	uint64_t lo, hi;
} tph_cl_sum;

/* Row columns whose sums are bounded: node allocatable and capacity, pod requests, podgroup
 * minResources, queue capability, deserved and guarantee, quota hard and used. */
#define TPH_CL_TOTAL_COLS 9

/* Every field belongs to the host thread that updates the cache (the cache is not thread-safe),
 * except `parked`, which tph_snapshot_release may touch from any thread, and `sample_start`. */
struct tph_cluster {
	/* Holders: the host (tph_cluster_destroy) and every snapshot not yet let go of; the last
	 * to let go frees the cache. Atomic: snapshots are released on any thread. */
	_Atomic uint32_t refs;
	tph_strtab strs;
	tph_arena perm; /* interned cold data; lives as long as the cache */
	tph_dims dims;
	tph_kind nodes, pods, pgs, queues, pclasses, hypernodes, quotas, pdbs;
	tph_sid gdef; /* key of the globalDefault class Volcano would use, or NONE */
	uint8_t shard_mode;
	tph_sid shard_name;
	tph_sid *shard_nodes;
	uint32_t n_shard_nodes;
	tph_blobtab blobs;
	uint32_t *uid_owner; /* pod uid id -> key id + 1 of the pod holding it (0: none) */
	uint32_t uid_cap;
	uint32_t n_specs; /* pod spec ids handed out */
	uint32_t *words;  /* scratch serialisation buffer */
	uint32_t nwords, words_cap;
	char *chars; /* scratch for composed keys */
	uint32_t chars_cap;
	tph_sid sid_root, sid_default, sid_task_spec, sid_group_name, sid_preemptable,
	    sid_task_prio;
	uint32_t *dense; /* snapshot scratch: slot -> dense index */
	uint32_t dense_cap;
	int64_t *acc; /* snapshot scratch: resources held per node, rows [i * ndim + d] */
	uint32_t acc_cap;
	const tph_pod_spec *empty_spec;
	const tph_pod_meta *empty_pod_meta;
	const tph_job_meta *empty_job_meta; /* for pods that are their own job */
	/* One released snapshot kept for its arena, whose pages are then already mapped.
	 * Atomic because a snapshot may be released from another thread than the host's. */
	_Atomic(tph_snapshot *) parked;
	tph_image_states images;
	uint8_t sampling; /* tph_node_sampling; CACHE: full */
	/* Per bounded row column (cluster_totals.c) and dimension, the sum over live objects,
	 * kept by every put and remove so that a snapshot need not sum the cache again. */
	tph_cl_sum totals[TPH_CL_TOTAL_COLS][TPH_RES_MAX];
	/* Volcano's lastProcessedNodeIndex as the last VOLCANO-sampling session closed over a
	 * snapshot of this cache left it; sessions close on any thread. */
	_Atomic uint32_t sample_start;
};

/* ---- slot stores (cluster_store.c) ---- */

void tph_kind_init(tph_kind *k, const char *what, const tph_coldef *defs, uint32_t ncols);
void tph_kind_free(tph_kind *k);
/* The slot of `key`, or TPH_NOIDX (TPH_SID_NONE is never a key). */
static inline uint32_t tph_kind_find(const tph_kind *k, tph_sid key)
{
	return key < k->map_cap && k->map[key] ? k->map[key] - 1 : TPH_NOIDX;
}
/* Make room for `key`: its slot (existing, or the next free one, compacting or growing the
 * store) goes to *slot and *fresh says whether it is new. Nothing visible changes. */
int tph_kind_reserve(tph_cluster *c, tph_kind *k, tph_sid key, uint32_t *slot, bool *fresh);
/* Grow a map indexed by string id (zeroed entries) so that `key` fits. */
int tph_cl_grow_map(uint32_t **map, uint32_t *cap, tph_sid key);
/* Publish a reserved slot; cannot fail (the reservation detached a shared slot). */
void tph_kind_commit(tph_kind *k, tph_sid key, uint32_t slot, bool fresh);
int tph_kind_remove(tph_kind *k, tph_sid key);
/* Squeeze tombstones out, keeping order; ENOMEM only when the columns are shared with a
 * snapshot and cannot be copied (then nothing changes). */
int tph_kind_compact(tph_cluster *c, tph_kind *k);
/* Bytes one slot takes in column `col` (rows are dims.n wide). */
size_t tph_kind_col_size(const tph_cluster *c, const tph_kind *k, uint32_t col);
/* A pointer to column `col` at `slot` (rows are dims.n wide). */
void *tph_kind_at(const tph_cluster *c, const tph_kind *k, uint32_t col, uint32_t slot);

/* ---- columns shared with snapshots (cluster_share.c) ---- */

/* Whether a write to `slot` of k's columns would change what a snapshot reads. */
static inline bool tph_kind_shared_at(const tph_kind *k, uint32_t slot)
{
	return k->share && slot < k->share->n;
}
/* Give the kind columns of its own before a write a snapshot could see, with room for `cap`
 * slots (at least k->cap): a copy of the shared ones, unless no snapshot holds the set any
 * more. ENOMEM leaves everything as it was. */
int tph_kind_detach(tph_cluster *c, tph_kind *k, uint32_t cap);
/* The set of the pod columns a session never writes, for a snapshot to read in place; NULL
 * when out of memory (the snapshot copies them then). The snapshot holds it with
 * tph_colshare_hold once it uses the columns. */
tph_colshare *tph_pods_share(tph_cluster *c);
/* One more holder of `sh`, which reads slots below `n`. */
void tph_colshare_hold(tph_colshare *sh, uint32_t n);
/* Let go of `sh` (NULL: nothing); the last holder frees its columns. Safe from any thread. */
void tph_colshare_drop(tph_colshare *sh);

/* ---- resource dimensions (cluster_store.c) ---- */

/* A resource list mapped onto dimension indices (new names included). */
typedef struct tph_rlist {
	uint32_t n;
	uint8_t dim[TPH_RES_MAX];
	int64_t val[TPH_RES_MAX];
} tph_rlist;

/* Dimension names one put would add, in order of first appearance. */
typedef struct tph_dimplan {
	uint32_t n;
	tph_sid name[TPH_RES_MAX];
} tph_dimplan;

int tph_res_prepare(tph_cluster *c, const tph_res_list *l, tph_dimplan *plan, tph_rlist *out,
                    tph_diag *d, const char *obj, const char *field);
/* Add the planned dimensions, relaying out every row column; all or nothing. */
int tph_dims_commit(tph_cluster *c, const tph_dimplan *plan);
/* Write `r` into a zeroed row of dims.n values; returns the mask of dimensions given. */
tph_dimmask tph_res_write(const tph_cluster *c, const tph_rlist *r, int64_t *row);

/* Reserve the slot of `key`, then add the planned dimensions (plan may be NULL): the last
 * steps of a put that can fail. ENOMEM is reported against `obj`. */
int tph_cl_reserve(tph_cluster *c, tph_kind *k, tph_sid key, const tph_dimplan *plan,
                   uint32_t *slot, bool *fresh, tph_diag *d, const char *obj);

/* ---- strings ---- */

static inline bool tph_empty(const char *s)
{
	return !s || !s[0];
}

/* Intern `s` (NULL: TPH_SID_NONE). ENOMEM through *err. */
tph_sid tph_cl_intern(tph_cluster *c, const char *s, int *err);
/* Intern "a<sep>b". */
tph_sid tph_cl_intern2(tph_cluster *c, const char *a, char sep, const char *b, int *err);
/* tph_strtab_prefetch for a string about to be interned (NULL: nothing), and for the new
 * strings of a pod about to be put. */
void tph_cl_prefetch(const tph_cluster *c, const char *s);
void tph_cl_prefetch_pod(const tph_cluster *c, const tph_pod_desc *p);
/* Room for about `more` new strings, so a bulk load does not rehash the table on its way. */
int tph_cl_reserve_strings(tph_cluster *c, uint32_t more);
/* Set `d` and return status for an OOM, naming the object. */
int tph_cl_oom(tph_diag *d, const char *obj);
/* The start of every put: empty the diag's message, then TPH_OK for a cache and a descriptor
 * whose `size` is its type's, as its INIT macro sets it (cluster.h); else EINVAL with a message
 * naming the macro. */
int tph_cl_put_begin(const tph_cluster *c, bool given, uint32_t size, size_t want, const char *type,
                     const char *macro, tph_diag *d);
#define TPH_CL_PUT_BEGIN(c, p, type, macro, d) \
	tph_cl_put_begin((c), (p) != NULL, (p) ? (p)->size : 0, sizeof(type), #type, #macro, (d))

/* An object as messages name it, "<kind> <ns>/<name>" or "<kind> <name>", into obj[cap], the
 * names cut to a bounded length (base/msg_text.h); `ns` NULL: cluster-scoped. */
void tph_cl_obj(char *obj, size_t cap, const char *kind, const char *ns, const char *name);

/* ---- cluster-wide totals (cluster_totals.c) ---- */

/* Where tph_cl_check_totals found a sum too large: the kind and slot of the object at which
 * the running sum passed the bound. */
typedef struct tph_cl_total_at {
	const tph_kind *kind;
	uint32_t slot;
} tph_cl_total_at;

/* TPH_OK when, for every resource, the rows of each kind (node allocatable and capacity, pod
 * requests, podgroup minResources, queue capability, deserved and guarantee, quota hard and
 * used) sum to at most TPH_RES_TOTAL_MAX; else TPH_ERANGE naming the object and field at which
 * the sum passes it, and `at` (may be NULL) says where. */
int tph_cl_check_totals(const tph_cluster *c, tph_cl_total_at *at, tph_diag *d);
/* Add (sign 1) or take away (sign -1) the rows of `slot` of kind `k` in c->totals: a put takes
 * away an object's old rows before writing its new ones and adds them after, a remove takes
 * them away. Kinds without bounded rows are left alone. */
void tph_cl_totals_move(tph_cluster *c, const tph_kind *k, uint32_t slot, int sign);

/* ---- cold data: canonical blobs (cluster_intern.c) ---- */

/* Writes a descriptor part as words into c->words, validating and interning as it goes; the
 * first error (EINVAL with a message naming obj and field, or ENOMEM) sticks in `err`. */
typedef struct tph_wr {
	tph_cluster *c;
	tph_diag *d;
	const char *obj;
	int err;
} tph_wr;

enum {
	TPH_B_SPEC = 1,
	TPH_B_POD_META,
	TPH_B_NODE_META,
	TPH_B_JOB_META,
	TPH_B_QUEUE_META,
	TPH_B_MEMBERS,
	TPH_B_PDB_META
};

void tph_w_begin(tph_wr *w, tph_cluster *c, uint32_t tag, const char *obj, tph_diag *d);
void tph_w_u32(tph_wr *w, uint32_t v);
void tph_w_i64(tph_wr *w, int64_t v);
void tph_w_str(tph_wr *w, const char *s); /* NULL: "" */
void tph_w_fail(tph_wr *w, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void tph_w_labels(tph_wr *w, tph_kv_list l, const char *field); /* sorted by key id */
/* Sort the `n` records of `width` words written from word `start` on by their first word (a
 * string id), failing `field` with `<what> "<string>" given twice` when two share it. */
void tph_w_sort_unique(tph_wr *w, uint32_t start, uint32_t n, uint32_t width, const char *field,
                       const char *what);
void tph_w_strs(tph_wr *w, tph_str_list l, const char *field);
void tph_w_term(tph_wr *w, const tph_sel_term *t, const char *field);
void tph_w_selector(tph_wr *w, const tph_label_selector *s, const char *field);

/* Reads words back into rows allocated in the permanent arena; ENOMEM sticks in `err`. */
typedef struct tph_rd {
	const uint32_t *p;
	tph_arena *a;
	const tph_strtab *strs;
	int err;
} tph_rd;

uint32_t tph_r_u32(tph_rd *r);
int64_t tph_r_i64(tph_rd *r);
void *tph_r_new(tph_rd *r, uint32_t n, size_t size); /* zeroed; NULL when n == 0 */
tph_sid *tph_r_sids(tph_rd *r, uint32_t n);
tph_labels tph_r_labels(tph_rd *r);
tph_term_row tph_r_term(tph_rd *r);
tph_selector_row tph_r_selector(tph_rd *r);

typedef void *(*tph_build_fn)(tph_rd *r);
/* Look the written blob up; build and insert it when new (*fresh, if given, then points at the
 * new object so the caller can number it). */
int tph_w_finish(tph_wr *w, tph_build_fn build, const void **out, void **fresh);

int tph_blobs_init(tph_cluster *c);
void tph_blobs_free(tph_cluster *c);

/* ---- cold data: the parts (cluster_spec.c) ---- */

int tph_intern_pod_spec(tph_cluster *c, const tph_pod_desc *p, const char *obj,
                        const tph_pod_spec **out, tph_diag *d);
int tph_intern_pod_meta(tph_cluster *c, const tph_pod_desc *p, const char *obj,
                        const tph_pod_meta **out, tph_diag *d);
/* The node's meta, with its images summarised against the cache's image states as they will be
 * once `old` (the meta the node is put over, or NULL) gives way to it; nothing changes in the
 * cache (tph_images_commit does, once the put cannot fail). */
int tph_intern_node_meta(tph_cluster *c, const tph_node_desc *n, const tph_node_meta *old,
                         const char *obj, const tph_node_meta **out, tph_diag *d);
int tph_intern_job_meta(tph_cluster *c, const tph_podgroup_desc *g, const char *obj,
                        const tph_job_meta **out, tph_diag *d);
int tph_intern_queue_meta(tph_cluster *c, const tph_queue_desc *q, const char *obj,
                          const tph_queue_meta **out, tph_diag *d);
int tph_intern_members(tph_cluster *c, const tph_hypernode_desc *h, const char *obj,
                       const tph_hn_member_row **out, tph_diag *d);
/* A node's Numatopology in its meta blob (cluster_numa.c): written after the usage, validated;
 * read back (NULL when the node has none). */
void tph_w_node_numa(tph_wr *w, const tph_node_numa *n);
const tph_node_numa_row *tph_r_node_numa(tph_rd *r);
/* Volcano's reading of a Numatopology cpuset (k8s.io/utils/cpuset.Parse): "" is empty, else
 * comma-separated elements "N" or "N-M" (N <= M), each number strconv.Atoi's (decimal, an
 * optional '+') and below TPH_CPUSET_MAX. Calls each(ud, lo, hi) per element when `each` is not
 * NULL; on error returns TPH_EINVAL with *why set to a static reason. */
typedef void (*tph_cpuset_fn)(void *ud, int32_t lo, int32_t hi);
int tph_cpuset_parse(const char *s, tph_cpuset_fn each, void *ud, const char **why);
/* The value of `key` in a kv list, or NULL. */
const char *tph_kv_find(tph_kv_list l, const char *key);

/* ---- node image states (cluster_images.c) ---- */

/* Room for every name of `n` in the image states (the only step of a node put's image work that
 * can fail), and the summary one name would get once `old` gives way: its size and node count. */
int tph_images_reserve(tph_cluster *c, const tph_node_desc *n);
void tph_images_summary(const tph_cluster *c, tph_sid name, int64_t size, const tph_node_meta *old,
                        int64_t *size_out, uint32_t *count_out);
/* A node's put went through over `old` with `fresh` (either may be NULL): move the counts. */
void tph_images_commit(tph_cluster *c, const tph_node_meta *old, const tph_node_meta *fresh);
void tph_images_free(tph_cluster *c);

/* ---- pod requests (cluster_pod_req.c) ---- */

/* The task's request row from the pod's requests, init containers and overhead (Volcano's
 * GetPodResourceRequest, the pods unit aside), over `plan`'s dimensions; and kube-scheduler's
 * non-zero cpu and memory requests. EINVAL or ERANGE with `d` set on a bad list. */
typedef struct tph_pod_req {
	tph_rlist row; /* one entry per dimension given anywhere */
	int64_t nonzero[2];
} tph_pod_req;
int tph_pod_req_prepare(tph_cluster *c, const tph_pod_desc *p, tph_dimplan *plan, tph_pod_req *out,
                        tph_diag *d, const char *obj);

/* ---- snapshot internals (snapshot.c, snapshot_tasks.c) ---- */

/* Slot -> dense index maps, in cache-owned scratch reused across snapshots. */
typedef struct tph_snap_maps {
	uint32_t *node;  /* node slot -> dense index */
	uint32_t *queue; /* queue slot -> dense index */
	uint32_t *job;   /* podgroup slot -> job index, TPH_NOIDX when left out */
	uint32_t *runs;  /* runs of live pod slots: start, length */
	uint32_t nruns;
	int64_t *acc;     /* zeroed rows [node * ndim + d]: what the node\'s tasks hold */
	uint32_t qdef;    /* dense index of queue "default", or TPH_NOIDX */
	uint32_t pg_jobs; /* jobs from podgroups; pods that are their own job follow */
} tph_snap_maps;

/* The globalDefault class's value, or `fallback` (Volcano: 0 for jobs, 1 for pods). */
int32_t tph_snap_default_prio(const tph_cluster *c, int32_t fallback);
/* The value of the class named `name`, or `dflt` when there is none. */
int32_t tph_snap_class_prio(const tph_cluster *c, tph_sid name, int32_t dflt);
/* each(ud, i) for every i < n: with `team`, on the team the governor admits (base/omp_team.h),
 * which then hears whether the team beat one thread; else on the caller's thread. The
 * snapshot's regions come before any session's, and a loaded machine makes a team wait on its
 * slowest thread as much here as there. Results never depend on the team. */
void tph_snap_parallel(int n, bool team, void (*each)(void *ud, int i), void *ud);
/* Copy the task columns and run the derivation pass; jobs of podgroups are already filled. */
void tph_snap_tasks(const tph_cluster *c, tph_snapshot *s, const tph_snap_maps *m, tph_diag *d);
/* Free a snapshot and its arena (also the parked one, when the cache is freed). */
void tph_snap_free(tph_snapshot *s);
/* Let go of one hold on the cache (cluster.c); the last frees it. */
void tph_cluster_unhold(tph_cluster *c);

#endif
