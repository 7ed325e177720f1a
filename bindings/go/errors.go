package tephra

// #include "shim.h"
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// Error is a failed tephra call: the library's status code, its name (tph_errname) and the
// message the call left in its diagnostics, which names the file, line, column, object and
// field where the input was at fault ("s.yaml:12:7: pod c1/p1: field requests.cpu: ...").
type Error struct {
	Code    int    // the negative TPH_E* status
	Name    string // "TPH_EPARSE", ...
	Message string // why; never empty
}

func (e *Error) Error() string { return "tephra: " + e.Name + ": " + e.Message }

// Is makes errors.Is(err, tephra.ErrParse) (or any other sentinel below) compare status codes.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func sentinel(code C.int) *Error {
	return &Error{Code: int(code), Name: C.GoString(C.tph_errname(code)),
		Message: C.GoString(C.tph_strerror(code))}
}

// Sentinels for errors.Is, one per status code.
var (
	ErrNoMem        = sentinel(C.TPH_ENOMEM)
	ErrInvalid      = sentinel(C.TPH_EINVAL)
	ErrNotFound     = sentinel(C.TPH_ENOENT)
	ErrExists       = sentinel(C.TPH_EEXIST)
	ErrParse        = sentinel(C.TPH_EPARSE)
	ErrIO           = sentinel(C.TPH_EIO)
	ErrRange        = sentinel(C.TPH_ERANGE)
	ErrNotSupported = sentinel(C.TPH_ENOTSUP)
	ErrABI          = sentinel(C.TPH_EABI)
	ErrFrozen       = sentinel(C.TPH_EFROZEN)
	ErrPlugin       = sentinel(C.TPH_EPLUGIN)
)

// errorf is an error found on the Go side (a bad enum value, an object used after Close).
func errorf(code C.int, format string, args ...any) error {
	e := sentinel(code)
	e.Message = fmt.Sprintf(format, args...)
	return e
}

// WarnFunc receives the library's warnings (never fatal: a podgroup whose queue does not exist,
// a plugin argument of the wrong type, ...). Where none is given they go to stderr as
// `tephra: warning: ...`, the library's default.
type WarnFunc func(msg string)

// Silent drops warnings.
func Silent(string) {}

// diag is a tph_diag in C memory: a session keeps a pointer to the diag of its last call (for
// probe warnings), so it must never live in Go memory. Its owner serialises the calls using it.
type diag struct {
	c      *C.tph_diag
	handle cgo.Handle // the WarnFunc, or 0
}

func newDiag(warn WarnFunc) *diag {
	d := &diag{c: (*C.tph_diag)(C.calloc(1, C.sizeof_tph_diag))}
	if d.c == nil {
		panic("tephra: out of memory")
	}
	if warn != nil {
		d.handle = cgo.NewHandle(warn)
		C.tph_go_diag_warn_to(d.c, C.uintptr_t(d.handle))
	}
	return d
}

func (d *diag) free() {
	if d.c == nil {
		return
	}
	C.free(unsafe.Pointer(d.c))
	d.c = nil
	if d.handle != 0 {
		d.handle.Delete()
		d.handle = 0
	}
}

// err turns a status into an error carrying the diag's message (nil for TPH_OK and DECLINED).
func (d *diag) err(rc C.int) error {
	if rc >= 0 {
		return nil
	}
	e := sentinel(rc)
	if msg := C.GoString(&d.c.msg[0]); msg != "" {
		e.Message = msg
	}
	return e
}

// Warnings counts the warnings the diag has emitted.
func (d *diag) warnings() int { return int(d.c.warnings) }
