"""The objects a host puts into a Cluster, one dataclass per C descriptor of tephra/cluster.h.

Every field left at its default is what Kubernetes and Volcano do when the field is left out
(the binding starts each C descriptor from its TPH_*_DESC_INIT values, in _desc.py). Enums take
Kubernetes' spellings ("Running", "NoSchedule"). Resources map a name to an exact int (millicores
for cpu, bytes for memory and ephemeral-storage, milli-units for everything else) or to a
Kubernetes quantity string ("2", "500m", "4Gi"), which the library parses exactly. Times are
datetimes (naive ones are UTC), None meaning "not set"."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Dict, List, Optional, Union

Resources = Dict[str, Union[int, str]]
Labels = Dict[str, str]


@dataclass
class Taint:
    key: str
    value: str = ""
    effect: str = "NoSchedule"  # NoSchedule, PreferNoSchedule, NoExecute


@dataclass
class NodeUsage:
    period_s: int = 0
    cpu_percent: float = 0.0
    mem_percent: float = 0.0
    metrics_time: Optional[datetime] = None  # None: the session clock


@dataclass
class Node:
    """A v1.Node: ready and schedulable unless said otherwise."""
    name: str
    allocatable: Resources = field(default_factory=dict)
    capacity: Resources = field(default_factory=dict)  # empty: same as allocatable
    labels: Labels = field(default_factory=dict)
    annotations: Labels = field(default_factory=dict)
    taints: List[Taint] = field(default_factory=list)
    unschedulable: bool = False
    not_ready: bool = False  # the Ready condition is not True: Volcano leaves the node out
    usage: Optional[NodeUsage] = None


@dataclass
class Toleration:
    """Operator Equal or Exists; effect None tolerates every effect."""
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: Optional[str] = None


@dataclass
class Requirement:
    """A selector expression: In, NotIn, Exists, DoesNotExist, Gt, Lt."""
    key: str
    operator: str
    values: List[str] = field(default_factory=list)


@dataclass
class LabelSelector:
    """matchLabels AND matchExpressions; an empty one matches everything (None: nothing)."""
    match_labels: Labels = field(default_factory=dict)
    match_expressions: List[Requirement] = field(default_factory=list)


@dataclass
class PreferredNodeTerm:
    weight: int
    term: List[Requirement]


@dataclass
class PodAffinityTerm:
    selector: Optional[LabelSelector] = None
    namespaces: List[str] = field(default_factory=list)  # empty: the pod's own namespace
    topology_key: str = ""
    weight: int = 0  # preferred terms only


@dataclass
class Affinity:
    node_required: List[List[Requirement]] = field(default_factory=list)  # ORed terms
    node_preferred: List[PreferredNodeTerm] = field(default_factory=list)
    pod_required: List[PodAffinityTerm] = field(default_factory=list)
    pod_preferred: List[PodAffinityTerm] = field(default_factory=list)
    anti_required: List[PodAffinityTerm] = field(default_factory=list)
    anti_preferred: List[PodAffinityTerm] = field(default_factory=list)


@dataclass
class SpreadConstraint:
    max_skew: int
    topology_key: str
    do_not_schedule: bool = False  # whenUnsatisfiable: DoNotSchedule (else ScheduleAnyway)
    selector: Optional[LabelSelector] = None
    min_domains: int = 0


@dataclass
class PodCondition:
    type: str
    status: str  # True, False, Unknown
    last_transition: Optional[datetime] = None
    last_probe: Optional[datetime] = None
    reason: str = ""
    message: str = ""


@dataclass
class Pod:
    """A v1.Pod as the scheduler sees it: Pending and unbound unless said otherwise."""
    name: str
    namespace: str = "default"
    pod_group: str = ""  # "": the pod is its own one-member job
    phase: str = "Pending"  # Pending, Running, Succeeded, Failed, Unknown
    node_name: str = ""
    requests: Resources = field(default_factory=dict)
    limits: Resources = field(default_factory=dict)
    task_spec: str = ""
    labels: Labels = field(default_factory=dict)
    annotations: Labels = field(default_factory=dict)
    node_selector: Labels = field(default_factory=dict)
    tolerations: List[Toleration] = field(default_factory=list)
    affinity: Optional[Affinity] = None
    topology_spread: List[SpreadConstraint] = field(default_factory=list)
    priority: Optional[int] = None  # None: from the priority class
    priority_class: str = ""
    preempt_never: bool = False
    preemptable: Optional[bool] = None  # None: the volcano.sh/preemptable annotation or label
    nominated_node: str = ""
    deleting: bool = False
    creation: Optional[datetime] = None
    uid: str = ""
    conditions: List[PodCondition] = field(default_factory=list)


@dataclass
class NetworkTopology:
    mode: str = ""  # hard, soft ("": none)
    highest_tier: Optional[int] = None  # None: no limit
    highest_tier_name: str = ""


@dataclass
class SubGroupPolicy:
    name: str
    subgroup_size: int = 1
    min_subgroups: int = 0
    match_label_keys: List[str] = field(default_factory=list)
    selector: Optional[LabelSelector] = None
    network_topology: Optional[NetworkTopology] = None


@dataclass
class PodGroup:
    """A Volcano PodGroup: Pending, in queue "default", minMember 1 unless said otherwise."""
    name: str
    namespace: str = "default"
    queue: str = ""  # "": default
    min_member: int = 1
    min_task_member: Dict[str, int] = field(default_factory=dict)
    min_resources: Optional[Resources] = None  # None: none
    phase: str = "Pending"  # Pending, Inqueue, Running, Unknown, Completed
    priority_class: str = ""
    creation: Optional[datetime] = None
    annotations: Labels = field(default_factory=dict)
    uid: str = ""
    network_topology: Optional[NetworkTopology] = None
    subgroups: List[SubGroupPolicy] = field(default_factory=list)


@dataclass
class QueueAffinity:
    required: List[str] = field(default_factory=list)
    preferred: List[str] = field(default_factory=list)
    anti_required: List[str] = field(default_factory=list)
    anti_preferred: List[str] = field(default_factory=list)


@dataclass
class Queue:
    """A Volcano Queue: weight 1, Open, reclaimable, under root unless said otherwise."""
    name: str
    weight: int = 1
    capability: Resources = field(default_factory=dict)
    deserved: Resources = field(default_factory=dict)
    guarantee: Resources = field(default_factory=dict)
    reclaimable: bool = True
    state: str = "Open"  # Open, Closed, Closing
    parent: str = ""  # "": root
    priority: int = 0
    creation: Optional[datetime] = None
    annotations: Labels = field(default_factory=dict)
    affinity: Optional[QueueAffinity] = None  # set, even empty: no inherited affinity


@dataclass
class PriorityClass:
    name: str
    value: int = 0
    global_default: bool = False
    preempt_never: bool = False


@dataclass
class HyperNodeMember:
    """Exactly one of name (a node or hypernode), regex (over node names), labels."""
    name: str = ""
    regex: str = ""
    labels: Optional[Labels] = None


@dataclass
class HyperNode:
    name: str
    tier: int = 0
    tier_name: str = ""
    members: List[HyperNodeMember] = field(default_factory=list)


@dataclass
class Quota:
    name: str
    namespace: str = "default"
    hard: Resources = field(default_factory=dict)


@dataclass
class IntOrPercent:
    value: int
    percent: bool = False


@dataclass
class PodDisruptionBudget:
    """Volcano's pdb plugin matches no pod with a None or empty selector."""
    name: str
    namespace: str = "default"
    selector: Optional[LabelSelector] = None
    min_available: Optional[IntOrPercent] = None
    max_unavailable: Optional[IntOrPercent] = None
    disruptions_allowed: int = 0
    disrupted_pods: Dict[str, datetime] = field(default_factory=dict)
