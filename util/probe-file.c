// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/probe-file.h"
#include "util/tracefs-restore.h"
#include "util/tracefs.h"
#include "util/usage.h"

/* MAX_EVENT_NAME_LEN in kernel/trace/trace.h, including the NUL. */
#define MAX_EVENT_NAME_LEN 64

const char *probe_kind_file(enum probe_kind kind)
{
	return kind == PROBE_KPROBE ? "kprobe_events" : "uprobe_events";
}

int probe_name_valid(const char *name)
{
	const char *p = name;

	if (!*p || strlen(p) >= MAX_EVENT_NAME_LEN)
		return 0;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	return 1;
}

void probe_name_sanitize(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addch(sb, isalnum((unsigned char)*s) ? *s : '_');
}

int probe_def_parse(const char *line, enum probe_kind kind,
		    struct probe_def *def)
{
	const char *p = line, *name, *sep, *end;

	memset(def, 0, sizeof(*def));
	if ((*p != 'p' && *p != 'r') )
		return -EINVAL;
	def->type = *p++;
	while (isdigit((unsigned char)*p))	/* r[MAXACTIVE] */
		p++;
	if (*p != ':')
		return -EINVAL;
	name = ++p;
	end = name + strcspn(name, " \t\n");
	sep = memchr(name, '/', end - name);
	if (!sep)
		sep = memchr(name, '.', end - name);
	if (!sep || sep == name || sep + 1 == end)
		return -EINVAL;
	def->kind = kind;
	def->group = xstrndup(name, sep - name);
	def->event = xstrndup(sep + 1, end - sep - 1);
	def->line = xstrndup(line, strcspn(line, "\n"));
	return 0;
}

static void defs_push(struct probe_defs *defs, const struct probe_def *d)
{
	grow_array(defs->v, defs->nr, defs->alloc, 16);
	defs->v[defs->nr++] = *d;
}

int probe_defs_read(struct probe_defs *defs)
{
	static const enum probe_kind kinds[] = { PROBE_KPROBE, PROBE_UPROBE };
	size_t k;

	memset(defs, 0, sizeof(*defs));
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct strbuf sb = STRBUF_INIT;
		char *line, *save = NULL;
		long n = tk_tracefs_read(NULL, probe_kind_file(kinds[k]), &sb);

		if (n == -ENOENT) {
			strbuf_release(&sb);
			continue;
		}
		if (n < 0) {
			strbuf_release(&sb);
			probe_defs_release(defs);
			return (int)n;
		}
		for (line = strtok_r(sb.buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			struct probe_def d;

			if (!probe_def_parse(line, kinds[k], &d))
				defs_push(defs, &d);
		}
		strbuf_release(&sb);
	}
	return 0;
}

void probe_def_release(struct probe_def *def)
{
	free(def->group);
	free(def->event);
	free(def->line);
}

void probe_defs_release(struct probe_defs *defs)
{
	release_array(defs->v, defs->nr, probe_def_release);
	memset(defs, 0, sizeof(*defs));
}

static void delete_line(struct strbuf *sb, const char *group, const char *event)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "-:%s/%s", group, event);
}

int probe_defs_add(enum probe_kind kind, const char *const *lines, int nr,
		   int undo, struct strbuf *err)
{
	const char *file = probe_kind_file(kind);
	struct strbuf path = STRBUF_INIT, del = STRBUF_INIT;
	struct probe_def *added = xcalloc(nr, sizeof(*added));
	int i, ret = 0, nadded = 0;

	tk_tracefs_path(&path, NULL, file);
	for (i = 0; i < nr; i++) {
		struct probe_def d;

		if (strpbrk(lines[i], "\n\r") || probe_def_parse(lines[i], kind, &d)) {
			strbuf_addf(err, "malformed definition: %s", lines[i]);
			ret = -EINVAL;
			break;
		}
		/* Register the undo first: a signal may land right after. */
		delete_line(&del, d.group, d.event);
		if (undo)
			tk_restore_push_write(path.buf, del.buf, 1);
		ret = tk_dynevent_write(file, lines[i], err);
		if (ret) {
			if (undo)
				tk_restore_forget(path.buf, del.buf);
			if (!err->len)
				strbuf_addf(err, "%s: %s", file, strerror(-ret));
			strbuf_addf(err, "\n  definition: %s", lines[i]);
			free(d.group);
			free(d.event);
			free(d.line);
			break;
		}
		added[nadded++] = d;
	}
	if (ret) {
		/* Multi-probe events may be half made: remove what we added. */
		for (i = nadded - 1; i >= 0; i--) {
			delete_line(&del, added[i].group, added[i].event);
			tk_tracefs_append(NULL, file, del.buf);
			if (undo)
				tk_restore_forget(path.buf, del.buf);
		}
	}
	for (i = 0; i < nadded; i++) {
		free(added[i].group);
		free(added[i].event);
		free(added[i].line);
	}
	free(added);
	strbuf_release(&path);
	strbuf_release(&del);
	return ret;
}

static int glob_matches(const char *glob, const struct probe_def *d)
{
	const char *colon = strchr(glob, ':');
	struct strbuf full = STRBUF_INIT;
	int ok;

	if (!colon)
		return !fnmatch(glob, d->event, 0);
	strbuf_addf(&full, "%s:%s", d->group, d->event);
	ok = !fnmatch(glob, full.buf, 0);
	strbuf_release(&full);
	return ok;
}

int probe_defs_del(const char *glob, struct strbuf *deleted, struct strbuf *err)
{
	struct probe_defs defs;
	struct strbuf del = STRBUF_INIT, seen = STRBUF_INIT;
	int i, ret, n = 0;

	ret = probe_defs_read(&defs);
	if (ret) {
		strbuf_addf(err, "cannot read probe definitions: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < defs.nr; i++) {
		const struct probe_def *d = &defs.v[i];

		if (!glob_matches(glob, d))
			continue;
		/* A multi-probe event is listed once per probe point. */
		delete_line(&del, d->group, d->event);
		strbuf_addch(&del, '\n');
		if (strstr(seen.buf, del.buf))
			continue;
		strbuf_addstr(&seen, del.buf);
		ret = tk_dynevent_delete(probe_kind_file(d->kind), d->group,
					 d->event);
		if (ret) {
			strbuf_addf(err, "cannot delete %s:%s: %s%s", d->group,
				    d->event, strerror(-ret),
				    ret == -EBUSY ? " (is it enabled or in use?)" : "");
			break;
		}
		if (deleted)
			strbuf_addf(deleted, "%s:%s\n", d->group, d->event);
		n++;
	}
	probe_defs_release(&defs);
	strbuf_release(&del);
	strbuf_release(&seen);
	return ret ? ret : n;
}

int probe_name_taken(const char *group, const char *event)
{
	struct strbuf path = STRBUF_INIT;
	int ok;

	tk_tracefs_path(&path, NULL, "events");
	strbuf_addf(&path, "/%s/%s", group, event);
	ok = access(path.buf, F_OK) == 0;
	strbuf_release(&path);
	return ok;
}
