"""tephra: the Python binding of libtephra, a scheduling kernel that makes the Volcano batch
scheduler's decisions.

    import tephra
    with tephra.Cluster() as c:
        c.put(tephra.Queue("default"),
              tephra.Node("n1", allocatable={"cpu": "4", "memory": "16Gi"}),
              tephra.Pod("p", requests={"cpu": "1"}))
        d = c.schedule(threads=2)       # snapshot, session, run, close, apply
        for b in d.binds:
            print(b.pod, "->", b.node)

A cycle step by step: `snap = c.snapshot(now)`, `with tephra.Session(snap, conf) as s:`,
`s.run()`, `s.close()`, `c.apply(s)`, `s.decisions()`. Scenario files: `load_scenario(path)`.
Every object holding C memory is released by close() (free() for a Session) or its `with`
block; __del__ catches forgotten ones, but explicit release is the rule. Errors raise
TephraError (.code, .name, .message). The library is $TEPHRA_LIBRARY, else the source tree's
build/lib, else the system's."""

from ._capi import library_path
from ._core import Cluster, Conf, Scenario, Session, Snapshot, load_scenario, load_scenario_bytes
from ._desc import quantity
from .decisions import Decision, Decisions, PendingPod, PodGroupStatus
from .errors import Status, TephraError
from .objects import (Affinity, HyperNode, HyperNodeMember, IntOrPercent, LabelSelector,
                      NetworkTopology, Node, NodeUsage, Pod, PodAffinityTerm, PodCondition,
                      PodDisruptionBudget, PodGroup, PreferredNodeTerm, PriorityClass, Queue,
                      QueueAffinity, Quota, Requirement, SpreadConstraint, SubGroupPolicy, Taint,
                      Toleration)
from . import _capi


def version():
    """The library's version string ("0.1.0")."""
    return _capi.lib.tph_version_string().decode()


__version__ = "0.1.0"
__all__ = [n for n in dir() if not n.startswith("_")]
