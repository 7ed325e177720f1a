/* deviceshare plugin, private: the devices of the session (lib/devices.h's implementation) and
 * what each half of the plugin shares. deviceshare.c reads the arguments, registers the
 * predicate, the node order and the events; deviceshare_build.c reads cards from node
 * resources and annotations and each pod's ask from its limits and annotations (parsers in
 * deviceshare_parse.c); deviceshare_gpushare.c and deviceshare_vgpu.c are Volcano's
 * nvidia/gpushare and nvidia/vgpu devices (FilterNode, Allocate, Release, AddResource,
 * SubResource), the vGPU one wrapped by the exclusivity rules of gpuexclusive.go.
 *
 * Everything is written at open or by event handlers on the session's thread; predicate and
 * score callbacks only read it. */
#ifndef TPH_PLUGINS_DEVICESHARE_H
#define TPH_PLUGINS_DEVICESHARE_H

#include "lib/devices.h"

#define DS_NONE UINT32_MAX

enum {
	DS_POLICY_UNSET = 0, /* any other value of deviceshare.SchedulePolicy too */
	DS_POLICY_BINPACK,
	DS_POLICY_SPREAD
};

enum {
	DS_KIND_NONE = 0,
	DS_KIND_GPUSHARE,
	DS_KIND_VGPU
};

/* ---- deviceshare_parse.c: the annotation formats, as Volcano's Go reads them ---- */

/* A piece of a string (not NUL-terminated). */
typedef struct ds_str {
	const char *p;
	uint32_t n;
} ds_str;

/* One card of volcano.sh/node-vgpu-register (decodeNodeDevices). */
typedef struct ds_reg_card {
	ds_str uuid, type, mode;
	uint64_t number, memory; /* uint(strconv.Atoi(...)): 0 on error, wrapped when negative */
} ds_reg_card;

/* The cards of a register annotation into out[0..cap); returns how many there are (call with
 * cap 0 to count), or -1 when Volcano reads no device at all (no ':', or an entry with fewer
 * than 6 fields). */
int ds_parse_register(ds_str s, ds_reg_card *out, uint32_t cap);

/* One device of volcano.sh/vgpu-ids-new (DecodePodDevices): containers split by ';', devices
 * by ':'; a device needs 4 fields and memory and cores that strconv.ParseUint(_, 10, 32)
 * accepts, or it is skipped. */
typedef struct ds_cdev {
	ds_str uuid, type;
	uint64_t mem, cores;
} ds_cdev;
/* The devices into out[0..cap); returns how many there are (cap 0 counts). */
uint32_t ds_parse_ids(ds_str s, ds_cdev *out, uint32_t cap);

/* volcano.sh/gpu-index (GetGPUIndex): every comma-separated piece through strconv.Atoi; false
 * (Volcano's nil) when one does not parse. Ids into out[0..cap); *n how many there are. */
bool ds_parse_index(ds_str s, int64_t *out, uint32_t cap, uint32_t *n);
/* volcano.sh/gpu-unhealthy-ids (getUnhealthyGPUs): pieces that do not parse are skipped. */
uint32_t ds_parse_unhealthy(ds_str s, int64_t *out, uint32_t cap);
/* volcano.sh/vgpu-use-gpuuuid / -nouse-gpuuuid (parseGPUUUIDList): pieces trimmed of spaces,
 * empty ones dropped. */
uint32_t ds_parse_uuids(ds_str s, ds_str *out, uint32_t cap);
/* checkGPUtype over nvidia.com/use-gputype (`use`, NULL when absent) and
 * nvidia.com/nouse-gputype: substrings of the card type, ignoring case. */
bool ds_gpu_type_ok(const char *use, const char *nouse, ds_str card_type);
/* strconv.Atoi / ParseUint(_, 10, 32) of a piece. */
bool ds_atoi(ds_str s, int64_t *out);
bool ds_atou32(ds_str s, uint64_t *out);
bool ds_str_eq(ds_str a, ds_str b);
/* strings.Contains(hay, needle). */
bool ds_str_contains(ds_str hay, ds_str needle);

