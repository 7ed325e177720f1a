"""Cluster, Snapshot, Conf, Session and Scenario: owners of C handles, each released by its
close() (free() for a Session, whose close() ends the cycle) or its context manager; __del__
releases a forgotten one, but explicit release is the rule."""

import ctypes
import os
import threading
from datetime import datetime, timezone

from . import _capi as C
from ._desc import Builder, enum, millis
from .decisions import Decisions
from .errors import TephraError, check
from .objects import (HyperNode, Node, Pod, PodDisruptionBudget, PodGroup, PriorityClass, Queue,
                      Quota)

lib = C.lib


class _Diag:
    """A tph_diag with its warning sink: `warn` a callable taking the message, None for the
    library's default (stderr)."""

    def __init__(self, warn=None):
        self.c = C.Diag()
        self._fn = None
        if warn is not None:
            self._fn = C.WARN_FN(lambda ud, msg: warn(msg.decode(errors="replace")))
            self.c.warn = self._fn

    @property
    def ref(self):
        return ctypes.byref(self.c)


class _Handle:
    """An owned C handle, released once by _release (under the object's lock)."""
    _h = None

    def __init__(self):
        self._lock = threading.RLock()

    def _live(self, what):
        if not self._h:
            raise TephraError.invalid(f"{what} is closed")
        return self._h

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._dispose()

    def _dispose(self):
        with self._lock:
            h, self._h = self._h, None
            if h:
                self._release(h)

    def __del__(self):
        try:
            self._dispose()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass


class Conf(_Handle):
    """A scheduler configuration (volcano-scheduler.conf format), immutable and shareable;
    sessions hold it, so it may be closed while they run."""

    def __init__(self, handle, owner=None):
        super().__init__()
        self._h, self._owner = handle, owner

    @classmethod
    def _load(cls, call):
        d, out = _Diag(), ctypes.c_void_p()
        check(call(ctypes.byref(out), d.ref), d.c)
        return cls(out.value)

    @classmethod
    def load(cls, path):
        """Read a conf file; an enable flag left out of a plugin entry is true, as in Volcano."""
        return cls._load(lambda out, d: lib.tph_conf_load_file(os.fsencode(path), True, out, d))

    @classmethod
    def parse(cls, text, name="<conf>"):
        raw = text.encode() if isinstance(text, str) else bytes(text)
        return cls._load(lambda out, d: lib.tph_conf_load_string(raw, len(raw), name.encode(),
                                                                 True, out, d))

    @classmethod
    def default(cls):
        """Volcano's built-in conf: actions "enqueue, allocate, backfill", its default tiers."""
        return cls.parse(C.VOLCANO_DEFAULT_CONF, "volcano default conf")

    @property
    def actions(self):
        with self._lock:
            h = self._live("conf")
            return [lib.tph_conf_action(h, i).decode() for i in range(lib.tph_conf_action_count(h))]

    def close(self):
        """Give up the hold on the conf; a no-op for a scenario's (the scenario releases it)."""
        if self._owner is None:
            self._dispose()

    def _release(self, h):
        lib.tph_conf_free(h)


class Snapshot(_Handle):
    """An immutable snapshot of a cluster; sessions hold it, so it may be closed once they are
    open."""

    def __init__(self, handle):
        super().__init__()
        self._h = handle

    def _count(self, f):
        with self._lock:
            return f(self._live("snapshot"))

    nodes = property(lambda self: self._count(lib.tph_snapshot_node_count))
    tasks = property(lambda self: self._count(lib.tph_snapshot_task_count))
    jobs = property(lambda self: self._count(lib.tph_snapshot_job_count))

    def _release(self, h):
        lib.tph_snapshot_release(h)


_default_conf = []


