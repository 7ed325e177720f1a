/* Kubernetes resource.Quantity text <-> tephra's exact integer units (milli-units or bytes).
 * Parsing is exact for any number of digits and never uses floating point; fractions of the
 * target unit round up, as Kubernetes' Value()/MilliValue() do. */
#include "tephra/resource.h"
#include "tephra/status.h"

#include "tephra/textw.h"

#include <stdbool.h>
#include <string.h>

/* Past this magnitude an exponent can only overflow or round up to one unit, so clamping
 * keeps every exponent sum in int64 however many digits the input has. */
#define EXP_CLAMP INT64_C(1000000000000000)

/* 10^19 > INT64_MAX, so a whole part with more significant digits always overflows. */
#define MAX_WHOLE_DIGITS 19

/* A parsed number: the integer digits followed by the fraction digits, read as one decimal
 * integer d, mean d * 10^(exp10 - nf) * 2^exp2. */
struct qnum {
	const char *ip;
	size_t ni;
	const char *fp;
	size_t nf;
	bool neg;
	int64_t exp10;
	unsigned exp2;
};

static const struct {
	char text[3];
	int8_t exp10;
	uint8_t exp2;
} suffixes[] = {
    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},
    {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10},
    {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
};

static const uint64_t pow10_u64[] = {
    UINT64_C(1),
    UINT64_C(10),
    UINT64_C(100),
    UINT64_C(1000),
    UINT64_C(10000),
    UINT64_C(100000),
    UINT64_C(1000000),
    UINT64_C(10000000),
    UINT64_C(100000000),
    UINT64_C(1000000000),
    UINT64_C(10000000000),
    UINT64_C(100000000000),
    UINT64_C(1000000000000),
    UINT64_C(10000000000000),
    UINT64_C(100000000000000),
    UINT64_C(1000000000000000),
    UINT64_C(10000000000000000),
    UINT64_C(100000000000000000),
    UINT64_C(1000000000000000000),
};

static int fail(const char **why, const char *msg, int status)
{
	if (why != NULL)
		*why = msg;
	return status;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static size_t span_digits(const char *s, size_t i, size_t len)
{
	while (i < len && is_digit(s[i]))
		i++;
	return i;
}

/* [+-]? digits? ( '.' digits? )? with at least one digit; *pos ends past the number. */
static int parse_number(const char *s, size_t len, size_t *pos, struct qnum *q, const char **why)
{
	size_t i = 0;
	if (s[0] == '+' || s[0] == '-') {
		q->neg = s[0] == '-';
		i = 1;
	}
	q->ip = s + i;
	q->ni = span_digits(s, i, len) - i;
	i += q->ni;
	q->fp = s + i;
	if (i < len && s[i] == '.') {
		i++;
		q->fp = s + i;
		q->nf = span_digits(s, i, len) - i;
		i += q->nf;
	}
	/* Kubernetes reads "", "+", "." and a bare suffix such as "Ki" as zero; a typo should
	 * not silently become a zero request, so a number needs a digit. */
	if (q->ni + q->nf == 0)
		return fail(why, "not a number", TPH_EINVAL);
	*pos = i;
	return TPH_OK;
}

/* The signed integer after e/E; huge magnitudes saturate at EXP_CLAMP (see above). */
static int parse_exponent(const char *s, size_t n, int64_t *exp, const char **why)
{
	size_t i = 0;
	bool neg = false;
	if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == n)
		return fail(why, "exponent has no digits", TPH_EINVAL);
	int64_t e = 0;
	for (; i < n; i++) {
		if (!is_digit(s[i]))
			return fail(why, "malformed exponent", TPH_EINVAL);
		if (e < EXP_CLAMP)
			e = e * 10 + (s[i] - '0');
	}
	*exp = neg ? -e : e;
	return TPH_OK;
}

