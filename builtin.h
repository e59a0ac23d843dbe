/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_BUILTIN_H
#define TK_BUILTIN_H

/* Each command is cmd_NAME(argc, argv) with argv[0] the command name. */
int cmd_probe(int argc, const char **argv);
int cmd_record(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_trace(int argc, const char **argv);
int cmd_stack(int argc, const char **argv);
int cmd_ubifs(int argc, const char **argv);
int cmd_test(int argc, const char **argv);

extern const char tracekit_version_string[];

#endif