/* ---- session state ---- */

/* A card's holder: Volcano's PodMap entry (vGPU's GPUUsage; gpushare counts the pod's
 * volcano.sh/gpu-memory limit in `mem`). */
typedef struct ds_user {
	tph_idx task;
	uint64_t mem, core;
} ds_user;

/* One card. gpushare: id is its index (volcano.sh/gpu-index), memory its share of the node's
 * memory, used_mem what its holders' limits add up to. vGPU: GPUDevice. */
typedef struct ds_card {
	ds_str uuid, type; /* vGPU: texts in the node's annotation */
	uint32_t uuid_id;  /* vGPU: dense id among the session's card UUIDs (ds_st.uuids) */
	uint32_t type_id;  /* vGPU: dense id among the card types (ds_st.types) */
	int64_t id;        /* gpushare: card index */
	uint64_t number, memory;
	uint64_t used_num, used_mem, used_core; /* mutable */
	ds_user *users;                         /* mutable, heap (freed at close) */
	uint32_t n_users, cap_users;
} ds_card;

typedef struct ds_node {
	uint8_t kind;
	uint32_t first, n; /* cards[first .. first + n) */
	uint32_t *order;   /* vGPU: card positions in the order the search tries them */
	uint8_t *rsv;      /* vGPU with exclusivity rules: [rule * n + pos], card held by a rule */
	tph_reason_code r_mem, r_num; /* gpushare: GpuShare / GpuNumber reasons naming the node */
} ds_node;

/* What a task asks and holds. */
typedef struct ds_task {
	/* gpushare: its volcano.sh/gpu-memory (Value) and gpu-number limits, read whatever is
	 * enabled (AddResource does), and its volcano.sh/gpu-index */
	uint64_t gs_mem;
	int64_t gs_num;
	uint32_t gs_ids, gs_n_ids; /* into ds_st.ids; gs_ids DS_NONE: Volcano's nil */
	/* vGPU: the container request of ExtractResourceRequest, when `vg_ask` */
	bool vg_ask, mode_ok;
	int32_t vg_nums, vg_mem, vg_pct, vg_core;
	uint32_t spread; /* group key when the spread annotation asks, else DS_NONE */
	uint32_t group;  /* getPodGroupKey, DS_NONE: "" */
	uint32_t allow, n_allow, deny, n_deny; /* UUID filter lists: into ds_st.uuid_ids */
	const uint8_t *type_ok;                /* [type id] checkGPUtype, NULL: every type */
	uint32_t cdevs, n_cdevs;               /* its own volcano.sh/vgpu-ids-new: ds_st.cdevs */
	bool has_ids;                          /* the annotation is there (SubResource reads it) */
	/* the annotation values behind the above, compared between tasks of one shape */
	tph_sid a_mode, a_use, a_nouse, a_use_type, a_nouse_type;
	bool uniform;    /* every Pending task of its job, spec and request asks the same */
	bool relevant;   /* AddResource / SubResource can do anything for it */
	tph_idx held;    /* node where NodeInfo.AddTask added its devices, TPH_NOIDX */
	tph_idx at;      /* node of its last device allocation (a discard has lost it) */
	tph_idx tracked; /* node whose exclusivity wrapper tracks it (podRules), TPH_NOIDX */
} ds_task;

