/* Fuzz harness for the scenario loader: load the bytes with tph_scenario_load_buffer; when they
 * load, take a snapshot and run a whole session with the scenario's conf (Volcano's default
 * when it has none), answer its probe: and check its expect:, then free everything. A failed
 * load must leave nothing behind and carry a located message. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "tephra/tephra.h"

#define FILE_NAME "fuzz.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tph_diag d = {0};
	size_t warned = 0;
	d.warn = fuzz_warn;
	d.warn_ud = &warned;
	tph_scenario *sc = (tph_scenario *)&d; /* must be overwritten */
	int rc = tph_scenario_load_buffer((const char *)data, size, FILE_NAME, &sc, &d);
	if (rc != TPH_OK) {
		if (sc)
			fuzz_fail("failed load returned a scenario", rc, &d);
		fuzz_check_error(rc, &d, FILE_NAME);
		return 0;
	}
	if (!sc || !tph_scenario_cluster(sc))
		fuzz_fail("load succeeded without a scenario or cache", rc, &d);
	(void)strlen(tph_scenario_name(sc));
	(void)strlen(tph_scenario_file(sc));
	fuzz_run_scenario(sc);
	tph_scenario_free(sc);
	return 0;
}
