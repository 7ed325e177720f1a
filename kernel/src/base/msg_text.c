/* Escaping and cutting input text for messages (msg_text.h). Names and values come from
 * scenario and conf files: printed raw, an ESC or a C1 control in one drives the reader's
 * terminal (escape injection), and a megabyte name pushes the reason out of the message. */
#include "msg_text.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at `s` (1..4), or 0 (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* How many bytes at `s` print as they are (0: escape the first one). */
static size_t safe_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	size_t n = utf8_len(s);
	return n == 2 && s[0] == 0xc2 && s[1] < 0xa0 ? 0 : n; /* C1 controls */
}

size_t tph_msg_escape(char *dst, size_t cap, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t at = 0;
	if (!cap)
		return 0;
	while (*s) {
		size_t n = safe_len(s);
		if (n) {
			if (at + n >= cap)
				break;
			memcpy(dst + at, s, n);
			at += n;
			s += n;
			continue;
		}
		if (at + 4 >= cap)
			break;
		dst[at++] = '\\';
		dst[at++] = 'x';
		dst[at++] = hex[*s >> 4];
		dst[at++] = hex[*s & 15];
		s++;
	}
	dst[at] = '\0';
	return at;
}

const char *tph_msg_name(const char *name, char *buf)
{
	if (!name || strlen(name) <= TPH_MSG_NAME_MAX)
		return name;
	size_t n = TPH_MSG_NAME_MAX;
	while (n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80) /* not inside a character */
		n--;
	memcpy(buf, name, n);
	memcpy(buf + n, "...", 4);
	return buf;
}
