"""The put API, cycles with apply (the host loop of examples/host), lifetimes."""

import gc
import os

import pytest

import tephra
from tephra import Node, Pod, PodGroup, PriorityClass, Queue

HOST_CONF = """actions: "enqueue, allocate, preempt"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: predicates}, {name: proportion}, {name: nodeorder}]
"""


class Host:
    """examples/host/host.c in Python: the host's own mirror of its pods, a kubelet that runs
    what was bound and removes what was evicted, one cycle per call."""

    def __init__(self, cluster):
        self.c, self.pods, self.out = cluster, {}, []

    def put(self, p, phase):
        self.c.put_pod(Pod(p["name"], pod_group=p["group"], priority_class=p["class"],
                           phase=phase, node_name=p["node"],
                           requests={"cpu": p["cpu"], "memory": p["cpu"] << 20}))

    def arrive(self, job, pclass, n, min_member, cpu):
        self.c.put_podgroup(PodGroup(job, min_member=min_member, priority_class=pclass))
        for i in range(n):
            p = dict(name=f"{job}-{i}", group=job, cls=None, cpu=cpu, node="", bound=False,
                     evicted=False)
            p["class"] = pclass
            self.pods[p["name"]] = p
            self.put(p, "Pending")

    def kubelet(self):
        for p in self.pods.values():
            if p["bound"]:
                self.put(p, "Running")
            elif p["evicted"]:
                self.c.remove_pod("default", p["name"])
            p["bound"] = p["evicted"] = False

    def report(self, cycle, d):
        self.out.append(f"cycle {cycle}: {len(d.binds)} bound, {len(d.evictions)} evicted, "
                        f"{len(d.pipelined)} pipelined, {len(d.pending)} pending")
        phases = {g.name: g.phase for g in d.pod_groups}
        for b in d.binds:
            p = self.pods[b.pod.split("/")[1]]
            p["node"], p["bound"] = b.node, True
            self.out.append(f"  bind {b.pod} -> {b.node}")
        for e in d.evictions:
            self.pods[e.pod.split("/")[1]]["evicted"] = True
            self.out.append(f"  evict {e.pod} ({e.reason})")
        for p in d.pipelined:
            self.out.append(f"  pipeline {p.pod} -> {p.node}")
        for r in d.pending:
            if r.reasons:
                self.out.append(f"  pending {r.pod}: {r.reasons[0]}")
            else:
                group = self.pods[r.pod.split("/")[1]]["group"]
                self.out.append(f"  pending {r.pod}: podgroup {group} is {phases['default/' + group]}")


@pytest.mark.parametrize("threads", [1, 2])
def test_host_loop_like_the_c_host(root, threads):
    warnings = []
    with tephra.Cluster(warn=warnings.append) as c, tephra.Conf.parse(HOST_CONF, "host.conf") as conf:
        c.put(Queue("default"), PriorityClass("urgent", 1000), PriorityClass("batch", 10))
        for i in range(3):
            c.put_node(Node(f"node-{i}", allocatable={"cpu": "4", "memory": "16Gi", "pods": "110"}))
        h = Host(c)
        arrivals = {1: ("batch", "batch", 6, 1, 2000), 2: ("urgent", "urgent", 2, 2, 2000),
                    4: ("huge", "batch", 1, 1, 8000)}
        for cycle in range(1, 5):
            h.kubelet()
            if cycle in arrivals:
                h.arrive(*arrivals[cycle])
            h.report(cycle, c.schedule(conf=conf, threads=threads))
        assert c.pod_count == 7  # 9 arrived, 2 evicted and removed
        assert c.warnings == 0 and warnings == []
    with open(os.path.join(root, "examples", "host", "expected.txt")) as f:
        assert "\n".join(h.out) + "\n" == f.read()


def cycle(c, conf=None):
    """One explicit cycle; the snapshot is closed while the session is open (it holds it)."""
    snap = c.snapshot()
    with tephra.Session(snap, conf, threads=1) as s:
        snap.close()
        with pytest.raises(tephra.TephraError, match="not closed"):
            s.decisions()
        s.run()
        s.close()
        c.apply(s)
        return s.decisions()


