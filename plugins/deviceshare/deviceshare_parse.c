/* The device annotations as Volcano's Go reads them (strings.Split, strconv): the node's
 * volcano.sh/node-vgpu-register (vgpu/utils.go decodeNodeDevices), a pod's
 * volcano.sh/vgpu-ids-new (DecodePodDevices), volcano.sh/gpu-index and
 * volcano.sh/gpu-unhealthy-ids (gpushare/share.go), the UUID lists and card types that steer
 * the vGPU search (parseGPUUUIDList, checkGPUtype). Read at open only. */
#include "deviceshare.h"

#include <ctype.h>
#include <string.h>

bool ds_str_eq(ds_str a, ds_str b)
{
	return a.n == b.n && (!a.n || !memcmp(a.p, b.p, a.n));
}

bool ds_str_contains(ds_str hay, ds_str needle)
{
	if (needle.n > hay.n)
		return false;
	for (uint32_t i = 0; i + needle.n <= hay.n; i++)
		if (!memcmp(hay.p + i, needle.p, needle.n))
			return true;
	return false;
}

/* The next piece of *rest up to `sep` (strings.Split: an empty string is one empty piece, a
 * trailing separator one more). False when *rest is spent. */
static bool next_piece(ds_str *rest, bool *done, char sep, ds_str *out)
{
	if (*done)
		return false;
	const char *e = rest->n ? memchr(rest->p, sep, rest->n) : NULL;
	uint32_t len = e ? (uint32_t)(e - rest->p) : rest->n;
	*out = (ds_str){rest->p, len};
	if (e) {
		rest->p = e + 1;
		rest->n -= len + 1;
	} else {
		*done = true;
	}
	return true;
}

static bool has(ds_str s, char c)
{
	return s.n && memchr(s.p, c, s.n) != NULL;
}

