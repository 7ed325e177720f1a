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

/* A small cluster (queues, two nodes, a hypernode, two podgroups, three pods) as a scenario
 * without conf, over which the conf harnesses run sessions. */
extern const char fuzz_world_yaml[];

typedef struct tph_scenario tph_scenario;
/* Snapshot a loaded scenario and run a whole session with its conf (Volcano's default when it
 * has none): probe: answered, actions run, close, expect: checked, everything freed. Aborts
 * when an API promise breaks. */
void fuzz_run_scenario(tph_scenario *sc);

#endif
