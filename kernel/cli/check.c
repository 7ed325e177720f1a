/* One scenario file under `tephra check`: probes right after the session opens, expectations
 * after it closes; PASS/FAIL with one indented line per difference. */
#include "check.h"

#include "session/check_core.h"
#include "session/kai/kai_check.h"
#include "load/scenario_int.h"

#include <string.h>

typedef struct probe_ctx {
	tph_check_report report;
} probe_ctx;

static int after_open(run_result *r, void *ud)
{
	probe_ctx *pc = ud;
	if (r->kai_ssn)
		tph_kai_check_probe(r->scn, r->kai_ssn, &pc->report);
	else
		tph_check_probe(r->scn, r->ssn, &pc->report);
	return TPH_OK;
}

/* Whether there is anything to check; a scenario without is not run (run_opts.wanted). */
static bool has_checks(const tph_scenario *scn)
{
	return scn->expect.present || scn->probe.present;
}

int check_file(const char *path, const run_opts *o, bool quiet, FILE *out)
{
	probe_ctx pc = {0};
	run_opts ro = *o;
	ro.wanted = has_checks;
	run_result r;
	int rc = run_scenario(path, &ro, &r, after_open, &pc);
	int verdict;
	if (!strcmp(path, "-"))
		path = CLI_STDIN_NAME;
	if (r.scn && !has_checks(r.scn)) {
		verdict = CHECK_SKIP;
		if (!quiet)
			fprintf(out, "SKIP %s: no expect: or probe: section\n", path);
	} else if (rc) {
		fprintf(out, "FAIL %s: %s\n", path, r.diag.msg[0] ? r.diag.msg : tph_strerror(rc));
		verdict = CHECK_FAIL;
	} else {
		if (r.kai_ssn)
			tph_kai_check(r.scn, r.kai_ssn, &pc.report);
		else
			tph_check_expect(r.scn, r.ssn, &pc.report);
		verdict = pc.report.failures ? CHECK_FAIL : CHECK_PASS;
		if (verdict == CHECK_FAIL)
			fprintf(out, "FAIL %s: %u difference(s)\n%s", path, pc.report.failures,
			        pc.report.buf ? pc.report.buf : "");
		else if (!quiet)
			fprintf(out, "PASS %s\n", path);
	}
	tph_report_free(&pc.report);
	run_release(&r);
	return verdict;
}
