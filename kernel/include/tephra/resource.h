/* Resource model: a per-snapshot dimension table and exact integer quantities.
 *
 * A resource vector is a fixed-length row of int64 with one entry per dimension of the
 * table it was built against. Units are exact: cpu in millicores, memory and
 * ephemeral-storage in bytes, every other resource (pods, nvidia.com/gpu, ...) in
 * milli-units. Arithmetic never uses floating point. */
#ifndef TEPHRA_RESOURCE_H
#define TEPHRA_RESOURCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The four dimensions every table starts with, in this order; scalars follow. */
enum {
	TPH_RES_CPU = 0,
	TPH_RES_MEMORY = 1,
	TPH_RES_PODS = 2,
	TPH_RES_EPHEMERAL = 3,
	TPH_RES_FIXED = 4,
};

/* Hard cap on dimensions so hot loops can keep a request row on the stack. */
#define TPH_RES_MAX 32

/* How a quantity is scaled into its exact integer unit. */
typedef enum tph_res_unit {
	TPH_UNIT_MILLI = 0, /* cpu and every scalar: value * 1000 */
	TPH_UNIT_BYTES = 1, /* memory, ephemeral-storage: value * 1 */
} tph_res_unit;

/* Parse a Kubernetes quantity (the full grammar: optional sign, decimal digits with an
 * optional fraction, then one suffix among m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei, or
 * a decimal exponent e<int>/E<int>) and scale it to `unit`. Fractions of the target unit
 * round up, as Kubernetes' Value()/MilliValue() do. Negative values are rejected (no
 * resource is negative). On error returns a negative status and sets *why to a static
 * string that says what is wrong ("not a number", "unknown suffix", "overflows int64", ...).
 * `len` is the length of `s`; the string need not be NUL-terminated. */
int tph_quantity_parse(const char *s, size_t len, tph_res_unit unit, int64_t *out,
		       const char **why);

/* Format an exact value back as the shortest Kubernetes quantity that parses to it
 * (e.g. 1500 millicores -> "1500m", 2 cores -> "2", 4294967296 bytes -> "4Gi").
 * Writes at most `cap` bytes including the NUL; returns the length it needed. */
size_t tph_quantity_format(int64_t v, tph_res_unit unit, char *buf, size_t cap);

/* The unit a resource name is kept in: bytes for memory and ephemeral-storage
 * (and hugepages-*), milli-units for everything else. */
tph_res_unit tph_res_unit_of(const char *name, size_t len);

#ifdef __cplusplus
}
#endif
#endif
