"""The C API through ctypes: finding libtephra, the structs of tephra/*.h and the prototypes.

Layouts follow kernel/include/tephra/cluster.h and session.h field for field; a descriptor whose
`size` is not the library's sizeof is refused by every put, so a layout that drifts from the
headers fails loudly (the tests put every kind)."""

import ctypes
import ctypes.util
import os
from ctypes import (POINTER, Structure, c_bool, c_char, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_size_t, c_uint32, c_uint, c_void_p)

SONAME = "libtephra.so.0"


def library_path(environ=os.environ, start=os.path.dirname(os.path.abspath(__file__))):
    """Where libtephra is: $TEPHRA_LIBRARY, else the build/lib of the source tree this package
    sits in (bindings/python/src/tephra -> build/lib), else the system's (find_library)."""
    if environ.get("TEPHRA_LIBRARY"):
        return environ["TEPHRA_LIBRARY"]
    d = start
    for _ in range(6):
        candidate = os.path.join(d, "build", "lib", SONAME)
        if os.path.exists(candidate):
            return candidate
        d = os.path.dirname(d)
    return ctypes.util.find_library("tephra") or SONAME


tph_time = c_int64
WARN_FN = ctypes.CFUNCTYPE(None, c_void_p, c_char_p)


class Diag(Structure):
    _fields_ = [("msg", c_char * 1024), ("warn", WARN_FN), ("warn_ud", c_void_p),
                ("warnings", c_uint)]


def _struct(name, fields, init=None):
    """A ctypes struct; `init` are the non-zero defaults of its INIT macro, `size` set when it
    has one."""
    cls = type(name, (Structure,), {"_fields_": fields})
    defaults = dict(init or {})

    def new(cls_):
        v = cls_()
        if any(f[0] == "size" for f in cls_._fields_):
            v.size = ctypes.sizeof(cls_)
        for k, val in defaults.items():
            setattr(v, k, val)
        return v

    cls.init = classmethod(new)
    return cls


KV = _struct("KV", [("key", c_char_p), ("value", c_char_p)])
ResItem = _struct("ResItem", [("name", c_char_p), ("value", c_int64)])
ResList = _struct("ResList", [("items", POINTER(ResItem)), ("n", c_uint32)])
KVList = _struct("KVList", [("items", POINTER(KV)), ("n", c_uint32)])
StrList = _struct("StrList", [("items", POINTER(c_char_p)), ("n", c_uint32)])
Taint = _struct("Taint", [("key", c_char_p), ("value", c_char_p), ("effect", c_int)])
Toleration = _struct("Toleration", [("key", c_char_p), ("op", c_int), ("value", c_char_p),
                                    ("effect", c_int)])
SelExpr = _struct("SelExpr", [("key", c_char_p), ("op", c_int), ("values", StrList)])
SelTerm = _struct("SelTerm", [("exprs", POINTER(SelExpr)), ("n", c_uint32)])
PrefTerm = _struct("PrefTerm", [("weight", c_int32), ("term", SelTerm)])
LabelSelector = _struct("LabelSelector", [("present", c_bool), ("match_labels", KVList),
                                          ("match_exprs", SelTerm)])
PodAffinityTerm = _struct("PodAffinityTerm", [
    ("selector", LabelSelector), ("namespaces", StrList), ("topology_key", c_char_p),
    ("weight", c_int32)])
Affinity = _struct("Affinity", [
    ("node_required", POINTER(SelTerm)), ("n_node_required", c_uint32),
    ("node_preferred", POINTER(PrefTerm)), ("n_node_preferred", c_uint32),
    ("pod_required", POINTER(PodAffinityTerm)), ("n_pod_required", c_uint32),
    ("pod_preferred", POINTER(PodAffinityTerm)), ("n_pod_preferred", c_uint32),
    ("anti_required", POINTER(PodAffinityTerm)), ("n_anti_required", c_uint32),
    ("anti_preferred", POINTER(PodAffinityTerm)), ("n_anti_preferred", c_uint32)])
SpreadConstraint = _struct("SpreadConstraint", [
    ("max_skew", c_int32), ("topology_key", c_char_p), ("do_not_schedule", c_bool),
    ("selector", LabelSelector), ("min_domains", c_int32)])
NetTopology = _struct("NetTopology", [("mode", c_int), ("highest_tier", c_int32),
                                      ("highest_tier_name", c_char_p)],
                      init={"highest_tier": -1})  # TPH_NET_TOPOLOGY_INIT
