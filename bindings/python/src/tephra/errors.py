"""TephraError: a failed call, with the library's status code, its name and the message."""

import enum

from . import _capi as C


class Status(enum.IntEnum):
    """tephra/status.h's codes (TPH_STATUS_MAP)."""
    OK = 0
    DECLINED = 1
    ENOMEM = -1
    EINVAL = -2
    ENOENT = -3
    EEXIST = -4
    EPARSE = -5
    EIO = -6
    ERANGE = -7
    ENOTSUP = -8
    EABI = -9
    EFROZEN = -10
    EPLUGIN = -11


class TephraError(Exception):
    """A call failed. `code` is the negative TPH_E* status, `name` its name ("TPH_EPARSE",
    tph_errname) and `message` why: for bad input the file, line and column, the object and
    the field ("s.yaml:12:7: pod c1/p1: field requests.cpu: not a number (\"abc\")")."""

    def __init__(self, code, message=""):
        self.code = int(code)
        name = C.lib.tph_errname(self.code)
        self.name = name.decode() if name else f"status {self.code}"
        self.message = message or C.lib.tph_strerror(self.code).decode()
        super().__init__(f"{self.name}: {self.message}")

    @classmethod
    def invalid(cls, message):
        return cls(Status.EINVAL, message)


def check(rc, diag):
    """Raise the TephraError of a failed call, with its diag's message."""
    if rc < 0:
        raise TephraError(rc, diag.msg.decode(errors="replace"))


def check_quantity(rc, resource, value, why):
    if rc < 0:
        reason = why.decode() if why else ""
        raise TephraError(rc, f"{resource}: {value!r}: {reason}")
