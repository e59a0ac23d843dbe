/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_HELP_H
#define TK_HELP_H

/*
 * The manual pages, shown as git help shows its own: `tracekit help CMD`
 * and `tracekit CMD --help` run man(1) on tracekit-CMD where man finds
 * it (make install puts it there), and fall back to the built-in usage
 * where it does not.
 */

struct strbuf;

/*
 * Shows the page (e.g. "tracekit-record") with man when `man -w PAGE`
 * finds it.  man's exit status once shown (man pages its output only on
 * a terminal: into a pipe it writes the text); -ENOENT when there is no
 * such page installed, or no man (err then holds nothing of use);
 * another -errno, with the reason in err, when man could not be started
 * or waited for.
 */
int help_show_man_page(const char *page, struct strbuf *err);

#endif
