/* Fuzz harness for the conf embedded in a scenario (scenario_load.c load_conf_text, conf_load.c
 * tph_conf_load_embedded and tph_conf_from_node). The input is a conf text, loaded alone with
 * tph_conf_load_string and inside a scenario over the fixed cluster of fuzz_world_yaml: as a
 * literal block (`conf: |2+`, every line indented by two, the block's text is the input
 * exactly) or, when the first byte's second bit is set, as the scenario's own mapping. The
 * first byte's low bit picks enableFlagsDefault, as in fuzz_conf.
 *
 * Both loads must agree. As a block of plain text (printable ASCII, tabs, '\n'): the same
 * status, and the same message at the same place moved by the block's origin (one line below
 * its header, two columns right). As a mapping, YAML reads the text in another context, so
 * only: when both load, the same conf. A scenario that loads runs a whole session. */
#include "fuzz.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tephra/tephra.h"

#define CONF_NAME "fuzz.conf"
#define FILE_NAME "fuzz.yaml"

/* The scenario: the fixed cluster, the flags default, then `header` and the input's lines
 * indented by two. *origin gets the 0-based line of the header. NULL when out of memory. */
static char *scenario(const char *in, size_t size, bool efd, const char *header, int *origin)
{
	size_t cap = strlen(fuzz_world_yaml) + 64 + size * 3 + 3;
	char *t = malloc(cap), *at = t;
	if (!t)
		return NULL;
	at += sprintf(at, "%s%s%s\n", fuzz_world_yaml, efd ? "" : "enableFlagsDefault: false\n",
	              header);
	*origin = 0;
	for (const char *p = t; p < at - 1; p++)
		*origin += *p == '\n';
	for (size_t i = 0; i < size;) {
		const char *nl = memchr(in + i, '\n', size - i);
		size_t n = nl ? (size_t)(nl - in) - i + 1 : size - i;
		memcpy(at, "  ", 2);
		memcpy(at + 2, in + i, n);
		at += n + 2;
		i += n;
	}
	*at = '\0';
	return t;
}

static bool plain_text(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < size; i++)
		if ((data[i] < 0x20 || data[i] > 0x7e) && data[i] != '\t' && data[i] != '\n')
			return false;
	return true;
}

static void same_conf(const tph_conf *a, const tph_conf *b)
{
	bool same = tph_conf_action_count(a) == tph_conf_action_count(b) &&
	            tph_conf_tier_count(a) == tph_conf_tier_count(b);
	for (uint32_t i = 0; same && i < tph_conf_action_count(a); i++)
		same = !strcmp(tph_conf_action(a, i), tph_conf_action(b, i));
	for (uint32_t t = 0; same && t < tph_conf_tier_count(a); t++) {
		same = tph_conf_plugin_count(a, t) == tph_conf_plugin_count(b, t);
		for (uint32_t p = 0; same && p < tph_conf_plugin_count(a, t); p++) {
			same =
			    !strcmp(tph_conf_plugin_name(a, t, p), tph_conf_plugin_name(b, t, p));
			for (int f = 0; same && f < TPH_FLAG_COUNT; f++)
				same = tph_conf_flag_raw(a, t, p, (tph_conf_flag)f) ==
				       tph_conf_flag_raw(b, t, p, (tph_conf_flag)f);
		}
	}
	if (!same)
		fuzz_fail("the embedded conf differs from the conf alone", 0, NULL);
}

/* The alone message "fuzz.conf:L:C: why" as the block gives it: FILE_NAME, the lines moved
 * below the header (L, and a YAML error's closing "(... at line N)"), the column two right. False
 * when it names no place. */
static bool moved(const char *msg, int origin, char *out, size_t cap)
{
	int line, col, n = 0, ctx, end = 0;
	if (sscanf(msg, CONF_NAME ":%d:%d: %n", &line, &col, &n) != 2 || !n)
		return false;
	const char *at = NULL; /* the last one: the conf's own text may hold the words */
	for (const char *p = strstr(msg, " at line "); p; p = strstr(p + 1, " at line "))
		at = p;
	int k = at ? snprintf(out, cap, FILE_NAME ":%d:%d: %.*s", line + origin + 1, col + 2,
	                      (int)(at - msg - n), msg + n)
	           : 0;
	if (at && sscanf(at, " at line %d)%n", &ctx, &end) == 1 && end && !at[end] && k > 0 &&
	    (size_t)k < cap)
		snprintf(out + k, cap - (size_t)k, " at line %d)", ctx + origin + 1);
	else
		snprintf(out, cap, FILE_NAME ":%d:%d: %s", line + origin + 1, col + 2, msg + n);
	return true;
}

static void compare_failures(int ra, const tph_diag *da, int rb, const tph_diag *db, int origin)
{
	char want[sizeof da->msg];
	if (ra != rb) {
		fprintf(stderr, "fuzz_embedded: alone rc=%d \"%s\"\n  block rc=%d \"%s\"\n", ra,
		        da->msg, rb, db->msg);
		abort();
	}
	if (ra == TPH_OK || ra == TPH_ENOMEM || !moved(da->msg, origin, want, sizeof want))
		return;
	if (strcmp(want, db->msg) != 0) {
		fprintf(stderr, "fuzz_embedded: alone \"%s\"\n  block \"%s\"\n  want  \"%s\"\n",
		        da->msg, db->msg, want);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool efd = size == 0 || !(data[0] & 1), as_map = size > 0 && (data[0] & 2);
	tph_diag da = {0}, db = {0};
	tph_conf *alone = NULL;
	int ra = tph_conf_load_string((const char *)data, size, CONF_NAME, efd, &alone, &da);
	int origin;
	char *text =
	    scenario((const char *)data, size, efd, as_map ? "conf:" : "conf: |2+", &origin);
	if (!text) {
		tph_conf_free(alone);
		return 0;
	}
	tph_scenario *sc = (tph_scenario *)&db; /* must be overwritten */
	int rb = tph_scenario_load_buffer(text, strlen(text), FILE_NAME, &sc, &db);
	if (rb != TPH_OK) {
		if (sc)
			fuzz_fail("failed load returned a scenario", rb, &db);
		fuzz_check_error(rb, &db, FILE_NAME);
	}
	if (ra == TPH_OK && rb == TPH_OK)
		same_conf(alone, tph_scenario_conf(sc));
	if (!as_map && plain_text(data, size))
		compare_failures(ra, &da, rb, &db, origin);
	if (rb == TPH_OK) {
		fuzz_run_scenario(sc);
		tph_scenario_free(sc);
	}
	tph_conf_free(alone);
	free(text);
	return 0;
}