class Session(_Handle):
    """One scheduling cycle over a snapshot: run(), close() (podgroup phases; decisions become
    readable), then Cluster.apply(session) and free(). As a context manager it is freed at the
    end of the block. It holds its snapshot and conf."""

    def __init__(self, snapshot, conf=None, threads=0, naive=False, plugin_dir=None,
                 profile=False, shape_cache_bytes=0, warn=None):
        super().__init__()
        if conf is None:  # Volcano's default conf, as Volcano runs without a conf file
            if not _default_conf:
                _default_conf.append(Conf.default())
            conf = _default_conf[0]
        self._d = _Diag(warn)  # the session may report to it between calls: it lives as long
        opts = C.SessionOpts(threads, naive, os.fsencode(plugin_dir) if plugin_dir else None,
                             profile, shape_cache_bytes)
        out = ctypes.c_void_p()
        with snapshot._lock, conf._lock:
            rc = lib.tph_session_open(snapshot._live("snapshot"), conf._live("conf"),
                                      ctypes.byref(opts), ctypes.byref(out), self._d.ref)
        check(rc, self._d.c)
        self._h = out.value

    def _call(self, f):
        with self._lock:
            check(f(self._live("session"), self._d.ref), self._d.c)

    def run(self):
        """Run the conf's actions in order."""
        self._call(lib.tph_session_run)

    def close(self):
        """End the cycle: plugins close, podgroup phases are computed, decisions() is readable.
        The session's memory stays until free() (or the end of its with block)."""
        self._call(lib.tph_session_close)

    def decisions(self):
        """The decision log, copied into plain Python data (valid after free())."""
        with self._lock:
            log = lib.tph_session_decisions(self._live("session"))
            if not log:
                raise TephraError.invalid("session is not closed: no decisions yet")
            return Decisions.from_log(log.contents)

    @property
    def warnings(self):
        return self._d.c.warnings

    def free(self):
        """Release the session (and its holds on the snapshot and conf); a no-op the second
        time."""
        self._dispose()

    def __exit__(self, *exc):
        self.free()

    def _release(self, h):
        lib.tph_session_free(h)


class Cluster(_Handle):
    """The cluster cache: put and remove objects, snapshot(), apply() a closed session. Calls
    are serialised by a lock. Snapshots and sessions hold the cache, so it may be closed while
    they live. `warn`: a callable for warnings (None: stderr)."""

    def __init__(self, warn=None, _handle=None, _owner=None):
        super().__init__()
        self._d, self._owner = _Diag(warn), _owner
        if _handle is None:
            out = ctypes.c_void_p()
            check(lib.tph_cluster_create(ctypes.byref(out)), self._d.c)
            _handle = out.value
        self._h = _handle

    def _call(self, f, *args):
        with self._lock:
            check(f(self._live("cluster"), *args, self._d.ref), self._d.c)

    def _put(self, build, call, obj, kind):
        if not isinstance(obj, kind):
            raise TypeError(f"expected a tephra.{kind.__name__}, got {type(obj).__name__}")
        b = Builder()
        desc = build(b, obj)
        self._call(call, ctypes.byref(desc))

    def put_node(self, node):
        self._put(Builder.node, lib.tph_cluster_put_node, node, Node)

    def put_pod(self, pod):
        self._put(Builder.pod, lib.tph_cluster_put_pod, pod, Pod)

    def put_podgroup(self, podgroup):
        self._put(Builder.podgroup, lib.tph_cluster_put_podgroup, podgroup, PodGroup)

    def put_queue(self, queue):
        self._put(Builder.queue, lib.tph_cluster_put_queue, queue, Queue)

    def put_priority_class(self, pc):
        self._put(Builder.priority_class, lib.tph_cluster_put_priority_class, pc, PriorityClass)

    def put_hypernode(self, hypernode):
        self._put(Builder.hypernode, lib.tph_cluster_put_hypernode, hypernode, HyperNode)

    def put_quota(self, quota):
        self._put(Builder.quota, lib.tph_cluster_put_quota, quota, Quota)

    def put_pdb(self, pdb):
        self._put(Builder.pdb, lib.tph_cluster_put_pdb, pdb, PodDisruptionBudget)

    _PUTS = {Node: put_node, Pod: put_pod, PodGroup: put_podgroup, Queue: put_queue,
             PriorityClass: put_priority_class, HyperNode: put_hypernode, Quota: put_quota,
             PodDisruptionBudget: put_pdb}

    def put(self, *objects):
        """Add or replace any objects, each by its kind."""
        for o in objects:
            put = self._PUTS.get(type(o))
            if put is None:
                raise TypeError(f"cannot put a {type(o).__name__}")
            put(self, o)

    def remove_node(self, name):
        self._call(lib.tph_cluster_remove_node, name.encode())

    def remove_pod(self, namespace, name):
        self._call(lib.tph_cluster_remove_pod, namespace.encode(), name.encode())

    def remove_podgroup(self, namespace, name):
        self._call(lib.tph_cluster_remove_podgroup, namespace.encode(), name.encode())

    def remove_queue(self, name):
        self._call(lib.tph_cluster_remove_queue, name.encode())

    def remove_pdb(self, namespace, name):
        self._call(lib.tph_cluster_remove_pdb, namespace.encode(), name.encode())

    def set_shard(self, mode, name="", nodes=()):
        """The shard this scheduler owns: mode "hard" or "soft" ("": none)."""
        b = Builder()
        self._call(lib.tph_cluster_set_shard, enum("shard mode", mode, ("", "hard", "soft")),
                   b.s(name), b.strs(nodes))

    @property
    def node_count(self):
        with self._lock:
            return lib.tph_cluster_node_count(self._live("cluster"))

    @property
    def pod_count(self):
        with self._lock:
            return lib.tph_cluster_pod_count(self._live("cluster"))

    @property
    def warnings(self):
        return self._d.c.warnings

    def snapshot(self, now=None):
        """An immutable snapshot; `now` (a datetime, None: the epoch) is the session clock."""
        out = ctypes.c_void_p()
        self._call(lib.tph_cluster_snapshot, millis(now), ctypes.byref(out))
        return Snapshot(out.value)

    def apply(self, session):
        """Write a closed session's decisions into the cache: binds make pods Bound, evictions
        Releasing, pipelined tasks nominated, podgroups get their phase. Moving pods to Running
        or removing evicted ones stays the host's, when the kubelet says so."""
        with session._lock:
            self._call(lib.tph_cluster_apply, session._live("session"))

    def schedule(self, now=None, conf=None, **options):
        """One cycle: snapshot, session (conf None: Volcano's default; options as Session's),
        run, close, apply; returns the decisions."""
        with self.snapshot(now) as snap, Session(snap, conf, **options) as s:
            snap.close()
            s.run()
            s.close()
            self.apply(s)
            return s.decisions()

    def close(self):
        """Give up the hold on the cache; a no-op for a scenario's (the scenario releases it)."""
        if self._owner is None:
            self._dispose()

    def _release(self, h):
        if self._owner is None:
            lib.tph_cluster_destroy(h)