static int parse_suffix(const char *s, size_t n, struct qnum *q, const char **why)
{
	if (n == 0)
		return TPH_OK;
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		if (strlen(suffixes[i].text) == n && memcmp(suffixes[i].text, s, n) == 0) {
			q->exp10 = suffixes[i].exp10;
			q->exp2 = suffixes[i].exp2;
			return TPH_OK;
		}
	}
	/* A lone "E" is exa (matched above); "e" needs an exponent after it, as in Kubernetes. */
	if (n > 1 && (s[0] == 'e' || s[0] == 'E'))
		return parse_exponent(s + 1, n - 1, &q->exp10, why);
	if (s[0] == '.')
		return fail(why, "more than one decimal point", TPH_EINVAL);
	return fail(why, "unknown suffix", TPH_EINVAL);
}

static unsigned digit_at(const struct qnum *q, size_t i)
{
	return (unsigned)((i < q->ni ? q->ip[i] : q->fp[i - q->ni]) - '0');
}

/* The first and last non-zero digits of q; false when the number is zero. */
static bool significant(const struct qnum *q, size_t *first, size_t *last)
{
	size_t n = q->ni + q->nf, i = 0;
	while (i < n && digit_at(q, i) == 0)
		i++;
	if (i == n)
		return false;
	*first = i;
	for (i = n - 1; digit_at(q, i) == 0; i--)
		continue;
	*last = i;
	return true;
}

/* The value of n (<= 19) digits starting at `first`; it fits since 10^19 - 1 < 2^64. */
static uint64_t digits_value(const struct qnum *q, size_t first, size_t n)
{
	uint64_t v = 0;
	for (size_t i = first; i < first + n; i++)
		v = v * 10 + digit_at(q, i);
	return v;
}

/* The fraction 0.[zeros x '0'][digits first..last] times 2^exp2: returns the integer part
 * and sets *inexact when a remainder is left. Each step keeps carry < 2^exp2, so
 * digit * 2^exp2 + carry < 10 * 2^60 fits in uint64. */
static uint64_t frac_times(const struct qnum *q, size_t first, size_t last, uint64_t zeros,
                           unsigned exp2, bool *inexact)
{
	uint64_t m = UINT64_C(1) << exp2, carry = 0;
	for (size_t i = last + 1; i-- > first;) {
		uint64_t t = digit_at(q, i) * m + carry;
		*inexact = *inexact || t % 10 != 0;
		carry = t / 10;
	}
	for (; zeros > 0 && carry > 0; zeros--) {
		*inexact = *inexact || carry % 10 != 0;
		carry /= 10;
	}
	return carry;
}

/* Splits the significant digits [first, last] times 10^e10 into a whole part (before the
 * binary scaling) and the binary-scaled, ceiled contribution of the fraction. */
static int split_parts(const struct qnum *q, size_t first, size_t last, int64_t e10,
                       uint64_t *whole, uint64_t *frac)
{
	size_t nsig = last - first + 1;
	bool inexact = false;
	if (e10 >= 0) {
		if ((int64_t)nsig + e10 > MAX_WHOLE_DIGITS)
			return TPH_ERANGE;
		*whole = digits_value(q, first, nsig) * pow10_u64[e10];
		*frac = 0;
		return TPH_OK;
	}
	uint64_t k = (uint64_t)-e10;
	size_t nwhole = nsig > k ? nsig - (size_t)k : 0;
	if (nwhole > MAX_WHOLE_DIGITS)
		return TPH_ERANGE;
	*whole = digits_value(q, first, nwhole);
	*frac = frac_times(q, first + nwhole, last, k - (nsig - nwhole), q->exp2, &inexact);
	*frac += inexact;
	return TPH_OK;
}

/* ceil(q * 10^e10) into an int64, or an error for negative and overflowing values. */
static int scale_exact(const struct qnum *q, int64_t e10, int64_t *out, const char **why)
{
	size_t first, last;
	if (!significant(q, &first, &last)) {
		*out = 0; /* "-0" included: zero has no sign */
		return TPH_OK;
	}
	if (q->neg)
		return fail(why, "negative quantity", TPH_EINVAL);
	/* Trailing zeros move into the exponent so they never count against the 19 digits. */
	e10 += (int64_t)(q->ni + q->nf - 1 - last);
	uint64_t whole, frac;
	if (split_parts(q, first, last, e10, &whole, &frac) != TPH_OK)
		return fail(why, "quantity overflows int64", TPH_ERANGE);
	if (whole > ((uint64_t)INT64_MAX >> q->exp2))
		return fail(why, "quantity overflows int64", TPH_ERANGE);
	whole <<= q->exp2;
	if (whole > (uint64_t)INT64_MAX - frac)
		return fail(why, "quantity overflows int64", TPH_ERANGE);
	*out = (int64_t)(whole + frac);
	return TPH_OK;
}

