// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit: one binary, git/perf style subcommands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/usage.h"

#ifndef TRACEKIT_VERSION
#define TRACEKIT_VERSION "unknown"
#endif

const char tracekit_version_string[] = TRACEKIT_VERSION;

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *summary;
};

/*
 * The one list of the commands: --help, the bash completion and the tests
 * read it (--list-cmds), and tests/shell/commands.sh holds README.md's
 * table and Documentation/tracekit.txt to these names and summaries.
 * CONTRIBUTING.md lists what else a new command needs.
 */
static const struct cmd_struct commands[] = {
	{ "probe", cmd_probe,
	  "Define kprobe/uprobe events from DWARF, BTF and SDT markers" },
	{ "record", cmd_record,
	  "Record tracefs ring buffers into a zstd trace.dat v7 file" },
	{ "report", cmd_report,
	  "Print trace.dat files as text, JSON, folded stacks, flame graphs" },
	{ "trace", cmd_trace,
	  "Trace and aggregate probes and tracepoints live, then clean up" },
	{ "stack", cmd_stack,
	  "Drive the kernel's stack tracer (max stack depth)" },
	{ "ubifs", cmd_ubifs,
	  "Sign, verify and extract authenticated UBIFS images" },
	{ "test", cmd_test,
	  "Run tracekit's built-in self tests" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char tracekit_usage[] =
	"usage: tracekit [--version] [--help] [--list-cmds[=summary]] "
	"COMMAND [ARGS]";

static void list_commands(FILE *fp)
{
	size_t i;

	fprintf(fp, "%s\n\nThe tracekit commands are:\n", tracekit_usage);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(fp, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "\nSee 'tracekit help COMMAND' for more information on a command.\n");
}

static const struct cmd_struct *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Damerau-free Levenshtein distance: enough to catch typos like "recrod". */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t *row = xcalloc(lb + 1, sizeof(*row)), res;

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	res = row[lb];
	free(row);
	return res;
}

static int unknown_command(const char *name)
{
	const struct cmd_struct *best = NULL;
	size_t best_d = (size_t)-1, i;

	fprintf(stderr, "tracekit: '%s' is not a tracekit command. See 'tracekit --help'.\n",
		name);
	for (i = 0; i < NR_COMMANDS; i++) {
		/* A prefix ("rec") is as good a hint as a typo ("recrod"). */
		size_t d = strncmp(commands[i].name, name, strlen(name)) ?
			edit_distance(name, commands[i].name) : 0;

		if (d < best_d) {
			best_d = d;
			best = &commands[i];
		}
	}
	if (best && best_d <= 2)
		fprintf(stderr, "\nThe most similar command is\n\t%s\n", best->name);
	return TK_EXIT_USAGE;
}

static int run_builtin(const struct cmd_struct *cmd, int argc,
		       const char **argv)
{
	int ret;

	set_cmd_name(cmd->name);
	ret = cmd->fn(argc, argv);
	if (fflush(stdout) || ferror(stdout)) {
		error("write error on standard output");
		return TK_EXIT_FAIL;
	}
	return ret;
}

/*
 * --list-cmds: what may follow "tracekit", for the completion.
 * --list-cmds=summary: the table itself, NAME<TAB>SUMMARY, for the tests
 * that hold the README and the manual to it (help is no entry of it).
 */
static void list_cmds(int summary)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++) {
		if (summary)
			printf("%s\t%s\n", commands[i].name, commands[i].summary);
		else
			printf("%s\n", commands[i].name);
	}
	if (!summary)
		printf("help\n");
}

/* "help CMD" is "CMD --help": the manual where man finds it, else -h. */
static int cmd_help(int argc, const char **argv)
{
	const struct cmd_struct *cmd;
	const char *help_argv[] = { NULL, "--help", NULL };

	if (argc < 2) {
		list_commands(stdout);
		return TK_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		printf("%s\n", tracekit_usage);
		return TK_EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	help_argv[0] = cmd->name;
	return run_builtin(cmd, 2, help_argv);
}

int main(int argc, const char **argv)
{
	const struct cmd_struct *cmd;

	if (argc < 2) {
		list_commands(stderr);
		return TK_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("tracekit version %s\n", tracekit_version_string);
		return TK_EXIT_OK;
	}
	if (!strcmp(argv[1], "--list-cmds") ||
	    !strcmp(argv[1], "--list-cmds=summary")) {
		list_cmds(!strcmp(argv[1], "--list-cmds=summary"));
		return TK_EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if (argv[1][0] == '-') {
		fprintf(stderr, "tracekit: unknown option '%s'\n%s\n", argv[1],
			tracekit_usage);
		return TK_EXIT_USAGE;
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	return run_builtin(cmd, argc - 1, argv + 1);
}
