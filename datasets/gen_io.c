/* The generator's buffered writer: one 64 KiB buffer per run, integers formatted by hand, so
 * writing a 100,000-pod scenario costs a few tens of milliseconds. */
#include "gen_io.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "tephra/resource.h"

uint32_t rng_weighted(gen_rng *r, const uint32_t *w, uint32_t n)
{
	uint32_t sum = 0;
	for (uint32_t i = 0; i < n; i++)
		sum += w[i];
	uint32_t x = rng_below(r, sum ? sum : 1);
	for (uint32_t i = 0; i < n; i++) {
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return n - 1;
}

void out_init(gen_out *w, FILE *f)
{
	w->f = f;
	w->n = 0;
	w->total = 0;
	w->err = false;
	w->errnum = 0;
}

static void out_fail(gen_out *w, int errnum)
{
	if (!w->err)
		w->errnum = errnum ? errnum : EIO;
	w->err = true;
}

bool out_flush(gen_out *w)
{
	if (w->n && fwrite(w->buf, 1, w->n, w->f) != w->n)
		out_fail(w, errno);
	w->total += w->n;
	w->n = 0;
	if (fflush(w->f) != 0)
		out_fail(w, errno);
	return !w->err;
}

void out_mem(gen_out *w, const char *s, size_t n)
{
	if (w->n + n > sizeof w->buf) {
		out_flush(w);
		if (n > sizeof w->buf) {
			if (fwrite(s, 1, n, w->f) != n)
				out_fail(w, errno);
			w->total += n;
			return;
		}
	}
	memcpy(w->buf + w->n, s, n);
	w->n += n;
}

void out_str(gen_out *w, const char *s)
{
	out_mem(w, s, strlen(s));
}

void out_pad(gen_out *w, uint64_t v, int width)
{
	char tmp[24];
	int i = (int)sizeof tmp;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v || (int)sizeof tmp - i < width);
	out_mem(w, tmp + i, sizeof tmp - (size_t)i);
}

void out_u64(gen_out *w, uint64_t v)
{
	out_pad(w, v, 1);
}

void out_fmt(gen_out *w, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp) {
		out_fail(w, EOVERFLOW);
		return;
	}
	out_mem(w, tmp, (size_t)n);
}

void out_milli(gen_out *w, int64_t milli)
{
	char tmp[32];
	size_t n = tph_quantity_format(milli, TPH_UNIT_MILLI, tmp, sizeof tmp);
	out_mem(w, "\"", 1);
	out_mem(w, tmp, n < sizeof tmp ? n : sizeof tmp - 1);
	out_mem(w, "\"", 1);
}

void out_bytes(gen_out *w, int64_t bytes)
{
	char tmp[32];
	size_t n = tph_quantity_format(bytes, TPH_UNIT_BYTES, tmp, sizeof tmp);
	out_mem(w, tmp, n < sizeof tmp ? n : sizeof tmp - 1);
}

/* Howard Hinnant's civil_from_days: exact for every date the generator uses, and free of the
 * C library's time zone state. */
static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	days += 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	unsigned doe = (unsigned)(days - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

void out_time(gen_out *w, int64_t secs)
{
	int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
	int64_t rem = secs - days * 86400, y;
	unsigned mo, d;
	civil(days, &y, &mo, &d);
	out_mem(w, "\"", 1);
	out_pad(w, (uint64_t)y, 4);
	out_mem(w, "-", 1);
	out_pad(w, mo, 2);
	out_mem(w, "-", 1);
	out_pad(w, d, 2);
	out_mem(w, "T", 1);
	out_pad(w, (uint64_t)(rem / 3600), 2);
	out_mem(w, ":", 1);
	out_pad(w, (uint64_t)(rem / 60 % 60), 2);
	out_mem(w, ":", 1);
	out_pad(w, (uint64_t)(rem % 60), 2);
	out_mem(w, "Z\"", 2);
}