int tph_quantity_parse(const char *s, size_t len, tph_res_unit unit, int64_t *out, const char **why)
{
	struct qnum q = {0};
	size_t pos = 0;
	if (unit != TPH_UNIT_MILLI && unit != TPH_UNIT_BYTES)
		return fail(why, "unknown unit", TPH_EINVAL);
	if (s == NULL || len == 0)
		return fail(why, "empty quantity", TPH_EINVAL);
	int rc = parse_number(s, len, &pos, &q, why);
	if (rc == TPH_OK)
		rc = parse_suffix(s + pos, len - pos, &q, why);
	if (rc != TPH_OK)
		return rc;
	int64_t e10 = q.exp10 - (int64_t)q.nf + (unit == TPH_UNIT_MILLI ? 3 : 0);
	int64_t v;
	rc = scale_exact(&q, e10, &v, why);
	if (rc == TPH_OK)
		*out = v;
	return rc;
}

static unsigned count_digits(uint64_t v)
{
	unsigned n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Picks the shortest of: largest exact binary suffix, largest exact decimal suffix, plain
 * digits; ties go to binary, then decimal. Preferring binary outright would print 10^12 as
 * "976562500Ki" rather than "1T". */
static const char *byte_suffix(uint64_t *mag)
{
	static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
	static const char *const dec[] = {"", "k", "M", "G", "T", "P", "E"};
	unsigned pb = 6, pd = 6;
	if (*mag == 0)
		return "";
	while (pb > 0 && (*mag & ((UINT64_C(1) << (10 * pb)) - 1)) != 0)
		pb--;
	while (pd > 0 && *mag % pow10_u64[3 * pd] != 0)
		pd--;
	uint64_t vb = *mag >> (10 * pb), vd = *mag / pow10_u64[3 * pd];
	unsigned lb = count_digits(vb) + (pb ? 2 : 0), ld = count_digits(vd) + (pd ? 1 : 0);
	if (pb > 0 && lb <= ld) {
		*mag = vb;
		return bin[pb];
	}
	*mag = vd;
	return dec[pd];
}

size_t tph_quantity_format(int64_t v, tph_res_unit unit, char *buf, size_t cap)
{
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	const char *suffix = "";
	if (unit == TPH_UNIT_BYTES) {
		suffix = byte_suffix(&mag);
	} else if (mag % 1000 == 0) {
		mag /= 1000;
	} else {
		suffix = "m";
	}
	char text[24]; /* "-", 20 digits, a 2-byte suffix */
	tph_tw w;
	tph_tw_init(&w, text, sizeof text);
	if (v < 0)
		tph_tw_mem(&w, "-", 1);
	tph_tw_u64(&w, mag);
	tph_tw_str(&w, suffix);
	if (cap) {
		size_t k = w.n < cap ? w.n : cap - 1;
		memcpy(buf, text, k);
		buf[k] = '\0';
	}
	return w.n;
}

static bool name_is(const char *name, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(name, want, len) == 0;
}

tph_res_unit tph_res_unit_of(const char *name, size_t len)
{
	static const char hugepages[] = "hugepages-";
	if (name == NULL)
		return TPH_UNIT_MILLI;
	if (name_is(name, len, "memory") || name_is(name, len, "ephemeral-storage"))
		return TPH_UNIT_BYTES;
	if (len >= sizeof hugepages - 1 && memcmp(name, hugepages, sizeof hugepages - 1) == 0)
		return TPH_UNIT_BYTES;
	return TPH_UNIT_MILLI;
}
