/* The text writer (textw.h): decimals written back to front into a local buffer, then copied
 * with the cut; the format subset walked once, literal runs copied whole. */
#include "tephra/textw.h"

#include <stdbool.h>

void tph_tw_u64(tph_tw *w, uint64_t v)
{
	char d[20]; /* UINT64_MAX has 20 digits */
	size_t i = sizeof d;
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	tph_tw_mem(w, d + i, sizeof d - i);
}

void tph_tw_i64(tph_tw *w, int64_t v)
{
	if (v < 0)
		tph_tw_mem(w, "-", 1);
	tph_tw_u64(w, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* One conversion at fmt (just past its '%'); returns the first byte after it. */
static const char *convert(tph_tw *w, const char *fmt, va_list *ap)
{
	bool ll = fmt[0] == 'l' && fmt[1] == 'l';
	fmt += ll ? 2 : 0;
	switch (*fmt) {
	case 's':
		tph_tw_str(w, va_arg(*ap, const char *));
		break;
	case 'c': {
		char c = (char)va_arg(*ap, int);
		tph_tw_mem(w, &c, 1);
		break;
	}
	case 'd':
		tph_tw_i64(w, ll ? va_arg(*ap, long long) : va_arg(*ap, int));
		break;
	case 'u':
		tph_tw_u64(w, ll ? va_arg(*ap, unsigned long long) : va_arg(*ap, unsigned));
		break;
	case '%':
		tph_tw_mem(w, "%", 1);
		break;
	default:
		return *fmt ? fmt + 1 : fmt;
	}
	return fmt + 1;
}

void tph_tw_vfmt(tph_tw *w, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	while (*fmt) {
		const char *pc = strchr(fmt, '%');
		size_t lit = pc ? (size_t)(pc - fmt) : strlen(fmt);
		tph_tw_mem(w, fmt, lit);
		if (!pc)
			break;
		fmt = convert(w, pc + 1, &aq);
	}
	va_end(aq);
}

void tph_tw_fmt(tph_tw *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tph_tw_vfmt(w, fmt, ap);
	va_end(ap);
}
