// SPDX-License-Identifier: GPL-2.0
/*
 * record --proc-map: the address maps of the traced processes, stored as
 * trace-cmd stores them (one PROCMAPS option per process: "PID NR EXE\n",
 * PID and NR in hex, then "START END NAME\n" per named mapping, in hex).
 *
 * A process's maps are gone once it has exited, and its exit is when they
 * are complete (every library it loaded is mapped).  So the processes are
 * traced with ptrace, as trace-cmd does: PTRACE_O_TRACEEXIT stops each one
 * at its exit with its mm still there, and the maps are read then.  A
 * process still running at the end is read as it is and detached.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/array.h"
#include "util/elf-addr.h"
#include "util/record-int.h"
#include "util/tracedat-write.h"
#include "util/usage.h"

struct procmap {
	pid_t pid;
	int attached;	/* still a tracee of ours */
	char *text;	/* the option's text, NULL until read */
};

static struct procmap *find(struct record *rec, pid_t pid)
{
	int i;

	for (i = 0; i < rec->wait.nr_procmaps; i++)
		if (rec->wait.procmaps[i].pid == pid)
			return &rec->wait.procmaps[i];
	return NULL;
}

static struct procmap *add(struct record *rec, pid_t pid)
{
	struct procmap *m = find(rec, pid);

	if (m)
		return m;
	grow_array(rec->wait.procmaps, rec->wait.nr_procmaps,
		   rec->wait.alloc_procmaps, 8);
	m = &rec->wait.procmaps[rec->wait.nr_procmaps++];
	m->pid = pid;
	m->attached = 0;
	m->text = NULL;
	return m;
}

/* Reads /proc/PID/maps into m's option text; keeps the old one on failure. */
static void read_maps(struct procmap *m)
{
	char path[64], exe[PATH_MAX], line[PATH_MAX + 128];
	struct strbuf body = STRBUF_INIT, text = STRBUF_INIT;
	ssize_t n;
	int nr = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)m->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0)
		return;
	exe[n] = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)m->pid);
	fp = fopen(path, "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long start, end;
		char name[PATH_MAX];

		/* Named mappings only: files, and [heap], [stack], [vdso]. */
		name[0] = 0;
		if (sscanf(line, "%llx-%llx %*s %*x %*s %*d %4095s", &start, &end, name) == 3 &&
		    name[0]) {
			strbuf_addf(&body, "%llx %llx %s\n", start, end, name);
			nr++;
		}
	}
	fclose(fp);
	if (nr) {
		strbuf_addf(&text, "%x %x %s\n", (unsigned int)m->pid, nr, exe);
		strbuf_add(&text, body.buf, body.len);
		free(m->text);
		m->text = strbuf_detach(&text, NULL);
	}
	strbuf_release(&body);
	strbuf_release(&text);
}

int record_procmap_attach(struct record *rec, pid_t pid, int follow,
			  int read_now)
{
	long opts = PTRACE_O_TRACEEXIT;
	struct procmap *m;

	if (follow)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			PTRACE_O_TRACECLONE;
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)opts) < 0) {
		int err = errno;

		record_error(rec, "--proc-map: cannot trace process %d: %s", (int)pid,
			     strerror(err));
		return -err;
	}
	m = add(rec, pid);
	m->attached = 1;
	if (read_now)
		read_maps(m);
	return 0;
}

/* Acts on one ptrace stop of pid and lets it go on. */
static void on_stop(struct record *rec, pid_t pid, int status)
{
	int event = (unsigned int)status >> 16, sig = 0;
	unsigned long msg = 0;
	struct procmap *m;

	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		/* The child is a tracee already, with the same options. */
		if (!ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg) && msg)
			add(rec, (pid_t)msg)->attached = 1;
		break;
	case PTRACE_EVENT_EXIT:
		m = find(rec, pid);
		if (m)
			read_maps(m);
		break;
	case 0:
		/* A signal on its way to the task: deliver it. */
		sig = WSTOPSIG(status);
		break;
	default:
		/*
		 * PTRACE_EVENT_STOP: a new child's first stop, or a group stop.
		 */
		break;
	}
	ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
}

