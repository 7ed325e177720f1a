/* Version of the headers; tph_version() returns the library's, so a host can check they match. */
#ifndef TEPHRA_VERSION_H
#define TEPHRA_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

#define TPH_VERSION_MAJOR  0
#define TPH_VERSION_MINOR  1
#define TPH_VERSION_PATCH  0
#define TPH_VERSION_STRING "0.1.0"
#define TPH_VERSION_NUMBER (TPH_VERSION_MAJOR * 10000 + TPH_VERSION_MINOR * 100 + TPH_VERSION_PATCH)

/* The library's TPH_VERSION_NUMBER. */
int tph_version(void);
/* The library's TPH_VERSION_STRING. */
const char *tph_version_string(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