bool ds_atoi(ds_str s, int64_t *out)
{
	uint32_t i = 0;
	bool neg = false;
	if (s.n && (s.p[0] == '+' || s.p[0] == '-'))
		neg = s.p[i++] == '-';
	if (i == s.n)
		return false;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return false;
		uint64_t d = (uint64_t)(s.p[i] - '0');
		if (v > (lim - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

bool ds_atou32(ds_str s, uint64_t *out)
{
	if (!s.n)
		return false;
	uint64_t v = 0;
	for (uint32_t i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s.p[i] - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = v;
	return true;
}

/* uint(strconv.Atoi(s)): 0 on error; a negative int wraps as Go's conversion does. */
static uint64_t atoi_uint(ds_str s)
{
	int64_t v = 0;
	return ds_atoi(s, &v) ? (uint64_t)v : 0;
}

/* strings.Split(entry, ","): the first `max` fields into f; how many there are. */
static uint32_t fields(ds_str entry, ds_str *f, uint32_t max)
{
	ds_str piece, rest = entry;
	bool done = false;
	uint32_t k = 0;
	while (next_piece(&rest, &done, ',', &piece))
		if (k++ < max)
			f[k - 1] = piece;
	return k;
}

/* One `UUID,count,memory,type,health,mode` entry; false when it has fewer than 6 fields. */
static bool register_card(ds_str entry, ds_reg_card *c)
{
	ds_str f[6];
	if (fields(entry, f, 6) < 6)
		return false;
	*c = (ds_reg_card){.uuid = f[0], .type = f[3], .mode = f[5]};
	c->number = atoi_uint(f[1]);
	c->memory = atoi_uint(f[2]);
	return true;
}

int ds_parse_register(ds_str s, ds_reg_card *out, uint32_t cap)
{
	if (!has(s, ':'))
		return -1;
	ds_str piece, rest = s;
	bool done = false;
	uint32_t n = 0;
	while (next_piece(&rest, &done, ':', &piece)) {
		if (!has(piece, ','))
			continue;
		ds_reg_card c;
		if (!register_card(piece, &c))
			return -1;
		if (n < cap)
			out[n] = c;
		n++;
	}
	return (int)n;
}

/* One `UUID,type,memory,cores` device; false when Volcano skips it. */
static bool container_device(ds_str entry, ds_cdev *d)
{
	ds_str f[4];
	if (fields(entry, f, 4) < 4)
		return false;
	*d = (ds_cdev){.uuid = f[0], .type = f[1]};
	return ds_atou32(f[2], &d->mem) && ds_atou32(f[3], &d->cores);
}

uint32_t ds_parse_ids(ds_str s, ds_cdev *out, uint32_t cap)
{
	uint32_t n = 0;
	ds_str ctr, dev, rest = s;
	bool done = !s.n;
	while (next_piece(&rest, &done, ';', &ctr)) {
		ds_str r2 = ctr;
		bool d2 = !ctr.n;
		while (next_piece(&r2, &d2, ':', &dev)) {
			ds_cdev d;
			if (!has(dev, ',') || !container_device(dev, &d))
				continue;
			if (n < cap)
				out[n] = d;
			n++;
		}
	}
	return n;
}

/* Comma-separated strconv.Atoi pieces into out[0..cap), *n how many; a piece that does not
 * parse fails the whole (`strict`) or is skipped. */
static bool ints(ds_str s, bool strict, int64_t *out, uint32_t cap, uint32_t *n)
{
	ds_str piece, rest = s;
	bool done = false;
	*n = 0;
	while (next_piece(&rest, &done, ',', &piece)) {
		int64_t v;
		if (!ds_atoi(piece, &v) && strict)
			return false;
		if (!ds_atoi(piece, &v))
			continue;
		if (*n < cap)
			out[*n] = v;
		(*n)++;
	}
	return true;
}

bool ds_parse_index(ds_str s, int64_t *out, uint32_t cap, uint32_t *n)
{
	return ints(s, true, out, cap, n);
}

uint32_t ds_parse_unhealthy(ds_str s, int64_t *out, uint32_t cap)
{
	uint32_t n;
	ints(s, false, out, cap, &n);
	return n;
}

/* strings.TrimSpace, ASCII. */
static ds_str trim(ds_str s)
{
	while (s.n && isspace((unsigned char)s.p[0]))
		s.p++, s.n--;
	while (s.n && isspace((unsigned char)s.p[s.n - 1]))
		s.n--;
	return s;
}

uint32_t ds_parse_uuids(ds_str s, ds_str *out, uint32_t cap)
{
	ds_str piece, rest = s;
	bool done = false;
	uint32_t n = 0;
	while (next_piece(&rest, &done, ',', &piece)) {
		piece = trim(piece);
		if (!piece.n)
			continue;
		if (n < cap)
			out[n] = piece;
		n++;
	}
	return n;
}

/* strings.Contains(strings.ToUpper(hay), strings.ToUpper(needle)), ASCII. */
static bool contains_fold(ds_str hay, ds_str needle)
{
	if (needle.n > hay.n)
		return false;
	for (uint32_t i = 0; i + needle.n <= hay.n; i++) {
		uint32_t k = 0;
		while (k < needle.n &&
		       toupper((unsigned char)hay.p[i + k]) == toupper((unsigned char)needle.p[k]))
			k++;
		if (k == needle.n)
			return true;
	}
	return false;
}

/* Any comma-separated piece of `list` in the card type (the whole list when it has none). */
static bool any_in(const char *list, ds_str type)
{
	ds_str piece, rest = {list, (uint32_t)strlen(list)};
	bool done = false;
	while (next_piece(&rest, &done, ',', &piece))
		if (contains_fold(type, piece))
			return true;
	return false;
}

bool ds_gpu_type_ok(const char *use, const char *nouse, ds_str card_type)
{
	if (use)
		return any_in(use, card_type);
	if (nouse)
		return !any_in(nouse, card_type);
	return true;
}
