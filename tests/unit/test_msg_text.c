/* Unit tests for message text (kernel/src/base/msg_text.c): what a terminal could act on is
 * escaped, well-formed UTF-8 stays, escapes are never split, long names are cut; and every
 * message written through tph_diag_set or tph_diag_warn, or by the loader, is escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/msg_text.h"
#include "tephra/tephra.h"

static void expect_escaped(const char *in, const char *want)
{
	char out[256];
	size_t n = tph_msg_escape(out, sizeof out, in);
	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
}

static void test_escape(void **state)
{
	(void)state;
	expect_escaped("plain text: ok", "plain text: ok");
	expect_escaped("p\x1b]0;pwned\x07", "p\\x1b]0;pwned\\x07");
	expect_escaped("a\tb\nc\rd\x7f", "a\\x09b\\x0ac\\x0dd\\x7f");
	expect_escaped("csi \xc2\x9b"
	               "2J",
	               "csi \\xc2\\x9b2J");                         /* U+009B, a C1 control */
	expect_escaped("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", /* kept */
	               "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	expect_escaped("\xff\xc0\x80", "\\xff\\xc0\\x80");          /* not UTF-8, overlong */
	expect_escaped("\xed\xa0\x80", "\\xed\\xa0\\x80");          /* a surrogate */
	expect_escaped("\xe2\x82", "\\xe2\\x82");                   /* cut short */
	expect_escaped("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
	char small[6];
	assert_int_equal(tph_msg_escape(small, sizeof small, "ab\x1b"), 2); /* no half escape */
	assert_string_equal(small, "ab");
	assert_int_equal(tph_msg_escape(small, 0, "x"), 0);
}

static void test_name(void **state)
{
	(void)state;
	char buf[TPH_MSG_NAME_MAX + 4], name[300];
	const char *shortname = "n1";
	assert_ptr_equal(tph_msg_name(shortname, buf), shortname);
	memset(name, 'a', TPH_MSG_NAME_MAX);
	name[TPH_MSG_NAME_MAX] = '\0';
	assert_ptr_equal(tph_msg_name(name, buf), name); /* exactly the bound */
	memset(name, 'a', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	name[TPH_MSG_NAME_MAX - 1] = '\xc3'; /* an e-acute across the cut */
	name[TPH_MSG_NAME_MAX] = '\xa9';
	const char *cut = tph_msg_name(name, buf);
	assert_int_equal(strlen(cut), TPH_MSG_NAME_MAX - 1 + 3);
	assert_string_equal(cut + TPH_MSG_NAME_MAX - 1, "...");
}

static char warned[1024];

static void on_warn(void *ud, const char *msg)
{
	(void)ud;
	strcpy(warned, msg);
}

static void test_diag(void **state)
{
	(void)state;
	tph_diag d = {.warn = on_warn};
	assert_int_equal(tph_diag_set(&d, TPH_EINVAL, "pod %s: bad", "p\x1b[2J"), TPH_EINVAL);
	assert_string_equal(d.msg, "pod p\\x1b[2J: bad");
	tph_diag_warn(&d, "node %s", "n\x9b");
	assert_string_equal(warned, "node n\\x9b");
	/* through the loader: the name in the location prefix, and the value in the reason */
	static const char text[] = "nodes: [{name: n1, allocatable: {cpu: \"4\"}}]\n"
	                           "pods: [{name: \"p\\e]0;pwned\\a\", nodeName: \"n\\e9\"}]\n";
	tph_scenario *s = NULL;
	int rc = tph_scenario_load_buffer(text, sizeof text - 1, "c.yaml", &s, &d);
	assert_int_equal(rc, TPH_ENOENT);
	assert_string_equal(d.msg, "c.yaml:2:42: pod default/p\\x1b]0;pwned\\x07: field nodeName: "
	                           "no node \"n\\x1b9\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_name),
	    cmocka_unit_test(test_diag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