class Scenario(_Handle):
    """A loaded scenario file: a filled cache (`cluster`), its conf (`conf`, None without one)
    and its clock (`now`). Its cluster and conf stop working once it is closed."""

    def __init__(self, load, warn=None):
        super().__init__()
        d, out = _Diag(warn), ctypes.c_void_p()
        check(load(ctypes.byref(out), d.ref), d.c)
        self._h = out.value
        self.cluster = Cluster(warn, _handle=lib.tph_scenario_cluster(self._h), _owner=self)
        self.cluster._d = d
        conf = lib.tph_scenario_conf(self._h)
        self.conf = Conf(conf, owner=self) if conf else None
        self.name = lib.tph_scenario_name(self._h).decode()
        self.now = datetime.fromtimestamp(lib.tph_scenario_now(self._h) / 1000, timezone.utc)

    def run(self, **options):
        """One session as `tephra run` does: a snapshot at `now`, the scenario's conf (Volcano's
        default without one), run, close; returns the decisions, the cache unchanged."""
        with self.cluster.snapshot(self.now) as snap, Session(snap, self.conf, **options) as s:
            s.run()
            s.close()
            return s.decisions()

    def _release(self, h):
        for o in (self.cluster, self.conf):
            if o is not None:
                with o._lock:
                    o._h = None
        lib.tph_scenario_free(h)


def load_scenario(path, warn=None):
    """Load a scenario file (shared/spec/scenario-format.md). Bad input raises TephraError
    naming the file, line, column, object and field."""
    raw = os.fsencode(path)
    return Scenario(lambda out, d: lib.tph_scenario_load_file(raw, out, d), warn)


def load_scenario_bytes(data, name=None, warn=None):
    """Load a scenario from bytes (or str); `name` stands for it in messages."""
    raw = data.encode() if isinstance(data, str) else bytes(data)
    cname = name.encode() if name else None
    return Scenario(lambda out, d: lib.tph_scenario_load_buffer(raw, len(raw), cname, out, d), warn)