NodeUsage = _struct("NodeUsage", [("present", c_bool), ("period_s", c_int64),
                                  ("cpu_pct", c_double), ("mem_pct", c_double),
                                  ("metrics_time", tph_time)])
NodeDesc = _struct("NodeDesc", [
    ("size", c_uint32), ("name", c_char_p), ("allocatable", ResList), ("capacity", ResList),
    ("labels", KVList), ("annotations", KVList), ("taints", POINTER(Taint)),
    ("n_taints", c_uint32), ("unschedulable", c_bool), ("not_ready", c_bool),
    ("usage", NodeUsage), ("numa", c_void_p),  # numa, images: not carried by the binding
    ("images", c_void_p), ("n_images", c_uint32)])
PodCondition = _struct("PodCondition", [
    ("type", c_char_p), ("status", c_int), ("last_transition", tph_time),
    ("last_probe", tph_time), ("reason", c_char_p), ("message", c_char_p)])
PodDesc = _struct("PodDesc", [
    ("size", c_uint32), ("name", c_char_p), ("namespace_", c_char_p), ("pod_group", c_char_p),
    ("phase", c_int), ("node_name", c_char_p), ("requests", ResList), ("task_spec", c_char_p),
    ("labels", KVList), ("annotations", KVList), ("node_selector", KVList),
    ("tolerations", POINTER(Toleration)), ("n_tolerations", c_uint32),
    ("affinity", POINTER(Affinity)), ("spread", POINTER(SpreadConstraint)),
    ("n_spread", c_uint32), ("has_priority", c_bool), ("priority", c_int32),
    ("priority_class", c_char_p), ("preempt_never", c_bool), ("preemptable", c_int),
    ("nominated_node", c_char_p), ("deleting", c_bool), ("creation", tph_time),
    ("uid", c_char_p), ("limits", ResList), ("conditions", POINTER(PodCondition)),
    ("n_conditions", c_uint32),
    # init containers, overhead, images and host ports: not carried by the binding (none)
    ("init_containers", c_void_p), ("n_init_containers", c_uint32), ("overhead", ResList),
    ("images", StrList), ("host_ports", c_void_p), ("n_host_ports", c_uint32),
    ("scheduler_name", c_char_p)])
MinTask = _struct("MinTask", [("task_spec", c_char_p), ("min", c_int32)])
SubgroupPolicy = _struct("SubgroupPolicy", [
    ("name", c_char_p), ("subgroup_size", c_int32), ("min_subgroups", c_int32),
    ("match_label_keys", StrList), ("selector", LabelSelector), ("topology", NetTopology)],
    init={"subgroup_size": 1})  # TPH_SUBGROUP_POLICY_INIT (its topology: set by the caller)
PodGroupDesc = _struct("PodGroupDesc", [
    ("size", c_uint32), ("name", c_char_p), ("namespace_", c_char_p), ("queue", c_char_p),
    ("min_member", c_int32), ("min_tasks", POINTER(MinTask)), ("n_min_tasks", c_uint32),
    ("min_resources", ResList), ("has_min_resources", c_bool), ("phase", c_int),
    ("priority_class", c_char_p), ("creation", tph_time), ("annotations", KVList),
    ("uid", c_char_p), ("topology", NetTopology), ("subgroups", POINTER(SubgroupPolicy)),
    ("n_subgroups", c_uint32)], init={"min_member": 1})
QueueDesc = _struct("QueueDesc", [
    ("size", c_uint32), ("name", c_char_p), ("weight", c_int32), ("capability", ResList),
    ("deserved", ResList), ("guarantee", ResList), ("not_reclaimable", c_bool),
    ("state", c_int), ("parent", c_char_p), ("priority", c_int32), ("creation", tph_time),
    ("annotations", KVList), ("affinity_required", StrList), ("affinity_preferred", StrList),
    ("anti_affinity_required", StrList), ("anti_affinity_preferred", StrList),
    ("has_affinity", c_bool)], init={"weight": 1})
PriorityClassDesc = _struct("PriorityClassDesc", [
    ("size", c_uint32), ("name", c_char_p), ("value", c_int32), ("global_default", c_bool),
    ("preempt_never", c_bool)])
HyperNodeMember = _struct("HyperNodeMember", [("kind", c_int), ("name_or_regex", c_char_p),
                                              ("labels", KVList)])
HyperNodeDesc = _struct("HyperNodeDesc", [
    ("size", c_uint32), ("name", c_char_p), ("tier", c_int32), ("tier_name", c_char_p),
    ("members", POINTER(HyperNodeMember)), ("n_members", c_uint32)])
