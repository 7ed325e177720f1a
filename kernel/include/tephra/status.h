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

enum {
	TPH_OK = 0,
	TPH_DECLINED = 1,  /* not applicable / nothing to do; not an error */
	TPH_ENOMEM = -1,   /* an allocation failed */
	TPH_EINVAL = -2,   /* a bad argument or a bad value in the input */
	TPH_ENOENT = -3,   /* a named object or file does not exist */
	TPH_EEXIST = -4,   /* an object of that name already exists */
	TPH_EPARSE = -5,   /* the input is not well-formed */
	TPH_EIO = -6,      /* reading or writing a file failed */
	TPH_ERANGE = -7,   /* a value is out of range or overflows */
	TPH_ENOTSUP = -8,  /* valid but not supported by this build */
	TPH_EABI = -9,     /* an external plugin was built for another ABI */
	TPH_EFROZEN = -10, /* registration after the registry was frozen */
};

/* A short, static description of a status code. */
const char *tph_strerror(int status);

/* Receives warnings (never fatal) as they happen; `msg` is valid only during the call. */
typedef void (*tph_warn_fn)(void *ud, const char *msg);

/* Error detail and warning sink, owned by the caller. A failing call writes a message that
 * names the file, line and column, the object (`pod c1/p1`) and the field. */
typedef struct tph_diag {
	char msg[1024];
	tph_warn_fn warn; /* NULL: warnings are dropped */
	void *warn_ud;
	unsigned warnings; /* how many warnings were emitted */
} tph_diag;

/* Set the error message (printf-style); returns `status` so callers can
 * `return tph_diag_set(d, TPH_EINVAL, "...")`. `d` may be NULL. */
int tph_diag_set(tph_diag *d, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Emit a warning through the sink (printf-style). `d` may be NULL. */
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
