/* Kept for the test files that still include it by this name; the helpers are harness.h's. */
#ifndef TPH_PLUGIN_TEST_SESSION_H
#define TPH_PLUGIN_TEST_SESSION_H

#include "harness.h"

#endif
