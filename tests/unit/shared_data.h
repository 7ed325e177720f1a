/* Tests over the data in ../shared (conformance fixtures, real traces) skip when it is absent,
 * unless TPH_REQUIRE_SHARED is set (and not 0), as CI sets it: then the missing data fails the
 * test, so a run without any of it cannot end "100% tests passed". Include after <cmocka.h>. */
#ifndef TPH_TEST_SHARED_DATA_H
#define TPH_TEST_SHARED_DATA_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline bool tph_test_require_shared(void)
{
	const char *v = getenv("TPH_REQUIRE_SHARED");
	return v && *v && strcmp(v, "0") != 0;
}

/* skip() for a missing `path`, or a failure when the shared data is required. */
#define skip_without_shared(path)                                                      \
	do {                                                                           \
		if (tph_test_require_shared())                                         \
			fail_msg("%s is missing (TPH_REQUIRE_SHARED is set)", (path)); \
		skip();                                                                \
	} while (0)

#endif
