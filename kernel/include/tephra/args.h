/* Plugin and action arguments: a read-only tree from the conf's `arguments:` mappings, typed
 * getters, and table-driven argument specs.
 *
 * Getters apply "default first, then override": the caller sets *out to the default; a getter
 * overwrites it only when the key is present and well-typed. A value of the wrong type leaves
 * *out alone and warns (never fails), as Volcano ignores it. Keys are matched whole, dots
 * included (`binpack.resources.nvidia.com/gpu` is one key).
 *
 * An integer (tph_args_int, TPH_ARG_INT) must lie within +-TPH_ARG_INT_LIMIT, the range of Go's
 * int on a 32-bit build: far above any weight, count or percentage a conf holds, and small
 * enough that plugins scale it (100 * weight, score * weight) in int64 without overflow, where
 * Volcano's int64 arithmetic would wrap. A larger value warns, naming the key, and leaves the
 * default (TPH_ERANGE). */
#ifndef TEPHRA_ARGS_H
#define TEPHRA_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tephra/resource.h"
#include "tephra/status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

typedef struct tph_args tph_args; /* a mapping, a sequence or a scalar */

typedef enum tph_arg_type {
	TPH_ARG_INT = 0,  /* int64_t */
	TPH_ARG_FLOAT,    /* double */
	TPH_ARG_BOOL,     /* bool */
	TPH_ARG_STRING,   /* const char * (owned by the conf) */
	TPH_ARG_DURATION, /* int64_t milliseconds; Go syntax: 30s, 1h30m, 500ms */
	TPH_ARG_QUANTITY, /* int64_t milli-units (a Kubernetes quantity) */
	TPH_ARG_LIST,     /* const tph_args * (a sequence, or a comma-separated string) */
	TPH_ARG_MAP,      /* const tph_args * (a mapping) */
} tph_arg_type;

/* One declared argument. The framework applies the table before on_session_open: the
 * default (parsed like a conf value) then the conf's value, written at `offset` in the
 * plugin's state. Bounds apply to INT/FLOAT/DURATION when min < max (an out-of-bounds value
 * warns and keeps the default).
 *
 * A descriptor's table declares every argument its plugin or action reads: the framework warns
 * about any other key in the conf (Volcano ignores unknown keys; we say so). Besides plain
 * entries a table may hold:
 * - a key ending in '*': a prefix pattern (`binpack.resources.*`) for families of keys;
 * - offset TPH_ARG_NOFIELD: a known key the plugin reads itself with the getters;
 * - `include`: another table whose keys are known too (its entries are not applied).
 * A NULL table declares no arguments. */
#define TPH_ARG_NOFIELD SIZE_MAX

typedef struct tph_arg_spec {
	const char *key;
	tph_arg_type type;
	const char *def; /* NULL: zero / false / NULL */
	double min, max;
	size_t offset;
	const char *help;
	const struct tph_arg_spec *include; /* non-NULL: an include entry (key ignored) */
} tph_arg_spec;

#define TPH_ARG_INT_LIMIT 2147483647

/* Where warnings go while getters run (set by the framework per plugin). */
void tph_args_set_diag(const tph_args *a, tph_diag *d, const char *owner);

int tph_args_int(const tph_args *a, const char *key, int64_t *out);
int tph_args_float(const tph_args *a, const char *key, double *out);
int tph_args_bool(const tph_args *a, const char *key, bool *out);
int tph_args_string(const tph_args *a, const char *key, const char **out);
int tph_args_duration(const tph_args *a, const char *key, int64_t *out_ms);
int tph_args_quantity(const tph_args *a, const char *key, tph_res_unit unit, int64_t *out);
/* The child mapping or sequence under `key`, or NULL. */
const tph_args *tph_args_child(const tph_args *a, const char *key);
/* How gopkg.in/yaml.v2 types the value under `key` when Volcano decodes arguments into
 * interface{} values, for the arguments Volcano reads with a type switch (an int counted one
 * way, a string parsed another): TPH_ARG_INT (a Go int), TPH_ARG_FLOAT, TPH_ARG_BOOL,
 * TPH_ARG_STRING, TPH_ARG_LIST (a sequence) or TPH_ARG_MAP. TPH_ENOENT when the key is absent
 * (or `a` is not a mapping); TPH_EINVAL for the other types (null, a timestamp, an integer
 * beyond int64). Never warns. */
int tph_args_type(const tph_args *a, const char *key);

/* Iteration over a mapping or a sequence. */
uint32_t tph_args_count(const tph_args *a);
const char *tph_args_key_at(const tph_args *a, uint32_t i); /* NULL for sequences */
const tph_args *tph_args_at(const tph_args *a, uint32_t i);
/* The text of a scalar, or NULL. */
const char *tph_args_text(const tph_args *a);

/* Apply a spec table (terminated by key == NULL) to `dst`. Returns TPH_OK; problems warn.
 * Patterns, NOFIELD and include entries are skipped. */
int tph_args_apply(const tph_args *a, const tph_arg_spec *spec, void *dst, tph_diag *d,
                   const char *owner);

/* Warn about every key of the mapping `a` that `spec` does not declare (see above); returns
 * how many were unknown. */
uint32_t tph_args_check_unknown(const tph_args *a, const tph_arg_spec *spec, tph_diag *d,
                                const char *owner);

/* ---- Go's readings of strings, as Volcano's plugins parse annotations and arguments ---- */

/* strconv.ParseInt(s, 10, bits), as Kubernetes and Volcano read integers. */
bool tph_parse_int(const char *s, int bits, int64_t *out);
/* A Go duration (`300ms`, `-1.5h`, `2h45m`, `0`; units ns us µs ms s m h) in nanoseconds.
 * On error returns TPH_EINVAL or TPH_ERANGE and sets *why. */
int tph_parse_duration(const char *s, size_t len, int64_t *ns, const char **why);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
