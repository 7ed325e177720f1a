/* The kai unit tests' session harness: a kai scenario string loaded, its KAI snapshot built and
 * a KAI session opened over the scenario's conf; every step fails the test on an error,
 * printing the loader's message. Include after <cmocka.h>. */
#ifndef TPH_TEST_KAI_HARNESS_H
#define TPH_TEST_KAI_HARNESS_H

#include <stdio.h>
#include <string.h>

#include "session/check_core.h"
#include "session/kai/kai_int.h"
#include "tephra/tephra.h"

typedef struct kf {
	tph_scenario *sc;
	tph_kai_snapshot *snap;
	tph_kai_session *s;
	tph_check_report r; /* for probe tests */
} kf;

static inline void kf_open(kf *f, const char *yaml)
{
	tph_diag d = {0};
	memset(f, 0, sizeof *f);
	int rc = tph_scenario_load_buffer(yaml, strlen(yaml), "t.yaml", &f->sc, &d);
	if (rc)
		fprintf(stderr, "%s\n", d.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(tph_kai_snapshot_build(tph_scenario_kai_cluster(f->sc),
	                                        tph_scenario_now(f->sc), &f->snap, &d),
	                 0);
	assert_int_equal(tph_kai_session_open(f->snap, tph_scenario_conf(f->sc), &f->s, &d), 0);
}

static inline void kf_close(kf *f)
{
	tph_report_free(&f->r);
	tph_kai_session_free(f->s);
	tph_kai_snapshot_free(f->snap);
	tph_scenario_free(f->sc);
}

#endif
