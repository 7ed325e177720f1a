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
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

/* The four dimensions every table starts with, in this order; scalars follow. */
enum {
	TPH_RES_CPU = 0,
	TPH_RES_MEMORY = 1,
	TPH_RES_PODS = 2,
	TPH_RES_EPHEMERAL = 3,
	TPH_RES_FIXED = 4,
};

/* The largest value the cluster cache keeps (2^53 units: 8 PiB of memory, 9*10^12 cpus; the
 * range where Volcano's float64 resource arithmetic is exact). Larger values are refused, so
 * sums over the objects of a cluster stay far from int64 overflow. */
#define TPH_RES_VALUE_MAX (INT64_C(1) << 53)

/* The most of one resource a cluster holds, summed over the objects of one kind (node
 * allocatable, pod requests, podgroup minResources, queue capability/deserved/guarantee,
 * quota hard/used): 2^60 units, 128 times TPH_RES_VALUE_MAX (an exbibyte of memory, 10^15
 * cpus). Sums of a few such totals, which sessions and plugins keep, then stay in int64. A
 * snapshot of a cache above it fails with TPH_ERANGE, naming the object where the sum passes. */
#define TPH_RES_TOTAL_MAX (INT64_C(1) << 60)

/* The most distinct resource names one cluster cache holds: cpu, memory, pods,
 * ephemeral-storage and 28 more. Hot loops keep a request row on the stack and per-dimension
 * sets are 32-bit masks. A put that would add one more fails with TPH_ERANGE, naming the
 * object, the field and the resource. */
#define TPH_RES_MAX 32

/* How a quantity is scaled into its exact integer unit. */
typedef enum tph_res_unit {
	TPH_UNIT_MILLI = 0, /* cpu and every scalar: value * 1000 */
	TPH_UNIT_BYTES = 1, /* memory, ephemeral-storage: value * 1 */
} tph_res_unit;

/* Parse a Kubernetes quantity and scale it exactly to `unit`. Grammar: an optional sign,
 * digits with an optional fraction ("1", "1.5", "1.", ".5"; at least one digit), then at most
 * one suffix: n u m k M G T P E (powers of 10), Ki Mi Gi Ti Pi Ei (powers of 2), or a decimal
 * exponent e<int>/E<int> ("1e3", "5E-1"; a lone "E" is exa). No whitespace anywhere.
 * Fractions of the target unit round up, as Kubernetes' Value()/MilliValue() do ("0.5m" is
 * 1 millicore, "1.5" is 2 bytes); any number of digits is handled exactly.
 * Errors (a negative status, *why set to a static string when `why` is not NULL, *out left
 * untouched): TPH_EINVAL for bad syntax and for negative values ("negative quantity"; "-0" is
 * 0); TPH_ERANGE when the scaled value exceeds INT64_MAX ("quantity overflows int64").
 * `len` is the length of `s`; the string need not be NUL-terminated. */
int tph_quantity_parse(const char *s, size_t len, tph_res_unit unit, int64_t *out,
                       const char **why);

/* Format an exact value as a Kubernetes quantity that parses back to it in the same unit.
 * Milli-units: whole units without suffix ("2"), otherwise "<n>m" ("1500m"). Bytes: the
 * shortest of the largest exact binary suffix, the largest exact decimal suffix and plain
 * digits, ties going to binary ("4Gi", "1T", "1024k", "1536"). Negatives get a leading '-'.
 * snprintf contract: writes at most `cap` bytes including the NUL (nothing when cap is 0)
 * and returns the length it needed, excluding the NUL. */
size_t tph_quantity_format(int64_t v, tph_res_unit unit, char *buf, size_t cap);

/* The unit a resource name is kept in: bytes for memory and ephemeral-storage
 * (and hugepages-*), milli-units for everything else. */
tph_res_unit tph_res_unit_of(const char *name, size_t len);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
