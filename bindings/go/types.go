package tephra

import "time"

// The objects a host puts into a Cluster. Each mirrors one C descriptor of tephra/cluster.h
// (desc.go maps them, in one place); the zero value of every field is what Kubernetes and
// Volcano do when the field is left out, and string-typed enums take Kubernetes' spelling.
// Strings and maps are copied into C memory for the call only; the cache keeps its own copies.

// Resources are exact amounts by resource name: cpu in millicores, memory and ephemeral-storage
// in bytes, everything else (pods, nvidia.com/gpu, ...) in milli-units. ParseResources reads
// Kubernetes quantities ("2", "500m", "4Gi") into them.
type Resources map[string]int64

// Node is a v1.Node: ready and schedulable unless said otherwise.
type Node struct {
	Name          string
	Allocatable   Resources
	Capacity      Resources // nil: same as Allocatable
	Labels        map[string]string
	Annotations   map[string]string
	Taints        []Taint
	Unschedulable bool
	NotReady      bool       // the Ready condition is not True: Volcano leaves the node out
	Usage         *NodeUsage // nil: no metrics
}

// NodeUsage is the node's recent utilisation, as the usage plugin reads it.
type NodeUsage struct {
	Period      time.Duration // rounded to seconds
	CPUPercent  float64
	MemPercent  float64
	MetricsTime time.Time // zero: the session clock
}

// TaintEffect is a taint's or a toleration's effect.
type TaintEffect string

const (
	NoSchedule       TaintEffect = "NoSchedule"
	PreferNoSchedule TaintEffect = "PreferNoSchedule"
	NoExecute        TaintEffect = "NoExecute"
)

// Taint is a node taint; an empty Effect is NoSchedule.
type Taint struct {
	Key, Value string
	Effect     TaintEffect
}

// Toleration is a pod's toleration: Operator "Equal" (the default) or "Exists"; an empty Effect
// tolerates every effect, and an empty Key with "Exists" every taint.
type Toleration struct {
	Key      string
	Operator string
	Value    string
	Effect   TaintEffect
}

// Requirement is one label selector expression: Operator In, NotIn, Exists, DoesNotExist, Gt or
// Lt (the last two for node selectors only).
type Requirement struct {
	Key      string
	Operator string
	Values   []string
}

// LabelSelector is a metav1.LabelSelector: MatchLabels AND MatchExpressions. A selector with
// neither matches everything; a nil *LabelSelector matches nothing.
type LabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []Requirement
}

// NodeSelectorTerm holds if all its requirements hold.
type NodeSelectorTerm []Requirement

// PreferredNodeTerm is a weighted preferred node affinity term.
type PreferredNodeTerm struct {
	Weight int32
	Term   NodeSelectorTerm
}

// PodAffinityTerm is a pod (anti-)affinity term; Weight is for preferred terms only.
type PodAffinityTerm struct {
	Selector    *LabelSelector
	Namespaces  []string // empty: the pod's own namespace
	TopologyKey string
	Weight      int32
}

// Affinity is a pod's node affinity (required terms are ORed), pod affinity and anti-affinity.
type Affinity struct {
	NodeRequired  []NodeSelectorTerm
	NodePreferred []PreferredNodeTerm
	PodRequired   []PodAffinityTerm
	PodPreferred  []PodAffinityTerm
	AntiRequired  []PodAffinityTerm
	AntiPreferred []PodAffinityTerm
}

// SpreadConstraint is a topologySpreadConstraint.
type SpreadConstraint struct {
	MaxSkew       int32
	TopologyKey   string
	DoNotSchedule bool // whenUnsatisfiable: DoNotSchedule (else ScheduleAnyway)
	Selector      *LabelSelector
	MinDomains    int32 // 0: unset
}

// PodPhase is a pod's status.phase; "" is Pending.
type PodPhase string

const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// PodCondition is a status condition; Status is "True", "False" or "Unknown".
type PodCondition struct {
	Type           string
	Status         string
	LastTransition time.Time
	LastProbe      time.Time
	Reason         string
	Message        string
}

// Pod is a v1.Pod as the scheduler sees it: Pending and unbound unless said otherwise.
type Pod struct {
	Name, Namespace string
	PodGroup        string // "": the pod is its own one-member job
	Phase           PodPhase
	NodeName        string // "": not bound
	Requests        Resources
	Limits          Resources // never part of a fit
	TaskSpec        string    // volcano.sh/task-spec role
	Labels          map[string]string
	Annotations     map[string]string
	NodeSelector    map[string]string
	Tolerations     []Toleration
	Affinity        *Affinity
	TopologySpread  []SpreadConstraint
	Priority        *int32 // nil: from the priority class
	PriorityClass   string
	PreemptNever    bool  // preemptionPolicy: Never
	Preemptable     *bool // nil: the volcano.sh/preemptable annotation, else label; true without
	NominatedNode   string
	Deleting        bool
	Creation        time.Time
	UID             string // "": "<namespace>-<name>"
	Conditions      []PodCondition
}