typedef struct ds_st {
	/* arguments */
	bool sharing, number, vgpu, node_lock, ascend_mc, ascend_hami;
	const char *policy_arg, *geo_name, *geo_ns;
	int64_t weight;
	int policy;
	/* devices */
	tph_devices *dev;
	uint8_t *asks;  /* [task] */
	ds_task *t;     /* [task] */
	ds_node *nodes; /* [node] */
	ds_card *cards;
	uint32_t n_cards;
	/* pools the tasks point into (heap, freed at close) */
	int64_t *ids; /* gpu-index */
	ds_cdev *cdevs;
	uint32_t *uuid_ids; /* filter UUIDs as card uuid ids (DS_NONE: no card has it) */
	uint32_t n_ids, cap_ids, n_cdevs, cap_cdevs, n_uuid_ids, cap_uuid_ids;
	tph_label *syn; /* group keys from scheduling.volcano.sh/group-name: (namespace, name) */
	uint32_t n_syn, cap_syn;
	ds_str *uuids, *types; /* distinct card UUIDs and types, sorted */
	uint32_t n_uuids, n_types;
	uint8_t *type_nvidia; /* [type] strings.Contains(type, "NVIDIA") */
	uint32_t empty_uuid;  /* uuid id of "", DS_NONE */
	/* exclusivity rules: rule r is (key, value) pairs rule_kv[rule_off[r] .. rule_off[r+1]) */
	uint32_t n_rules, rule_words;
	uint32_t *rule_off;
	tph_label *rule_kv;
	uint64_t *rules; /* [task * rule_words] the rules each task matches */
	tph_reason_code r_vgpu;
	/* session clock texts for the annotations */
	char now_s[24], now_ns[32];
} ds_st;

static inline const ds_card *ds_card_at(const ds_st *st, const ds_node *n, uint32_t pos)
{
	return &st->cards[n->first + pos];
}

static inline bool ds_rule_any(const ds_st *st, tph_idx t)
{
	for (uint32_t w = 0; st->n_rules && w < st->rule_words; w++)
		if (st->rules[(size_t)t * st->rule_words + w])
			return true;
	return false;
}

/* ---- deviceshare.c ---- */

/* NodeInfo.AddTask / RemoveTask of the task's own device annotations: it holds them on `want`
 * (TPH_NOIDX: nowhere) from now on. */
int ds_hold(ds_st *st, tph_idx task, tph_idx want);

/* ---- deviceshare_build.c ---- */

/* Read every node's cards and every task's ask and holdings; the holders' devices are added
 * (NodeInfo.AddTask at snapshot time) and the exclusivity reservations built. */
int ds_build(ds_st *st, tph_session *s);

/* ---- deviceshare_gpushare.c ---- */

/* FilterNode: TPH_PASS or the node's reason. */
tph_reason_code ds_gs_filter(const ds_st *st, const ds_node *n, const ds_task *t);
int ds_gs_allocate(ds_st *st, tph_session *s, tph_idx task, tph_idx node);
/* removePodFromDeviceMap: the task lets go of the cards its gpu-index lists (all of the
 * node's for Volcano's nil). */
void ds_gs_remove(ds_st *st, tph_idx task, tph_idx node);
/* AddResource of a pod with its own volcano.sh/gpu-index. */
int ds_gs_add(ds_st *st, tph_idx task, tph_idx node);

/* ---- deviceshare_vgpu.c ---- */

/* FilterNode (checkNodeGPUSharingPredicateAndScore on a copy): whether it fits, and the device
 * score the search adds up. */
bool ds_vg_filter(const ds_st *st, const ds_node *n, tph_idx task, double *score);
int ds_vg_allocate(ds_st *st, tph_session *s, tph_idx task, tph_idx node);
/* AddResource / SubResource of the pod's own volcano.sh/vgpu-ids-new, exclusivity wrapper
 * included. */
int ds_vg_add(ds_st *st, tph_idx task, tph_idx node);
void ds_vg_sub(ds_st *st, tph_idx task, tph_idx node);
/* The exclusivity wrapper's untrackPod. */
void ds_vg_untrack(ds_st *st, tph_idx task, tph_idx node);
/* The card of a UUID on a vGPU node (the exact match, else the lowest-index card whose UUID
 * the given one contains), DS_NONE. */
uint32_t ds_vg_card_of(const ds_st *st, const ds_node *n, ds_str uuid);
/* Sort the node's search order for the policy. */
void ds_vg_reorder(const ds_st *st, ds_node *n);
/* A holder entry: the user row of task on card c, created when `make`; NULL (out of memory,
 * or absent). */
ds_user *ds_user_of(ds_card *c, tph_idx task, bool make);
void ds_user_drop(ds_card *c, tph_idx task);

#endif
