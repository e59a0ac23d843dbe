/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_USAGE_H
#define TK_USAGE_H

#include <stddef.h>

/*
 * Diagnostics in git's manner, for builtins: die() for fatal user-facing
 * errors.  Library code returns negative codes and reports into a
 * struct strbuf, one line per problem, which the builtin prints with
 * error_lines() or warning_lines().  Messages go to stderr prefixed
 * "tracekit <cmd>: " once a command is set.
 */
void set_cmd_name(const char *name);
const char *cmd_name(void);
/* Reports like error(), then exits with code. */
void die_code(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
#define die(...) die_code(TK_EXIT_FAIL, __VA_ARGS__)
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Each line of text as an error() or warning() of its own. */
void error_lines(const char *text);
void warning_lines(const char *text);

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t n);
void *xrealloc(void *p, size_t n);
/* xrealloc() of nmemb elements of n bytes, dying if the product overflows. */
void *xreallocarray(void *p, size_t nmemb, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Exit codes shared by all commands: 0 ok, 1 failed or invalid input,
 * 2 usage, 3 environment unavailable (no tracefs, no permission). */
enum {
	TK_EXIT_OK = 0,
	TK_EXIT_FAIL = 1,
	TK_EXIT_USAGE = 2,
	TK_EXIT_ENV = 3,
};

/*
 * The exit code of a util/ function's result, 0 or a negative errno:
 * TK_EXIT_ENV for -EACCES and -EPERM (not root, lockdown, a read-only
 * tracefs) and -ENODEV (tracefs not mounted, or the kernel lacks the
 * interface: util/ returns -ENODEV for a missing feature), else
 * TK_EXIT_FAIL.  -ENOENT is a failure: it names a file, event or symbol
 * the user gave as often as a tracefs file, and the feature checks that
 * tell the two apart return -ENODEV.  Usage errors are the builtin's
 * own (TK_EXIT_USAGE), never derived from an errno.
 */
int tk_exit_code(int err);

#endif
