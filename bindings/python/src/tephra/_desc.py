"""The one place Python objects become C descriptors: each starts from its INIT values (`size`
the struct's sizeof, the macro's non-zero defaults), and every string and array it points to is
kept alive by the Builder until the call returns."""

import ctypes
from datetime import datetime, timezone

from . import _capi as C
from .errors import TephraError, check_quantity

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_SEL_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
_PG_PHASES = ("Pending", "Inqueue", "Running", "Unknown", "Completed")
_QUEUE_STATES = ("Open", "Closed", "Closing")
_COND = ("True", "False", "Unknown")
_TOPO_MODES = ("", "hard", "soft")
_TOL_OPS = ("Equal", "Exists")
MEMBER_NAME, MEMBER_REGEX, MEMBER_LABELS = 0, 1, 2
PREEMPTABLE = {None: 0, True: 1, False: 2}


def millis(t):
    """A tph_time: milliseconds since the epoch; None (or 0) is "not set"."""
    if t is None:
        return 0
    if isinstance(t, datetime):
        if t.tzinfo is None:
            t = t.replace(tzinfo=timezone.utc)
        return int(t.timestamp() * 1000)
    return int(t)


def enum(what, value, names):
    try:
        return names.index(value)
    except ValueError:
        spelled = ", ".join(n for n in names if n)
        raise TephraError.invalid(f"{what}: {value!r} is none of {spelled}")


