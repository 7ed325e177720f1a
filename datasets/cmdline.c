/* Command-line parsing shared by every `tephra` command (cmdline.h): getopt_long in
 * RETURN_IN_ORDER mode, with getopt's own messages off and one-line ones of ours instead. */
#include "cmdline.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cmd_args_init(cmd_args *a, const char *cmd, int argc, char **argv, const char *shorts,
                   const struct option *longs)
{
	memset(a, 0, sizeof *a);
	a->cmd = cmd;
	a->argc = argc;
	a->argv = argv;
	a->longs = longs;
	/* '-': operands come back in order as option 1; ':': a missing value is ':', not '?'. */
	snprintf(a->shorts, sizeof a->shorts, "-:%s", shorts);
	optind = 0; /* glibc: start over, re-reading the optstring */
	opterr = 0;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	const char *sp = cmd ? " " : "";
	cmd = cmd ? cmd : "";
	fprintf(stderr, "tephra%s%s: ", sp, cmd);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'tephra%s%s --help'.\n", sp, cmd);
	return 2;
}

static const struct option *long_by_val(const struct option *l, int val)
{
	for (; l && l->name; l++)
		if (l->val == val && !l->flag)
			return l;
	return NULL;
}

/* `--name` or `--name=value` given where no option matched: unknown, or a prefix of several. */
static void unknown_long(const cmd_args *a, const char *arg, int n)
{
	char seen[256] = "";
	size_t used = 0;
	int matches = 0;
	for (const struct option *l = a->longs; l && l->name; l++) {
		if (strncmp(l->name, arg + 2, (size_t)n - 2) != 0)
			continue;
		int w = snprintf(seen + used, sizeof seen - used, "%s--%s", matches ? ", " : "",
		                 l->name);
		used += w > 0 && (size_t)w < sizeof seen - used ? (size_t)w : 0;
		matches++;
	}
	if (matches > 1)
		cmd_usage_error(a->cmd, "ambiguous option '%.*s' (%s)", n, arg, seen);
	else
		cmd_usage_error(a->cmd, "unknown option '%.*s'", n, arg);
}

/* getopt returned ':' or '?' for the argument before optind (long options always move past
 * theirs; a short one's character is in optopt). */
static void option_error(const cmd_args *a, int c)
{
	const char *arg = optind > 0 && optind <= a->argc ? a->argv[optind - 1] : "";
	bool is_long = !strncmp(arg, "--", 2);
	const char *eq = strchr(arg, '=');
	int n = eq ? (int)(eq - arg) : (int)strlen(arg);
	const struct option *o = optopt ? long_by_val(a->longs, optopt) : NULL;
	if (c == ':' && is_long)
		cmd_usage_error(a->cmd, "option '%.*s' needs a value", n, arg);
	else if (c == ':')
		cmd_usage_error(a->cmd, "option '-%c' needs a value", optopt);
	else if (!optopt)
		unknown_long(a, arg, n);
	else if (o && is_long) /* `--flag=value` of a flag without one */
		cmd_usage_error(a->cmd, "option '--%s' takes no value", o->name);
	else
		cmd_usage_error(a->cmd, "unknown option '-%c'", optopt);
}

int cmd_next(cmd_args *a)
{
	a->arg = NULL;
	if (!a->rest) {
		int c = getopt_long(a->argc, a->argv, a->shorts, a->longs, NULL);
		if (c == ':' || c == '?') {
			option_error(a, c);
			return CMD_ERROR;
		}
		if (c != -1) {
			a->arg = optarg; /* the operand itself for CMD_OPERAND */
			return c;
		}
		a->rest = true; /* the end, or `--`: what is left are operands */
	}
	if (optind >= a->argc)
		return CMD_END;
	a->arg = a->argv[optind++];
	return CMD_OPERAND;
}

int cmd_parse(cmd_args *a, int (*fn)(const cmd_args *a, int c, void *ud), void *ud)
{
	int rc = 0;
	for (int c; !rc && (c = cmd_next(a)) != CMD_END;)
		rc = fn(a, c, ud);
	return rc;
}

int cmd_operand(const cmd_args *a, const char **slot)
{
	if (*slot)
		return cmd_usage_error(a->cmd, "unexpected argument '%s'", a->arg);
	*slot = a->arg;
	return 0;
}

bool cmd_u32(const cmd_args *a, const char *name, uint32_t lo, uint32_t hi, uint32_t *out)
{
	const char *s = a->arg ? a->arg : "";
	char *end = NULL;
	errno = 0;
	unsigned long long v = *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
	if (end && !*end && !errno && v >= lo && v <= hi) {
		*out = (uint32_t)v;
		return true;
	}
	cmd_usage_error(a->cmd, "--%s wants an integer in [%u, %u], not '%s'", name, lo, hi, s);
	return false;
}
