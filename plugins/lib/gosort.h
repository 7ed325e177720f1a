/* Go's sort.Slice, step for step (the pdqsort of src/sort/zsortfunc.go, Go 1.19 and later), for
 * comparators that are not a strict weak order: where Volcano sorts a deterministic list with
 * such a comparator (the kubelet CPU accumulator's freeCPUs), the result depends on the exact
 * sequence of comparisons and swaps, which this reproduces. Serial, no allocation. */
#ifndef TPH_PLUGINS_LIB_GOSORT_H
#define TPH_PLUGINS_LIB_GOSORT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct go_less_swap {
	bool (*less)(void *ctx, uint32_t i, uint32_t j);
	void (*swap)(void *ctx, uint32_t i, uint32_t j);
	void *ctx;
} go_less_swap;

/* sort.Slice over n items: limit = bits.Len(n), pdqsort_func(data, 0, n, limit). */
void go_sort_slice(const go_less_swap *data, uint32_t n);

#endif