def quantity(resource, value):
    """An exact amount: an int as it is, a str parsed as a Kubernetes quantity."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TephraError.invalid(f"{resource}: {value!r} is neither an int nor a quantity")
    if isinstance(value, int):
        return value
    raw = value.encode()
    unit = C.lib.tph_res_unit_of(resource.encode(), len(resource.encode()))
    out, why = ctypes.c_int64(), ctypes.c_char_p()
    rc = C.lib.tph_quantity_parse(raw, len(raw), unit, ctypes.byref(out), ctypes.byref(why))
    check_quantity(rc, resource, value, why.value)
    return out.value


class Builder:
    """Holds the C memory of one call's descriptor."""

    def __init__(self):
        self.keep = []

    def s(self, v):
        """An optional string: "" (or None) is NULL, "not set"."""
        return self.text(v) if v else None

    def text(self, v):
        b = v.encode()
        self.keep.append(b)
        return b

    def array(self, ctype, items):
        """A C array of `items` (already ctype values) and its length; (None, 0) when empty."""
        if not items:
            return None, 0
        arr = (ctype * len(items))(*items)
        self.keep.append(arr)
        return ctypes.cast(arr, ctypes.POINTER(ctype)), len(items)

    def ptr(self, value):
        self.keep.append(value)
        return ctypes.pointer(value)

    def kvs(self, mapping):
        items = [C.KV(self.text(k), self.text(v)) for k, v in sorted((mapping or {}).items())]
        return C.KVList(*self.array(C.KV, items))

    def res(self, resources):
        items = [C.ResItem(self.text(k), quantity(k, v))
                 for k, v in sorted((resources or {}).items())]
        return C.ResList(*self.array(C.ResItem, items))

    def strs(self, values):
        return C.StrList(*self.array(ctypes.c_char_p, [self.text(v) for v in values or []]))

    def term(self, reqs):
        exprs = [C.SelExpr(self.text(r.key), enum("selector operator", r.operator, _SEL_OPS),
                           self.strs(r.values)) for r in reqs or []]
        return C.SelTerm(*self.array(C.SelExpr, exprs))

    def selector(self, sel):
        if sel is None:
            return C.LabelSelector()
        return C.LabelSelector(True, self.kvs(sel.match_labels), self.term(sel.match_expressions))

    def pod_terms(self, terms):
        return self.array(C.PodAffinityTerm, [
            C.PodAffinityTerm(self.selector(t.selector), self.strs(t.namespaces),
                              self.s(t.topology_key), t.weight) for t in terms])

    def affinity(self, a):
        if a is None:
            return None
        c = C.Affinity()
        c.node_required, c.n_node_required = self.array(
            C.SelTerm, [self.term(t) for t in a.node_required])
        c.node_preferred, c.n_node_preferred = self.array(
            C.PrefTerm, [C.PrefTerm(t.weight, self.term(t.term)) for t in a.node_preferred])
        c.pod_required, c.n_pod_required = self.pod_terms(a.pod_required)
        c.pod_preferred, c.n_pod_preferred = self.pod_terms(a.pod_preferred)
        c.anti_required, c.n_anti_required = self.pod_terms(a.anti_required)
        c.anti_preferred, c.n_anti_preferred = self.pod_terms(a.anti_preferred)
        return self.ptr(c)

    def topology(self, t):
        c = C.NetTopology.init()
        if t is not None:
            c.mode = enum("network topology mode", t.mode, _TOPO_MODES)
            if t.highest_tier is not None:
                c.highest_tier = t.highest_tier
            c.highest_tier_name = self.s(t.highest_tier_name)
        return c

    def node(self, n):
        c = C.NodeDesc.init()
        c.name = self.s(n.name)
        c.allocatable, c.capacity = self.res(n.allocatable), self.res(n.capacity)
        c.labels, c.annotations = self.kvs(n.labels), self.kvs(n.annotations)
        c.taints, c.n_taints = self.array(C.Taint, [
            C.Taint(self.text(t.key), self.s(t.value), enum("taint effect", t.effect, _EFFECTS))
            for t in n.taints])
        c.unschedulable, c.not_ready = n.unschedulable, n.not_ready
        if n.usage is not None:
            u = n.usage
            c.usage = C.NodeUsage(True, u.period_s, u.cpu_percent, u.mem_percent,
                                  millis(u.metrics_time))
        return c

    def pod(self, p):
        c = C.PodDesc.init()
        c.name, c.namespace_, c.pod_group = self.s(p.name), self.s(p.namespace), self.s(p.pod_group)
        c.phase = enum("pod phase", p.phase, _POD_PHASES)
        c.node_name, c.task_spec = self.s(p.node_name), self.s(p.task_spec)
        c.requests, c.limits = self.res(p.requests), self.res(p.limits)
        c.labels, c.annotations = self.kvs(p.labels), self.kvs(p.annotations)
        c.node_selector = self.kvs(p.node_selector)
        c.tolerations, c.n_tolerations = self.array(C.Toleration, [
            C.Toleration(self.s(t.key), enum("toleration operator", t.operator, _TOL_OPS),
                         self.s(t.value),
                         -1 if t.effect is None else enum("taint effect", t.effect, _EFFECTS))
            for t in p.tolerations])
        c.affinity = self.affinity(p.affinity)
        c.spread, c.n_spread = self.array(C.SpreadConstraint, [
            C.SpreadConstraint(s.max_skew, self.s(s.topology_key), s.do_not_schedule,
                               self.selector(s.selector), s.min_domains)
            for s in p.topology_spread])
        if p.priority is not None:
            c.has_priority, c.priority = True, p.priority
        c.priority_class, c.preempt_never = self.s(p.priority_class), p.preempt_never
        c.preemptable = PREEMPTABLE[p.preemptable]
        c.nominated_node, c.deleting = self.s(p.nominated_node), p.deleting
        c.creation, c.uid = millis(p.creation), self.s(p.uid)
        c.conditions, c.n_conditions = self.array(C.PodCondition, [
            C.PodCondition(self.text(k.type), enum("condition status", k.status, _COND),
                           millis(k.last_transition), millis(k.last_probe), self.s(k.reason),
                           self.s(k.message)) for k in p.conditions])
        return c

    def podgroup(self, g):
        c = C.PodGroupDesc.init()
        c.name, c.namespace_, c.queue = self.s(g.name), self.s(g.namespace), self.s(g.queue)
        c.min_member = g.min_member
        c.min_tasks, c.n_min_tasks = self.array(C.MinTask, [
            C.MinTask(self.text(k), v) for k, v in sorted(g.min_task_member.items())])
        if g.min_resources is not None:
            c.min_resources, c.has_min_resources = self.res(g.min_resources), True
        c.phase = enum("podgroup phase", g.phase, _PG_PHASES)
        c.priority_class, c.creation = self.s(g.priority_class), millis(g.creation)
        c.annotations, c.uid = self.kvs(g.annotations), self.s(g.uid)
        c.topology = self.topology(g.network_topology)
        subs = []
        for s in g.subgroups:
            sc = C.SubgroupPolicy.init()
            sc.name, sc.subgroup_size = self.s(s.name), s.subgroup_size
            sc.min_subgroups = s.min_subgroups
            sc.match_label_keys = self.strs(s.match_label_keys)
            sc.selector = self.selector(s.selector)
            sc.topology = self.topology(s.network_topology)
            subs.append(sc)
        c.subgroups, c.n_subgroups = self.array(C.SubgroupPolicy, subs)
        return c

    def queue(self, q):
        c = C.QueueDesc.init()
        c.name, c.weight = self.s(q.name), q.weight
        c.capability, c.deserved = self.res(q.capability), self.res(q.deserved)
        c.guarantee = self.res(q.guarantee)
        c.not_reclaimable = not q.reclaimable
        c.state = enum("queue state", q.state, _QUEUE_STATES)
        c.parent, c.priority, c.creation = self.s(q.parent), q.priority, millis(q.creation)
        c.annotations = self.kvs(q.annotations)
        if q.affinity is not None:
            a = q.affinity
            c.has_affinity = True
            c.affinity_required = self.strs(a.required)
            c.affinity_preferred = self.strs(a.preferred)
            c.anti_affinity_required = self.strs(a.anti_required)
            c.anti_affinity_preferred = self.strs(a.anti_preferred)
        return c

    def priority_class(self, p):
        c = C.PriorityClassDesc.init()
        c.name, c.value = self.s(p.name), p.value
        c.global_default, c.preempt_never = p.global_default, p.preempt_never
        return c

    def hypernode(self, h):
        c = C.HyperNodeDesc.init()
        c.name, c.tier, c.tier_name = self.s(h.name), h.tier, self.s(h.tier_name)
        members = []
        for i, m in enumerate(h.members):
            given = [bool(m.name), bool(m.regex), m.labels is not None]
            if given.count(True) != 1:
                raise TephraError.invalid(f"hypernode {h.name}: member {i}: set exactly one of "
                                          "name, regex, labels")
            if m.labels is not None:
                members.append(C.HyperNodeMember(MEMBER_LABELS, None, self.kvs(m.labels)))
            else:
                kind = MEMBER_NAME if m.name else MEMBER_REGEX
                members.append(C.HyperNodeMember(kind, self.text(m.name or m.regex), C.KVList()))
        c.members, c.n_members = self.array(C.HyperNodeMember, members)
        return c

    def quota(self, q):
        c = C.QuotaDesc.init()
        c.name, c.namespace_, c.hard = self.s(q.name), self.s(q.namespace), self.res(q.hard)
        return c

    def pdb(self, p):
        c = C.PdbDesc.init()
        c.name, c.namespace_ = self.s(p.name), self.s(p.namespace)
        c.selector = self.selector(p.selector)
        for f in ("min_available", "max_unavailable"):
            v = getattr(p, f)
            if v is not None:
                setattr(c, f, C.IntOrPercent(True, v.percent, v.value))
        c.disruptions_allowed = p.disruptions_allowed
        c.disrupted_pods, c.n_disrupted_pods = self.array(C.DisruptedPod, [
            C.DisruptedPod(self.text(k), millis(v)) for k, v in sorted(p.disrupted_pods.items())])
        return c
