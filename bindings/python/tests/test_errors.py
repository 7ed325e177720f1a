"""Errors: TephraError with the status code, its name and the message naming file and line."""

import os

import pytest

import tephra
from tephra import Node, Pod


def test_bad_yaml_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("nodes:\n  - {name: n1, allocatable: {cpu: abc}}\n")
    with pytest.raises(tephra.TephraError) as e:
        tephra.load_scenario(bad)
    err = e.value
    assert err.code == tephra.Status.EINVAL and err.name == "TPH_EINVAL"
    assert "bad.yaml:2:" in err.message and "allocatable.cpu" in err.message
    assert str(err).startswith("TPH_EINVAL: ")
    with pytest.raises(tephra.TephraError) as e:
        tephra.load_scenario_bytes("nodes: [\n", "broken.yaml")
    assert e.value.name == "TPH_EPARSE" and "broken.yaml:2:" in e.value.message
    with pytest.raises(tephra.TephraError) as e:
        tephra.load_scenario(tmp_path / "none.yaml")
    assert e.value.code == tephra.Status.ENOENT
    with pytest.raises(tephra.TephraError, match="c.conf:1:"):
        tephra.Conf.parse('actions: "allocate, frobnicate"\n', "c.conf")


def test_status_names_match_the_library():
    for s in tephra.Status:
        if s < 0:
            assert tephra.TephraError(s).name == "TPH_" + s.name


def test_descriptors_are_always_initialised():
    """Every object reaches the library from its INIT values: what it refuses is a missing
    name, never an uninitialised descriptor."""
    with tephra.Cluster() as c:
        for obj in (Node(""), Pod(""), tephra.PodGroup(""), tephra.Queue(""),
                    tephra.PriorityClass(""), tephra.Quota(""), tephra.HyperNode(""),
                    tephra.PodDisruptionBudget("")):
            with pytest.raises(tephra.TephraError) as e:
                c.put(obj)
            assert e.value.code == tephra.Status.EINVAL
            assert "empty name" in e.value.message and "not initialised" not in e.value.message


def test_bad_values():
    with tephra.Cluster() as c:
        with pytest.raises(tephra.TephraError, match="'Sleeping' is none of"):
            c.put_pod(Pod("p", phase="Sleeping"))
        with pytest.raises(tephra.TephraError, match="cpu: 'abc'"):
            c.put_node(Node("n", allocatable={"cpu": "abc"}))
        with pytest.raises(tephra.TephraError) as e:
            c.remove_pod("default", "nobody")
        assert e.value.code == tephra.Status.ENOENT
        with pytest.raises(TypeError):
            c.put_node(Pod("p"))
    assert tephra.quantity("memory", "1Gi") == 1 << 30 and tephra.quantity("cpu", "1") == 1000


def test_library_path(tmp_path):
    lib = tmp_path / "build" / "lib"
    lib.mkdir(parents=True)
    (lib / "libtephra.so.0").write_text("")
    pkg = tmp_path / "bindings" / "python" / "src" / "tephra"
    pkg.mkdir(parents=True)
    assert tephra.library_path({"TEPHRA_LIBRARY": "/x/libtephra.so"}, str(pkg)) == "/x/libtephra.so"
    assert tephra.library_path({}, str(pkg)) == str(lib / "libtephra.so.0")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert "tephra" in tephra.library_path({}, str(elsewhere))
    assert tephra.version() == "0.1.0"


@pytest.mark.skipif(not os.environ.get("TEPHRA_EXPECT_INSTALLED"), reason="run from the tree")
def test_runs_the_installed_package():
    """Under ctest the package comes from the venv `pip install bindings/python` filled."""
    import sys
    assert tephra.__file__.startswith(sys.prefix) and "site-packages" in tephra.__file__
    assert tephra.library_path() == os.environ["TEPHRA_LIBRARY"]
