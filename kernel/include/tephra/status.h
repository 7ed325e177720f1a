/* Status codes and diagnostics shared by every tephra call that can fail.
 *
 * Functions return an int: 0 is success, TPH_DECLINED means "not applicable", negative values
 * are errors named by tph_strerror(). The human-readable detail of an error goes to a
 * tph_diag the caller owns, so the caller never frees strings. */
#ifndef TEPHRA_STATUS_H
#define TEPHRA_STATUS_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

/* Every status once (libuv's UV_ERRNO_MAP): name, value, description. */
#define TPH_STATUS_MAP(X)                                                                    \
	X(OK, 0, "ok")                                                                       \
	X(DECLINED, 1, "declined") /* not applicable / nothing to do; not an error */        \
	X(ENOMEM, -1, "out of memory")                                                       \
	X(EINVAL, -2, "invalid value")  /* a bad argument or a bad value in the input */     \
	X(ENOENT, -3, "no such object") /* a named object or file does not exist */          \
	X(EEXIST, -4, "object already exists")                                               \
	X(EPARSE, -5, "malformed input")      /* the input is not well-formed */             \
	X(EIO, -6, "input/output error")      /* reading or writing a file failed */         \
	X(ERANGE, -7, "value out of range")   /* a value is out of range or overflows */     \
	X(ENOTSUP, -8, "not supported")       /* valid but not supported by this build */    \
	X(EABI, -9, "ABI version mismatch")   /* an external plugin built for another ABI */ \
	X(EFROZEN, -10, "registry is frozen") /* registration after the registry froze */    \
	X(EPLUGIN, -11, "plugin could not be loaded") /* dlopen failed, or no entry symbol */

enum {
#define TPH_STATUS_ENUM(name, value, text) TPH_##name = value,
	TPH_STATUS_MAP(TPH_STATUS_ENUM)
#undef TPH_STATUS_ENUM
};

/* A short, static description of a status code ("unknown status" for others). */
const char *tph_strerror(int status);
/* The status code's name ("TPH_ENOMEM"), or NULL for a value that is none. */
const char *tph_errname(int status);

/* Receives warnings (never fatal) as they happen; `msg` is valid only during the call. */
typedef void (*tph_warn_fn)(void *ud, const char *msg);

/* A warning sink that drops every warning: set `warn = TPH_WARN_SILENT` to silence a diag on
 * purpose (warnings are still counted). */
void tph_warn_silent(void *ud, const char *msg);
#define TPH_WARN_SILENT tph_warn_silent

/* Error detail and warning sink, owned by the caller; every call that takes one accepts NULL.
 *
 * `msg`: every public call that takes a diag empties it first, so after a successful call it is
 * "" and after a failed one it says why, naming the file, line and column, the object
 * (`pod c1/p1`) and the field.
 * `warn`: warnings (a pod whose podgroup's queue does not exist, a plugin argument of the wrong
 * type, ...) go to this callback; NULL, and a NULL diag, print them to stderr as
 * `tephra: warning: ...`, so nothing is lost by default; TPH_WARN_SILENT drops them. */
typedef struct tph_diag {
	char msg[1024];
	tph_warn_fn warn; /* NULL: stderr; TPH_WARN_SILENT: dropped */
	void *warn_ud;
	unsigned warnings; /* how many warnings were emitted (never reset by the library) */
} tph_diag;

/* Set the error message (printf-style); returns `status` so callers can
 * `return tph_diag_set(d, TPH_EINVAL, "...")`. `d` may be NULL. */
int tph_diag_set(tph_diag *d, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Emit a warning through the sink (printf-style). `d` may be NULL (stderr). */
void tph_diag_warn(tph_diag *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void tph_diag_vwarn(tph_diag *d, const char *fmt, va_list ap);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