// PodGroupPhase is a podgroup's status.phase; "" is Pending.
type PodGroupPhase string

const (
	PodGroupPending   PodGroupPhase = "Pending"
	PodGroupInqueue   PodGroupPhase = "Inqueue"
	PodGroupRunning   PodGroupPhase = "Running"
	PodGroupUnknown   PodGroupPhase = "Unknown"
	PodGroupCompleted PodGroupPhase = "Completed"
)

// NetworkTopology is a podgroup's (or subgroup's) networkTopology: Mode "hard" or "soft" ("":
// none), at most HighestTier (nil: no limit) or the tier named HighestTierName.
type NetworkTopology struct {
	Mode            string
	HighestTier     *int32
	HighestTierName string
}

// SubGroupPolicy is one entry of a podgroup's subGroupPolicy.
type SubGroupPolicy struct {
	Name            string
	SubGroupSize    *int32 // nil: 1
	MinSubGroups    int32
	MatchLabelKeys  []string
	Selector        *LabelSelector
	NetworkTopology *NetworkTopology
}

// PodGroup is a Volcano PodGroup: Pending, in queue "default", minMember 1 unless said otherwise.
type PodGroup struct {
	Name, Namespace string
	Queue           string // "": "default"
	MinMember       *int32 // nil: 1; 0 is a valid minMember
	MinTaskMember   map[string]int32
	MinResources    Resources // nil: none (an empty non-nil map is an empty minResources)
	Phase           PodGroupPhase
	PriorityClass   string
	Creation        time.Time
	Annotations     map[string]string
	UID             string // "": "<namespace>/<name>"
	NetworkTopology *NetworkTopology
	SubGroups       []SubGroupPolicy
}

// QueueState is a queue's status.state; "" is Open.
type QueueState string

const (
	QueueOpen    QueueState = "Open"
	QueueClosed  QueueState = "Closed"
	QueueClosing QueueState = "Closing"
)

// QueueAffinity is a queue's nodeGroupAffinity and nodeGroupAntiAffinity. A non-nil one, even
// empty, stops the queue inheriting its ancestors' affinity.
type QueueAffinity struct {
	Required, Preferred         []string
	AntiRequired, AntiPreferred []string
}

// Queue is a Volcano Queue: weight 1, Open, reclaimable, under root unless said otherwise.
type Queue struct {
	Name        string
	Weight      *int32 // nil: 1; 0 is a valid weight (the queue gets nothing)
	Capability  Resources
	Deserved    Resources
	Guarantee   Resources
	Reclaimable *bool // nil: true
	State       QueueState
	Parent      string // "": root
	Priority    int32
	Creation    time.Time
	Annotations map[string]string
	Affinity    *QueueAffinity
}

// PriorityClass is a scheduling.k8s.io PriorityClass.
type PriorityClass struct {
	Name          string
	Value         int32
	GlobalDefault bool
	PreemptNever  bool
}

// HyperNodeMember selects nodes or hypernodes: by exact Name, by Regex over node names, or by
// Labels; exactly one of the three is set.
type HyperNodeMember struct {
	Name   string
	Regex  string
	Labels map[string]string
}

// HyperNode is a Volcano HyperNode (a network topology domain).
type HyperNode struct {
	Name     string
	Tier     int32
	TierName string
	Members  []HyperNodeMember
}

// Quota is a v1.ResourceQuota.
type Quota struct {
	Name, Namespace string
	Hard            Resources
}

// IntOrPercent is a PodDisruptionBudget's minAvailable or maxUnavailable: a count, or a
// percentage when Percent is set.
type IntOrPercent struct {
	Value   int32
	Percent bool
}

// PodDisruptionBudget is a policy/v1 PodDisruptionBudget with the status fields Volcano's pdb
// plugin reads. Volcano's plugin matches no pod with a nil or empty Selector.
type PodDisruptionBudget struct {
	Name, Namespace    string
	Selector           *LabelSelector
	MinAvailable       *IntOrPercent
	MaxUnavailable     *IntOrPercent
	DisruptionsAllowed int32
	DisruptedPods      map[string]time.Time // pod name -> when
}
