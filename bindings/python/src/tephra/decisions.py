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

    @classmethod
    def from_log(cls, log):
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
            jobs_ready=log.jobs_ready)

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
                "pending": [asdict(p) for p in self.pending]}
