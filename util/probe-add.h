/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_ADD_H
#define TK_PROBE_ADD_H

/*
 * The specs `tracekit probe -a` adds and `-D` prints: translated all
 * before anything is written (SDT specs on their own path, one command
 * line holding one kind), then their definitions printed or the events
 * added.  What the command is to say of it, in the order it is to say
 * it, comes back in a struct probe_output the command prints, as util/
 * never prints.
 */

enum probe_say {
	PROBE_SAY_OUT,		/* on stdout */
	PROBE_SAY_NOTE,		/* on stderr, as it is (-v) */
	PROBE_SAY_WARN,		/* warning_lines(), even empty */
	PROBE_SAY_ERROR,	/* an error line */
};

struct probe_said {
	enum probe_say kind;
	char *text;
};

struct probe_output {
	struct probe_said *v;
	int nr, alloc;
	int usage;		/* the failure is the command line's */
	int sdt;		/* the specs took the SDT path */
	/* "GROUP:EVENT" of each event added, in order, once each */
	char **events;
	int nr_events, alloc_events;
};

void probe_output_release(struct probe_output *said);

struct probe_add_opts {
	const char *exec;	/* -x: uprobes */
	const char *module;	/* -m */
	const char *vmlinux;	/* -k */
	const char *sysroot;	/* exec is in this copy of the target's files */
	const char *btf;	/* another kernel's BTF */
	int define_only;	/* -D: print, add nothing */
	int keep_going;		/* with -D: each spec on its own */
	int force_regs;		/* kprobe arguments as registers */
	int verbose;
	unsigned int call_graph;	/* bytes of stack to capture, 0: none */
	/*
	 * The events' group, whatever the specs say; NULL: the spec's, or
	 * perf's default (tracekit trace's probes go in a group of its own)
	 */
	const char *group;
	/* each event added registered for deletion at exit (tk_restore_*) */
	int undo;
	/* perf's options: */
	int dry_run;		/* -n: all but the writing */
	int force;		/* -f: an EVENT= taken gets a number */
	int no_inlines;		/* no inlined copies */
	int max_probes;		/* points of one spec (0: perf's 128) */
	int bootconfig;		/* -D as boot-time tracing's keys */
};

/*
 * The nr specs, printed (define_only) or added, each step put in said.
 * 0; or -errno, its error the last of said: with said->usage set for a
 * command line that cannot be (SDT and DWARF specs mixed, SDT specs
 * without exec, a bad SDT argument request, a --call-graph the events
 * cannot take), -EINVAL for a target that cannot be opened and specs
 * that do not translate.
 */
int probe_add(const struct probe_add_opts *o, const char *const *specs,
	      int nr, struct probe_output *said);

/*
 * --sdt: the markers of exec (in sysroot unless NULL) whose
 * sdt_PROVIDER:NAME matches filter (NULL: all), as said's output; a
 * warning where none does.  0, or -errno, with said->usage for a bad
 * filter.
 */
int probe_sdt_list(const char *exec, const char *sysroot, const char *filter,
		   struct probe_output *said);

#endif
