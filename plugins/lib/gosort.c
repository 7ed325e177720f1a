/* Go's sort.Slice (src/sort/zsortfunc.go and sort.go of Go 1.19+), transcribed: the same
 * comparisons and swaps in the same order, so a comparator that is not a strict weak order
 * leaves the items as Go leaves them. Indices are Go ints (signed). */
#include "gosort.h"

#define LESS(i, j) d->less(d->ctx, (uint32_t)(i), (uint32_t)(j))
#define SWAP(i, j) d->swap(d->ctx, (uint32_t)(i), (uint32_t)(j))

enum {
	UNKNOWN_HINT = 0,
	INCREASING_HINT,
	DECREASING_HINT
};

static int bits_len(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static void insertion_sort(const go_less_swap *d, long a, long b)
{
	for (long i = a + 1; i < b; i++)
		for (long j = i; j > a && LESS(j, j - 1); j--)
			SWAP(j, j - 1);
}

static void sift_down(const go_less_swap *d, long lo, long hi, long first)
{
	long root = lo;
	for (;;) {
		long child = 2 * root + 1;
		if (child >= hi)
			return;
		if (child + 1 < hi && LESS(first + child, first + child + 1))
			child++;
		if (!LESS(first + root, first + child))
			return;
		SWAP(first + root, first + child);
		root = child;
	}
}

static void heap_sort(const go_less_swap *d, long a, long b)
{
	long first = a, lo = 0, hi = b - a;
	for (long i = (hi - 1) / 2; i >= 0; i--)
		sift_down(d, i, hi, first);
	for (long i = hi - 1; i >= 0; i--) {
		SWAP(first, first + i);
		sift_down(d, lo, i, first);
	}
}

static long partition(const go_less_swap *d, long a, long b, long pivot, int *already)
{
	SWAP(a, pivot);
	long i = a + 1, j = b - 1;
	while (i <= j && LESS(i, a))
		i++;
	while (i <= j && !LESS(j, a))
		j--;
	if (i > j) {
		SWAP(j, a);
		*already = 1;
		return j;
	}
	SWAP(i, j);
	i++;
	j--;
	for (;;) {
		while (i <= j && LESS(i, a))
			i++;
		while (i <= j && !LESS(j, a))
			j--;
		if (i > j)
			break;
		SWAP(i, j);
		i++;
		j--;
	}
	SWAP(j, a);
	*already = 0;
	return j;
}

static long partition_equal(const go_less_swap *d, long a, long b, long pivot)
{
	SWAP(a, pivot);
	long i = a + 1, j = b - 1;
	for (;;) {
		while (i <= j && !LESS(a, i))
			i++;
		while (i <= j && LESS(a, j))
			j--;
		if (i > j)
			break;
		SWAP(i, j);
		i++;
		j--;
	}
	return i;
}

static int partial_insertion_sort(const go_less_swap *d, long a, long b)
{
	const int max_steps = 5;
	const long shortest_shifting = 50;
	long i = a + 1;
	for (int step = 0; step < max_steps; step++) {
		while (i < b && !LESS(i, i - 1))
			i++;
		if (i == b)
			return 1;
		if (b - a < shortest_shifting)
			return 0;
		SWAP(i, i - 1);
		if (i - a >= 2)
			for (long j = i - 1; j >= 1; j--) {
				if (!LESS(j, j - 1))
					break;
				SWAP(j, j - 1);
			}
		if (b - i >= 2)
			for (long j = i + 1; j < b; j++) {
				if (!LESS(j, j - 1))
					break;
				SWAP(j, j - 1);
			}
	}
	return 0;
}

static void break_patterns(const go_less_swap *d, long a, long b)
{
	long length = b - a;
	if (length < 8)
		return;
	uint64_t random = (uint64_t)length;
	uint64_t modulus = 1ull << bits_len((uint64_t)length);
	for (long idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1; idx++) {
		random ^= random << 13;
		random ^= random >> 7;
		random ^= random << 17;
		long other = (long)(random & (modulus - 1));
		if (other >= length)
			other -= length;
		SWAP(idx, a + other);
	}
}

static void order2(const go_less_swap *d, long *a, long *b, int *swaps)
{
	if (LESS(*b, *a)) {
		long t = *a;
		*a = *b;
		*b = t;
		(*swaps)++;
	}
}

static long median(const go_less_swap *d, long a, long b, long c, int *swaps)
{
	order2(d, &a, &b, swaps);
	order2(d, &b, &c, swaps);
	order2(d, &a, &b, swaps);
	return b;
}

static long choose_pivot(const go_less_swap *d, long a, long b, int *hint)
{
	const long shortest_ninther = 50;
	const int max_swaps = 4 * 3;
	long l = b - a;
	int swaps = 0;
	long i = a + l / 4 * 1, j = a + l / 4 * 2, k = a + l / 4 * 3;
	if (l >= 8) {
		if (l >= shortest_ninther) {
			i = median(d, i - 1, i, i + 1, &swaps);
			j = median(d, j - 1, j, j + 1, &swaps);
			k = median(d, k - 1, k, k + 1, &swaps);
		}
		j = median(d, i, j, k, &swaps);
	}
	*hint = swaps == 0 ? INCREASING_HINT : swaps == max_swaps ? DECREASING_HINT : UNKNOWN_HINT;
	return j;
}

static void reverse_range(const go_less_swap *d, long a, long b)
{
	for (long i = a, j = b - 1; i < j; i++, j--)
		SWAP(i, j);
}

static void pdqsort(const go_less_swap *d, long a, long b, int limit)
{
	const long max_insertion = 12;
	int was_balanced = 1, was_partitioned = 1;
	for (;;) {
		long length = b - a;
		if (length <= max_insertion) {
			insertion_sort(d, a, b);
			return;
		}
		if (limit == 0) {
			heap_sort(d, a, b);
			return;
		}
		if (!was_balanced) {
			break_patterns(d, a, b);
			limit--;
		}
		int hint;
		long pivot = choose_pivot(d, a, b, &hint);
		if (hint == DECREASING_HINT) {
			reverse_range(d, a, b);
			pivot = (b - 1) - (pivot - a);
			hint = INCREASING_HINT;
		}
		if (was_balanced && was_partitioned && hint == INCREASING_HINT &&
		    partial_insertion_sort(d, a, b))
			return;
		if (a > 0 && !LESS(a - 1, pivot)) {
			a = partition_equal(d, a, b, pivot);
			continue;
		}
		int already;
		long mid = partition(d, a, b, pivot, &already);
		was_partitioned = already;
		long left = mid - a, right = b - mid, balance = length / 8;
		if (left < right) {
			was_balanced = left >= balance;
			pdqsort(d, a, mid, limit);
			a = mid + 1;
		} else {
			was_balanced = right >= balance;
			pdqsort(d, mid + 1, b, limit);
			b = mid;
		}
	}
}

void go_sort_slice(const go_less_swap *data, uint32_t n)
{
	pdqsort(data, 0, (long)n, bits_len(n));
}
