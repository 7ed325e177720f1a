"""A closed session's decision log as plain data."""

from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional


def _s(b):
    return b.decode() if b is not None else None


@dataclass
class Decision:
    """A bind, eviction or pipelined task: node is None for evictions; annotations are those
    plugins set on a bound task."""
    pod: str  # "namespace/name"
    node: Optional[str] = None
    reason: Optional[str] = None
    annotations: Dict[str, str] = field(default_factory=dict)


@dataclass
class PodGroupStatus:
    name: str  # "namespace/name"
    phase: str  # Pending, Inqueue, Running, Unknown, Completed


@dataclass
class PendingPod:
    """A task left unplaced and why, one line per reason ("2 Insufficient cpu")."""
    pod: str
    reasons: List[str]


@dataclass
class PodGroupCondition:
    """The condition Volcano's gang plugin writes on a podgroup it could not schedule."""
    type: str  # "Unschedulable"
    reason: str  # "NotEnoughResources"
    message: str  # "3/8 tasks in gang unschedulable: pod group is not ready, ..."


@dataclass
class PendingJob:
    """Why a podgroup is pending: a kind, the plugin that refused it, one line with numbers."""
    pod_group: str  # "namespace/name"
    queue: str
    kind: str  # Invalid, NotEnqueued, QueueShare, Pipelined, Topology, GangShort, ...
    plugin: Optional[str]
    message: str  # "needs 8, 5 placeable: 3 tasks fit no node — 2 Insufficient cpu, ..."
    min_member: int
    tasks: int
    ready: int
    placeable: int
    pending: int
    unfit: int
    condition: Optional[PodGroupCondition] = None


@dataclass
class QueueStatus:
    """A queue after close: resources as quantity strings ({"cpu": "4"}), None when no plugin
    reported them; pending counts jobs by kind."""
    name: str
    state: str
    weight: int
    share: Optional[float]
    reported_by: Optional[str]
    allocated: Dict[str, str]
    deserved: Optional[Dict[str, str]]
    request: Optional[Dict[str, str]]
    inqueue: Optional[Dict[str, str]]
    capability: Optional[Dict[str, str]]
    guarantee: Optional[Dict[str, str]]
    status: Dict[str, int]  # podgroups by phase, as Volcano's queue status counts them
    pending: Dict[str, int]
    summary: str  # "q1: 40 jobs pending, 31 by queue share, 9 gang short"


def _resources(log, row, lib):
    """A queue row's values as `tephra run` shows them: cpu and memory always, the others when
    non-zero, never an unlimited one."""
    import ctypes
    if not row:
        return None
    out = {}
    buf = ctypes.create_string_buffer(48)
    for d in range(log.n_dims):
        v, name = row[d], _s(log.dims[d])
        if v == 2**63 - 1 or (not v and name not in ("cpu", "memory")):
            continue
        lib.tph_quantity_format(v, log.dim_units[d], buf, 48)
        out[name] = buf.value.decode()
    return out


def _jobs(log, lib):
    out = []
    for i in range(log.n_jobs):
        r = log.jobs[i]
        cond = (PodGroupCondition(_s(r.cond_type), _s(r.cond_reason), _s(r.cond_message))
                if r.cond_type else None)
        out.append(PendingJob(_s(r.podgroup), _s(r.queue), _s(lib.tph_job_why_name(r.why)),
                              _s(r.plugin), _s(r.message), r.min_member, r.tasks, r.ready,
                              r.placeable, r.pending, r.unfit, cond))
    return out


def _queues(log, lib):
    out = []
    for i in range(log.n_queues):
        q = log.queues[i]
        pending = {"jobs": q.jobs_pending}
        for k in range(len(q.by_why)):
            if q.by_why[k]:
                pending[_s(lib.tph_job_why_name(k))] = q.by_why[k]
        res = {f: _resources(log, getattr(q, f), lib) for f in
               ("allocated", "deserved", "request", "inqueue", "capability", "guarantee")}
        out.append(QueueStatus(_s(q.name), _s(q.state), q.weight,
                               q.share if q.share >= 0 else None, _s(q.reported_by),
                               status=dict(zip(("pending", "inqueue", "running", "unknown",
                                                "completed"), q.podgroups)),
                               pending=pending, summary=_s(q.summary), **res))
    return out


@dataclass
class Decisions:
    binds: List[Decision]
    evictions: List[Decision]
    pipelined: List[Decision]
    pod_groups: List[PodGroupStatus]
    pending: List[PendingPod]
    actions: Dict[str, float]  # action -> milliseconds
    open_ms: float
    close_ms: float
    jobs_total: int  # podgroups in the session
    jobs_ready: int  # of which allocated and succeeded tasks reach minMember
    jobs: List[PendingJob] = field(default_factory=list)  # every pending job, why
    queues: List[QueueStatus] = field(default_factory=list)  # every queue after close

    @classmethod
    def from_log(cls, log):
        from ._capi import lib
        def rows(p, n):
            out = []
            for i in range(n):
                r = p[i]
                ann = {_s(r.annotations.items[k].key): _s(r.annotations.items[k].value)
                       for k in range(r.annotations.n)}
                out.append(Decision(_s(r.pod), _s(r.node), _s(r.reason), ann))
            return out

        return cls(
            binds=rows(log.binds, log.n_binds),
            evictions=rows(log.evictions, log.n_evictions),
            pipelined=rows(log.pipelined, log.n_pipelined),
            pod_groups=[PodGroupStatus(_s(log.phases[i].podgroup), _s(log.phases[i].phase))
                        for i in range(log.n_phases)],
            pending=[PendingPod(_s(log.pending[i].pod),
                                [_s(log.pending[i].reasons[k])
                                 for k in range(log.pending[i].n_reasons)])
                     for i in range(log.n_pending)],
            actions={_s(log.actions[i].action): log.actions[i].ms for i in range(log.n_actions)},
            open_ms=log.open_ms, close_ms=log.close_ms, jobs_total=log.jobs_total,
            jobs_ready=log.jobs_ready, jobs=_jobs(log, lib), queues=_queues(log, lib))

    def to_json(self):
        """The decisions as `tephra run --format json` prints them (without scenario and
        timing): plain dicts and lists, ready for json.dumps."""
        def rows(ds, second):
            out = []
            for d in ds:
                row = {"pod": d.pod, second: getattr(d, second)}
                if d.annotations:
                    row["annotations"] = dict(d.annotations)
                out.append(row)
            return out

        return {"binds": rows(self.binds, "node"), "evictions": rows(self.evictions, "reason"),
                "pipelined": rows(self.pipelined, "node"),
                "podGroups": [asdict(g) for g in self.pod_groups],
                "pending": [asdict(p) for p in self.pending],
                "jobs": [_job_json(j) for j in self.jobs],
                "queues": [_queue_json(q) for q in self.queues]}


def _job_json(j):
    return {"podGroup": j.pod_group, "queue": j.queue, "kind": j.kind, "plugin": j.plugin,
            "message": j.message, "minMember": j.min_member, "tasks": j.tasks,
            "ready": j.ready, "placeable": j.placeable, "pending": j.pending,
            "unfit": j.unfit, "condition": asdict(j.condition) if j.condition else None}


def _queue_json(q):
    d = asdict(q)
    d["reportedBy"] = d.pop("reported_by")
    return d
