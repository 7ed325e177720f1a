"""Scenarios: loading, running, and the same decisions as `tephra run --format json`."""

import json
import os
import subprocess
import sys

import pytest

import tephra

with open(os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "gangs.yaml")) as _f:
    GANGS = _f.read()  # bindings/testdata/gangs.yaml, loaded from memory


@pytest.mark.parametrize("threads", [1, 2])
def test_scenario_binds(threads):
    with tephra.load_scenario_bytes(GANGS, "gangs.yaml") as scn:
        assert scn.name == "two gangs"
        assert scn.now.isoformat() == "2026-01-01T00:10:00+00:00"
        assert scn.cluster.node_count == 2 and scn.conf.actions == ["enqueue", "allocate", "backfill"]
        d = scn.run(threads=threads)
    assert [(b.pod, b.node) for b in d.binds] == [
        ("team/fits-0", "n1"), ("team/fits-1", "n2"), ("team/fits-2", "n1")]
    assert [p.pod for p in d.pending] == ["team/toobig-0", "team/toobig-1"]
    assert d.jobs_total == 2 and set(d.actions) == {"enqueue", "allocate", "backfill"}


def test_closed_scenario_refuses():
    scn = tephra.load_scenario_bytes(GANGS)
    cluster = scn.cluster
    cluster.close()  # a no-op: the scenario owns its cache and conf
    scn.conf.close()
    assert len(scn.run().binds) == 3
    scn.close()
    scn.close()  # a no-op
    with pytest.raises(tephra.TephraError, match="closed"):
        cluster.snapshot()


def cli(root):
    path = os.environ.get("TEPHRA_CLI") or os.path.join(root, "build", "bin", "tephra")
    if not os.path.exists(path):
        pytest.skip("no build/bin/tephra (set TEPHRA_CLI)")
    return path


def test_same_as_cli(root):
    scenario = os.path.join(root, "bindings", "testdata", "small.yaml")
    out = subprocess.run([cli(root), "run", scenario, "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    want = json.loads(out)
    del want["scenario"], want["timing"]
    with tephra.load_scenario(scenario) as scn:
        got = scn.run().to_json()
    assert got == want
    assert want["binds"] and want["pending"]


def test_example_pending(root):
    """examples/pending.py says why each pod is pending."""
    script = os.path.join(root, "bindings", "python", "examples", "pending.py")
    scenario = os.path.join(root, "bindings", "testdata", "small.yaml")
    r = subprocess.run([sys.executable, script, scenario], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "bindings small: 3 bound, 4 pending" in r.stdout
    assert "  team/huge-0: 2 Insufficient cpu" in r.stdout
    assert "  podgroup team/wide: Inqueue" in r.stdout