QuotaDesc = _struct("QuotaDesc", [("size", c_uint32), ("name", c_char_p),
                                  ("namespace_", c_char_p), ("hard", ResList),
                                  ("used", ResList)])
IntOrPercent = _struct("IntOrPercent", [("present", c_bool), ("percent", c_bool),
                                        ("value", c_int32)])
DisruptedPod = _struct("DisruptedPod", [("pod", c_char_p), ("time", tph_time)])
PdbDesc = _struct("PdbDesc", [
    ("size", c_uint32), ("name", c_char_p), ("namespace_", c_char_p),
    ("selector", LabelSelector), ("min_available", IntOrPercent),
    ("max_unavailable", IntOrPercent), ("disruptions_allowed", c_int32),
    ("disrupted_pods", POINTER(DisruptedPod)), ("n_disrupted_pods", c_uint32)])
SessionOpts = _struct("SessionOpts", [("threads", c_int), ("naive", c_bool),
                                      ("plugin_dir", c_char_p), ("profile", c_bool),
                                      ("shape_cache_bytes", c_size_t)])
DecisionRow = _struct("DecisionRow", [("pod", c_char_p), ("node", c_char_p),
                                      ("reason", c_char_p), ("annotations", KVList)])
PhaseRow = _struct("PhaseRow", [("podgroup", c_char_p), ("phase", c_char_p)])
PendingRow = _struct("PendingRow", [("pod", c_char_p), ("reasons", POINTER(c_char_p)),
                                    ("n_reasons", c_uint32)])
ActionTime = _struct("ActionTime", [("action", c_char_p), ("ms", c_double)])
WHY_COUNT = 8  # TPH_WHY_COUNT
JobRow = _struct("JobRow", [
    ("podgroup", c_char_p), ("queue", c_char_p), ("why", c_int), ("plugin", c_char_p),
    ("message", c_char_p), ("min_member", c_int32), ("tasks", c_uint32), ("ready", c_uint32),
    ("placeable", c_uint32), ("pending", c_uint32), ("unfit", c_uint32),
    ("cond_type", c_char_p), ("cond_reason", c_char_p), ("cond_message", c_char_p)])
_I64P = POINTER(c_int64)
QueueRow = _struct("QueueRow", [
    ("name", c_char_p), ("state", c_char_p), ("weight", c_int32), ("allocated", _I64P),
    ("deserved", _I64P), ("request", _I64P), ("inqueue", _I64P), ("capability", _I64P),
    ("guarantee", _I64P), ("share", c_double), ("reported_by", c_char_p),
    ("podgroups", c_uint32 * 5), ("jobs_pending", c_uint32), ("by_why", c_uint32 * WHY_COUNT), ("summary", c_char_p)])
DecisionLog = _struct("DecisionLog", [
    ("binds", POINTER(DecisionRow)), ("n_binds", c_uint32),
    ("evictions", POINTER(DecisionRow)), ("n_evictions", c_uint32),
    ("pipelined", POINTER(DecisionRow)), ("n_pipelined", c_uint32),
    ("phases", POINTER(PhaseRow)), ("n_phases", c_uint32),
    ("pending", POINTER(PendingRow)), ("n_pending", c_uint32),
    ("actions", POINTER(ActionTime)), ("n_actions", c_uint32),
    ("open_ms", c_double), ("close_ms", c_double), ("jobs_total", c_uint32),
    ("jobs_ready", c_uint32),
    ("jobs", POINTER(JobRow)), ("n_jobs", c_uint32),
    ("queues", POINTER(QueueRow)), ("n_queues", c_uint32),
    ("dims", POINTER(c_char_p)), ("dim_units", POINTER(ctypes.c_uint8)), ("n_dims", c_uint32)])

# Volcano's built-in conf: TPH_CONF_VOLCANO_DEFAULT of tephra/conf.h.
VOLCANO_DEFAULT_CONF = (b'actions: "enqueue, allocate, backfill"\n'
                        b"tiers:\n"
                        b"- plugins:\n"
                        b"  - name: priority\n"
                        b"  - name: gang\n"
                        b"  - name: conformance\n"
                        b"- plugins:\n"
                        b"  - name: overcommit\n"
                        b"  - name: drf\n"
                        b"  - name: predicates\n"
                        b"  - name: proportion\n"
                        b"  - name: nodeorder\n")

