/* Shared by the fuzz harnesses (fuzz_*.c) and the replay driver (replay.c): the libFuzzer entry
 * point each harness defines, and the checks every harness applies to a failed load. */
#ifndef TPH_FUZZ_H
#define TPH_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "tephra/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Report a broken promise of the API (not a bad input) and abort, so the fuzzer keeps the
 * input as a crash. */
void fuzz_fail(const char *what, int rc, const tph_diag *d);

/* A failed load must return a negative status and a message located as `FILE:LINE:COL: `
 * (out of memory excepted). Aborts otherwise. */
void fuzz_check_error(int rc, const tph_diag *d, const char *file);

/* A warning sink that touches every byte of the message (ASan checks it is a valid string). */
void fuzz_warn(void *ud, const char *msg);

#endif
