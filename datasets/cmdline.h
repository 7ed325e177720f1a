/* The conventions every `tephra` command follows on its command line: getopt_long parsing
 * (`--x=y` and `--x y`, short options, `--` ends the options, `-` is an operand: standard input
 * or output where a file is meant) and a usage error as one line plus a hint. It lives here, at
 * the bottom of the CLI's libraries (kernel/cli links tph_datasets), so that gen and import
 * (this folder) and run and check (kernel/cli) share it. */
#ifndef TPH_CMDLINE_H
#define TPH_CMDLINE_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

/* What cmd_next() returns besides an option's `val`. Options without a short form use values
 * from CMD_LONG on, so that no `val` collides with these or with a character. */
enum {
	CMD_END = -1,    /* no more arguments */
	CMD_ERROR = -2,  /* a usage error, already printed: exit 2 */
	CMD_OPERAND = 1, /* an operand (argument that is no option) in `arg` */
	CMD_LONG = 256
};

/* A pass over argv[1..argc). Operands come back in the order given, wherever they stand among the
 * options (whatever POSIXLY_CORRECT says); after `--` every argument is an operand. */
typedef struct cmd_args {
	const char *cmd; /* "run", "import alibaba"; NULL for the top level */
	int argc;
	char **argv;
	char shorts[64]; /* getopt's optstring: "-:" and the short options */
	const struct option *longs;
	const char *arg; /* the operand, or the value of the option just returned */
	bool rest;       /* `--` was seen */
} cmd_args;

/* Start a pass; `shorts` as getopt's ("ho:"), `longs` ends with a zeroed entry. Resets getopt's
 * state, so a process may parse several command lines. */
void cmd_args_init(cmd_args *a, const char *cmd, int argc, char **argv, const char *shorts,
                   const struct option *longs);

/* The next option's `val` (its value in a->arg), CMD_OPERAND, CMD_END, or CMD_ERROR after
 * printing one of: unknown option '--x', ambiguous option '--s' (--summary, --shape-cache-mb),
 * option '--x' takes no value, option '--x' needs a value. */
int cmd_next(cmd_args *a);

/* Hand every option and operand of the pass to `fn` (an option's `val`, CMD_OPERAND or CMD_ERROR,
 * as cmd_next() returns them) until CMD_END or its first non-zero answer, which is returned. */
int cmd_parse(cmd_args *a, int (*fn)(const cmd_args *a, int c, void *ud), void *ud);

/* The one operand a command takes, into *slot: 0, or 2 after a usage error (`unexpected argument
 * 'x'`) when *slot is already set. */
int cmd_operand(const cmd_args *a, const char **slot);

/* Print `tephra CMD: MESSAGE` and `Try 'tephra CMD --help'.` on stderr; returns 2. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* a->arg as a decimal integer in [lo, hi]; else a usage error (`--NAME wants an integer in
 * [lo, hi]`) naming `name`, the option without dashes, and false. */
bool cmd_u32(const cmd_args *a, const char *name, uint32_t lo, uint32_t hi, uint32_t *out);

#endif
