/* Text from inputs made safe to print in messages: every message goes through tph_diag_set or
 * tph_diag_warn (status.c), which escape it, and object names are cut to a bounded length
 * where messages name objects (yaml_util.c for the loaders, the cache's object names). */
#ifndef TPH_MSG_TEXT_H
#define TPH_MSG_TEXT_H

#include <stddef.h>

/* Object names in messages keep their first TPH_MSG_NAME_MAX bytes, then "...". */
#define TPH_MSG_NAME_MAX 128

/* Copy `src` into dst[cap] (NUL-terminated when cap > 0) with every byte a terminal could act
 * on written as \xNN: C0 controls and DEL, the C1 controls (U+0080..U+009F, which UTF-8
 * terminals read as escape sequences) and bytes that are not well-formed UTF-8. Other UTF-8
 * stays. Returns the bytes written, the NUL excluded; an escape never splits at the end. */
size_t tph_msg_escape(char *dst, size_t cap, const char *src);

/* `name` cut after TPH_MSG_NAME_MAX bytes (on a UTF-8 boundary) with "..." appended; `buf`
 * holds TPH_MSG_NAME_MAX + 4 bytes. Returns `name` itself when it is short enough. */
const char *tph_msg_name(const char *name, char *buf);

#endif