int record_procmap_reap(struct record *rec, int *cmd_status)
{
	int status, ended = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		struct procmap *m;

		if (WIFSTOPPED(status)) {
			on_stop(rec, pid, status);
			continue;
		}
		m = find(rec, pid);
		if (m)
			m->attached = 0;
		if (pid == rec->wait.cmd.pid) {
			rec->wait.cmd.pid = 0;
			*cmd_status = status;
			ended = 1;
		}
	}
	return ended;
}

void record_procmap_finish(struct record *rec)
{
	int status, i;

	record_procmap_reap(rec, &rec->wait.cmd_status);
	for (i = 0; i < rec->wait.nr_procmaps; i++) {
		struct procmap *m = &rec->wait.procmaps[i];
		pid_t pid;

		if (!m->attached)
			continue;
		read_maps(m);
		/* A tracee is detached from a stop only: make one. */
		if (ptrace(PTRACE_INTERRUPT, m->pid, NULL, NULL) < 0) {
			m->attached = 0;
			continue;
		}
		while ((pid = waitpid(m->pid, &status, __WALL)) == m->pid) {
			int event = (unsigned int)status >> 16;

			if (!WIFSTOPPED(status))
				break;
			if (event == PTRACE_EVENT_STOP || event == 0) {
				long sig = event ? 0 : WSTOPSIG(status);

				ptrace(PTRACE_DETACH, m->pid, NULL,
				       (void *)sig);
				break;
			}
			on_stop(rec, m->pid, status);
		}
		if (pid == m->pid && !WIFSTOPPED(status) &&
		    pid == rec->wait.cmd.pid) {
			/* It exited meanwhile: its status is ours to keep. */
			rec->wait.cmd.pid = 0;
			rec->wait.cmd_status = status;
		}
		m->attached = 0;
	}
}

/* Appends "BUILDID PATH\n" for path to ids unless ids has path already. */
static void add_build_id(struct strbuf *ids, const char *path)
{
	struct strbuf hex = STRBUF_INIT, line = STRBUF_INIT;
	int fd, err;
	Elf *elf;

	strbuf_addf(&line, " %s\n", path);
	if (strstr(ids->buf, line.buf))
		goto out;
	elf = elf_addr_open_file(path, &fd, &err);
	if (elf && !elf_addr_build_id(elf, &hex))
		strbuf_addf(ids, "%s%s", hex.buf, line.buf);
	elf_addr_close_file(elf, fd);
out:
	strbuf_release(&hex);
	strbuf_release(&line);
}

/*
 * The build-ids of the files the maps name, read at the end of the recording.
 */
static void write_build_ids(struct record *rec)
{
	struct strbuf ids = STRBUF_INIT;
	char path[PATH_MAX];
	int i;

	for (i = 0; i < rec->wait.nr_procmaps; i++) {
		const char *l = rec->wait.procmaps[i].text;

		for (l = l ? strchr(l, '\n') : NULL; l && l[1];
		     l = strchr(l + 1, '\n'))
			if (sscanf(l + 1, "%*x %*x %4095s", path) == 1 && path[0] == '/')
				add_build_id(&ids, path);
	}
	if (ids.len)
		tracedat_write_option_str(rec->out.w, TRACEDAT_OPT_TK_BUILDIDS,
					  ids.buf);
	strbuf_release(&ids);
}

void record_procmap_write(struct record *rec)
{
	int i;

	for (i = 0; i < rec->wait.nr_procmaps; i++)
		if (rec->wait.procmaps[i].text)
			tracedat_write_option_str(rec->out.w,
						  TRACEDAT_OPT_PROCMAPS,
						  rec->wait.procmaps[i].text);
	write_build_ids(rec);
}

void record_procmap_release(struct record *rec)
{
	int i;

	for (i = 0; i < rec->wait.nr_procmaps; i++)
		free(rec->wait.procmaps[i].text);
	free(rec->wait.procmaps);
}
