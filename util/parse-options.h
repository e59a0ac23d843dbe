/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PARSE_OPTIONS_H
#define TK_PARSE_OPTIONS_H

#include <stdio.h>

/*
 * Declarative option tables in the manner of git's parse-options.h.  Every
 * command describes its options once; the same table drives parsing, "-h"
 * and the usage text shown after a usage error.
 */

enum parse_opt_type {
	OPTION_END,
	OPTION_GROUP,
	OPTION_BOOL,	/* int: 1 when given, 0 with --no-NAME */
	OPTION_INCR,	/* int: +1 for each time given */
	OPTION_SET_INT,	/* int: set to defval */
	OPTION_INTEGER,	/* int, strtol base 0 */
	OPTION_ULONG,	/* unsigned long, strtoul base 0 */
	OPTION_STRING,	/* const char *: the argument itself */
	OPTION_STRING_LIST, /* struct opt_string_list: appends each argument */
	OPTION_CALLBACK,
};

enum parse_opt_flags {
	PARSE_OPT_KEEP_DASHDASH = 1 << 0,
	/* Stop at the first non-option (subcommands, "-- COMMAND"). */
	PARSE_OPT_STOP_AT_NON_OPTION = 1 << 1,
};

enum parse_opt_option_flags {
	PARSE_OPT_OPTARG = 1 << 0,	/* argument is optional: --opt[=val] */
	PARSE_OPT_NOARG = 1 << 1,	/* callback takes no argument */
	PARSE_OPT_NONEG = 1 << 2,	/* no --no-NAME form */
	PARSE_OPT_HIDDEN = 1 << 3,	/* not shown by -h */
};

struct option;
struct strbuf;
typedef int parse_opt_cb(const struct option *opt, const char *arg, int unset);

struct option {
	enum parse_opt_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;
	const char *help;
	int flags;
	parse_opt_cb *callback;
	long defval;
};

struct opt_string_list {
	int nr;
	int alloc;
	const char **items;
};

/* Every OPT_* below is one such entry with the fields its type uses. */
#define OPT_ENTRY_(t, s, l, v, a, h, f, cb, d) \
	{ .type = (t), .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .flags = (f), .callback = (cb), \
	  .defval = (d) }

#define OPT_END()	{ .type = OPTION_END }
#define OPT_GROUP(h)	{ .type = OPTION_GROUP, .help = (h) }
#define OPT_BOOL(s, l, v, h) \
	OPT_ENTRY_(OPTION_BOOL, s, l, v, NULL, h, 0, NULL, 0)
/* Not shown by -h nor offered by --list-opts: what only scripts ask. */
#define OPT_HIDDEN_BOOL(s, l, v, h) \
	OPT_ENTRY_(OPTION_BOOL, s, l, v, NULL, h, PARSE_OPT_HIDDEN, NULL, 0)
#define OPT_INCR(s, l, v, h) \
	OPT_ENTRY_(OPTION_INCR, s, l, v, NULL, h, PARSE_OPT_NONEG, NULL, 0)
#define OPT_SET_INT(s, l, v, h, i) \
	OPT_ENTRY_(OPTION_SET_INT, s, l, v, NULL, h, PARSE_OPT_NONEG, NULL, i)
#define OPT_INTEGER(s, l, v, a, h) \
	OPT_ENTRY_(OPTION_INTEGER, s, l, v, a, h, 0, NULL, 0)
#define OPT_ULONG(s, l, v, a, h) \
	OPT_ENTRY_(OPTION_ULONG, s, l, v, a, h, 0, NULL, 0)
#define OPT_STRING(s, l, v, a, h) \
	OPT_ENTRY_(OPTION_STRING, s, l, v, a, h, 0, NULL, 0)
#define OPT_STRING_LIST(s, l, v, a, h) \
	OPT_ENTRY_(OPTION_STRING_LIST, s, l, v, a, h, 0, NULL, 0)
#define OPT_CALLBACK(s, l, v, a, h, cb) \
	OPT_ENTRY_(OPTION_CALLBACK, s, l, v, a, h, 0, cb, 0)
#define OPT_CALLBACK_NOARG(s, l, v, h, cb) \
	OPT_ENTRY_(OPTION_CALLBACK, s, l, v, NULL, h, PARSE_OPT_NOARG, cb, 0)

/*
 * Parses argv in place and returns the new argc: argv[0..ret) are the
 * non-option arguments in their original order.  "-h" prints the usage
 * to stdout and exits 0; "--help" shows the manual tracekit-CMD(1), CMD
 * being cmd_name(), where man finds it, else does what -h does; the
 * hidden "--list-opts" prints parse_options_list() and exits 0.  An
 * error prints the problem and the usage to stderr and exits 2.
 * Callbacks return 0, or -1 after reporting with error() to make parsing
 * fail the same way.
 */
int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usagestr, int flags);

/* Same, but returns -1 with the problem added to err, and -2 for -h,
 * --help or --list-opts, instead of exiting, printing nothing: for tests
 * and callers that want their own reporting. */
int parse_options_noexit(int argc, const char **argv,
			 const struct option *opts, int flags,
			 struct strbuf *err);

/*
 * The options the completion script offers, one spelling a line: "-e"
 * and "--event", followed by "=ARGH" ("-e=EVENT", "--event=EVENT") when
 * the next word is the option's argument.  Hidden options are left out;
 * -h and --help, which every command takes, are in.  As git's
 * --git-completion-helper: the table is the one list of options.
 */
void parse_options_list(FILE *fp, const struct option *opts);

void usage_with_options_to(FILE *fp, const char *const *usagestr,
			   const struct option *opts);
void usage_with_options(const char *const *usagestr,
			const struct option *opts) __attribute__((noreturn));

void opt_string_list_append(struct opt_string_list *l, const char *s);
void opt_string_list_clear(struct opt_string_list *l);

#endif
