// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fetcharg.h"
#include "util/probe-note.h"
#include "util/wrapper.h"

static void note_path(struct strbuf *sb, const char *group, const char *event)
{
	strbuf_addf(sb, PROBE_NOTE_DIR "/%s.%s", group, event);
}

/* The event's definition lines in defs, each as "def LINE\n". */
static void def_lines(const struct probe_defs *defs, const char *group,
		      const char *event, struct strbuf *out)
{
	int i;

	for (i = 0; i < defs->nr; i++)
		if (!strcmp(defs->v[i].group, group) &&
		    !strcmp(defs->v[i].event, event))
			strbuf_addf(out, "def %s\n", defs->v[i].line);
}

/* mkdir -p of PROBE_NOTE_DIR, which lies two levels under /run. */
static int make_dir(struct strbuf *err)
{
	char dir[] = PROBE_NOTE_DIR;
	char *slash = strrchr(dir, '/');
	int ret;

	*slash = '\0';
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto fail;
	*slash = '/';
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto fail;
	return 0;
fail:
	ret = -errno;
	strbuf_addf(err, "%s: cannot create: %s", dir, strerror(-ret));
	return ret;
}

int probe_note_write(const struct probe_defs *defs, const char *group,
		     const char *event, const char *fields, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	const char *f;
	int ret;

	if (!*fields) {
		probe_note_remove(group, event);
		return 0;
	}
	ret = make_dir(err);
	if (ret)
		return ret;
	note_path(&path, group, event);
	def_lines(defs, group, event, &text);
	for (f = fields; *f; f += strcspn(f, "\n") + 1)
		strbuf_addf(&text, "signed %.*s\n", (int)strcspn(f, "\n"), f);
	ret = write_file_atomic(path.buf, text.buf, text.len, 0644, err);
	strbuf_release(&path);
	strbuf_release(&text);
	return ret;
}

/*
 * A note removed with its event, and the directories when they are left
 * empty.  A note that cannot be removed does no harm: its def lines are
 * stale the moment its event is gone.
 */
void probe_note_remove(const char *group, const char *event)
{
	struct strbuf path = STRBUF_INIT;
	char dir[] = PROBE_NOTE_DIR;

	note_path(&path, group, event);
	if (!unlink(path.buf) && !rmdir(dir)) {
		*strrchr(dir, '/') = '\0';
		rmdir(dir);
	}
	strbuf_release(&path);
}

/* "FIELD WIDTH": a fetcharg name and 1 to 64 bits. */
static int field_valid(const char *s, size_t len)
{
	char name[FETCH_MAX_ARG_NAME_LEN + 1];
	unsigned int w;
	int n = 0;

	if (len > 64 || sscanf(s, "%32s %u%n", name, &w, &n) != 2 ||
	    (size_t)n != len)
		return 0;
	return fetch_arg_name_valid(name) && w >= 1 && w <= 64;
}

int probe_note_fields(const struct probe_defs *defs, const char *group,
		      const char *event, struct strbuf *fields,
		      struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT;
	struct strbuf have = STRBUF_INIT, sig = STRBUF_INIT;
	const char *l;
	long n;
	int ret = 0, nr = 0;

	def_lines(defs, group, event, &want);
	if (!want.len)
		goto out;
	note_path(&path, group, event);
	n = strbuf_read_file(&text, path.buf, 1024);
	if (n == -ENOENT)
		goto out;
	if (n < 0) {
		ret = (int)n;
		strbuf_addf(err, "%s: cannot read: %s", path.buf,
			    strerror(-ret));
		goto out;
	}
	for (l = text.buf; *l;
	     l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0')) {
		size_t len = strcspn(l, "\n");

		nr++;
		if (!strncmp(l, "def ", 4)) {
			strbuf_add(&have, l, len);
			strbuf_addch(&have, '\n');
		} else if (!strncmp(l, "signed ", 7) &&
			   field_valid(l + 7, len - 7)) {
			strbuf_add(&sig, l + 7, len - 7);
			strbuf_addch(&sig, '\n');
		} else {
			ret = -EINVAL;
			strbuf_addf(err, "%s: line %d: not a probe note line",
				    path.buf, nr);
			goto out;
		}
	}
	if (!strcmp(want.buf, have.buf))
		strbuf_add(fields, sig.buf, sig.len);
out:
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&want);
	strbuf_release(&have);
	strbuf_release(&sig);
	return ret;
}