_D = POINTER(Diag)
_P = c_void_p  # an opaque handle
_PROTOTYPES = {
    "tph_version": (c_int, []),
    "tph_version_string": (c_char_p, []),
    "tph_strerror": (c_char_p, [c_int]),
    "tph_errname": (c_char_p, [c_int]),
    "tph_warn_silent": (None, [c_void_p, c_char_p]),
    "tph_cluster_create": (c_int, [POINTER(_P)]),
    "tph_cluster_destroy": (None, [_P]),
    "tph_cluster_put_node": (c_int, [_P, POINTER(NodeDesc), _D]),
    "tph_cluster_put_pod": (c_int, [_P, POINTER(PodDesc), _D]),
    "tph_cluster_put_podgroup": (c_int, [_P, POINTER(PodGroupDesc), _D]),
    "tph_cluster_put_queue": (c_int, [_P, POINTER(QueueDesc), _D]),
    "tph_cluster_put_priority_class": (c_int, [_P, POINTER(PriorityClassDesc), _D]),
    "tph_cluster_put_hypernode": (c_int, [_P, POINTER(HyperNodeDesc), _D]),
    "tph_cluster_put_quota": (c_int, [_P, POINTER(QuotaDesc), _D]),
    "tph_cluster_put_pdb": (c_int, [_P, POINTER(PdbDesc), _D]),
    "tph_cluster_remove_node": (c_int, [_P, c_char_p, _D]),
    "tph_cluster_remove_pod": (c_int, [_P, c_char_p, c_char_p, _D]),
    "tph_cluster_remove_podgroup": (c_int, [_P, c_char_p, c_char_p, _D]),
    "tph_cluster_remove_queue": (c_int, [_P, c_char_p, _D]),
    "tph_cluster_remove_pdb": (c_int, [_P, c_char_p, c_char_p, _D]),
    "tph_cluster_set_shard": (c_int, [_P, c_int, c_char_p, StrList, _D]),
    "tph_cluster_node_count": (c_uint32, [_P]),
    "tph_cluster_pod_count": (c_uint32, [_P]),
    "tph_cluster_snapshot": (c_int, [_P, tph_time, POINTER(_P), _D]),
    "tph_cluster_apply": (c_int, [_P, _P, _D]),
    "tph_snapshot_release": (None, [_P]),
    "tph_snapshot_node_count": (c_uint32, [_P]),
    "tph_snapshot_task_count": (c_uint32, [_P]),
    "tph_snapshot_job_count": (c_uint32, [_P]),
    "tph_conf_load_file": (c_int, [c_char_p, c_bool, POINTER(_P), _D]),
    "tph_conf_load_string": (c_int, [c_char_p, c_size_t, c_char_p, c_bool, POINTER(_P), _D]),
    "tph_conf_free": (None, [_P]),
    "tph_conf_action_count": (c_uint32, [_P]),
    "tph_conf_action": (c_char_p, [_P, c_uint32]),
    "tph_session_open": (c_int, [_P, _P, POINTER(SessionOpts), POINTER(_P), _D]),
    "tph_session_run": (c_int, [_P, _D]),
    "tph_session_close": (c_int, [_P, _D]),
    "tph_session_free": (None, [_P]),
    "tph_session_decisions": (POINTER(DecisionLog), [_P]),
    "tph_scenario_load_file": (c_int, [c_char_p, POINTER(_P), _D]),
    "tph_scenario_load_buffer": (c_int, [c_char_p, c_size_t, c_char_p, POINTER(_P), _D]),
    "tph_scenario_free": (None, [_P]),
    "tph_scenario_name": (c_char_p, [_P]),
    "tph_scenario_now": (tph_time, [_P]),
    "tph_scenario_cluster": (_P, [_P]),
    "tph_scenario_conf": (_P, [_P]),
    "tph_quantity_parse": (c_int, [c_char_p, c_size_t, c_int, POINTER(c_int64),
                                   POINTER(c_char_p)]),
    "tph_res_unit_of": (c_int, [c_char_p, c_size_t]),
    "tph_quantity_format": (c_size_t, [c_int64, c_int, ctypes.c_char_p, c_size_t]),
    "tph_job_why_name": (c_char_p, [c_int]),
}


def load(path=None):
    """Open libtephra (library_path() unless given) and declare its prototypes."""
    path = path or library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise OSError(f"tephra: cannot load libtephra ({path}): {e}; set TEPHRA_LIBRARY to "
                      "its path, or build the tree (cmake -P cmake/main.cmake)") from e
    for name, (res, args) in _PROTOTYPES.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


lib = load()