def test_cycles_with_apply():
    with tephra.Cluster() as c:
        c.put(Queue("default"),
              Node("n1", allocatable={"cpu": 2000, "pods": "110"}, labels={"zone": "a"},
                   taints=[tephra.Taint("gpu")]),
              Node("n2", allocatable={"cpu": "2", "pods": "110"}))
        a = Pod("a", "ns", requests={"cpu": "1500m"}, node_selector={"zone": "a"},
                tolerations=[tephra.Toleration("gpu", "Exists")])
        c.put(a, Pod("b", "ns", requests={"cpu": 1500}), Pod("c", "ns", requests={"cpu": 1500}))
        d = cycle(c)
        assert [(b.pod, b.node) for b in d.binds] == [("ns/a", "n1"), ("ns/b", "n2")]
        assert [p.pod for p in d.pending] == ["ns/c"]
        d = cycle(c)  # the applied binds hold their nodes: nothing new
        assert d.binds == [] and len(d.pending) == 1
        a.phase, a.node_name = "Running", "n1"  # the kubelet's news
        c.put_pod(a)
        c.remove_pod("ns", "b")
        d = cycle(c)
        assert [(b.pod, b.node) for b in d.binds] == [("ns/c", "n2")] and d.pending == []
        assert (c.pod_count, c.node_count, c.warnings) == (2, 2, 0)


def test_every_kind_and_nested_fields():
    """Each descriptor's layout is the library's (a put checks `size`), nested arrays too."""
    sel = tephra.LabelSelector({"app": "web"}, [tephra.Requirement("tier", "In", ["a", "b"])])
    with tephra.Cluster(warn=lambda m: None) as c:
        c.put(Queue("default", weight=0, capability={"cpu": "8"}, reclaimable=False,
                    affinity=tephra.QueueAffinity(required=["g1"])),
              Queue("child", parent="default", state="Closed"),
              PriorityClass("high", 100, global_default=True),
              tephra.Quota("q", "ns", hard={"pods": "10"}),
              Node("n1", allocatable={"cpu": "4"}, capacity={"cpu": "4"},
                   usage=tephra.NodeUsage(60, 10.0, 20.0)),
              tephra.HyperNode("h1", tier=1, members=[tephra.HyperNodeMember(name="n1"),
                                                        tephra.HyperNodeMember(regex="^n"),
                                                        tephra.HyperNodeMember(labels={"a": "b"})]),
              PodGroup("g", "ns", min_member=0, min_task_member={"worker": 1},
                       min_resources={"cpu": "1"}, phase="Inqueue",
                       network_topology=tephra.NetworkTopology("hard", 2),
                       subgroups=[tephra.SubGroupPolicy("s", 2, match_label_keys=["k"],
                                                        selector=sel)]),
              Pod("p", "ns", pod_group="g", priority=5, preemptable=False, limits={"cpu": "2"},
                  affinity=tephra.Affinity(
                      node_required=[[tephra.Requirement("zone", "Exists")]],
                      node_preferred=[tephra.PreferredNodeTerm(3, [tephra.Requirement("z", "NotIn", ["x"])])],
                      anti_preferred=[tephra.PodAffinityTerm(sel, ["ns"], "zone", 10)]),
                  topology_spread=[tephra.SpreadConstraint(1, "zone", True, sel)],
                  conditions=[tephra.PodCondition("PodScheduled", "False", reason="Unschedulable")]),
              tephra.PodDisruptionBudget("b", "ns", selector=sel,
                                         min_available=tephra.IntOrPercent(50, True),
                                         disruptions_allowed=1))
        c.set_shard("soft", "s1", ["n1"])
        with c.snapshot() as snap:
            assert (snap.nodes, snap.tasks) == (1, 1)
        c.remove_pdb("ns", "b")
        c.remove_podgroup("ns", "g")
        c.remove_queue("child")
        c.remove_node("n1")


def test_lifetimes_any_order():
    c = tephra.Cluster()
    c.put(Queue("default"), Node("n1", allocatable={"cpu": "1", "pods": "110"}),
          Pod("p", requests={"cpu": "500m"}))
    conf = tephra.Conf.default()
    assert conf.actions == ["enqueue", "allocate", "backfill"]
    snap = c.snapshot()
    s = tephra.Session(snap, conf)
    snap.close()
    conf.close()
    c.close()
    c.close()  # a no-op
    s.run()
    s.close()
    d = s.decisions()
    s.free()
    s.free()  # a no-op
    assert [(b.pod, b.node) for b in d.binds] == [("default/p", "n1")]
    with pytest.raises(tephra.TephraError, match="cluster is closed"):
        c.put_node(Node("n2"))
    with pytest.raises(tephra.TephraError) as e:
        s.run()
    assert e.value.code == tephra.Status.EINVAL
    with pytest.raises(tephra.TephraError):
        tephra.Session(snap)


def test_forgotten_objects_are_released():
    for _ in range(3):
        scn = tephra.load_scenario_bytes("nodes: [{name: n1, allocatable: {cpu: '1'}}]\n")
        s = tephra.Session(scn.cluster.snapshot(), scn.conf)
        del scn, s
    gc.collect()


def test_warnings_reach_the_callable():
    got = []
    with tephra.Cluster(warn=got.append) as c:
        c.put_pod(Pod("p", "ns"))  # no queue "default"
        c.snapshot().close()
        assert len(got) == 1 and 'queue "default" does not exist' in got[0]
        assert c.warnings == 1
