// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation in the kernel: a hist trigger built with libtracefs
 * (tracefs_hist_*) from report's aggregation options, and its `hist`
 * file, which nothing in libtracefs parses, read back into an aggregate
 * table (kernel/trace/trace_events_hist.c: hist_trigger_print_key(),
 * hist_trigger_entry_print(), hist_show()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "util/trace-hist.h"
#include "util/tracefs-restore.h"
#include "util/tracefs.h"
#include "util/usage.h"

/* TRACING_MAP_KEYS_MAX, kernel/trace/tracing_map.h (6.1). */
#define KERNEL_KEYS_MAX	3
/* The table's size when the trigger names none (TRACING_MAP_BITS_DEFAULT). */
#define KERNEL_TABLE_SIZE	2048


/* A key of the trigger: a field of the event, or common_pid, common_cpu. */
struct th_kkey {
	const char *field;
	int execname;			/* common_pid.execname: "dd [ 12]" */
	int string;
	int sign_bits;			/* > 0: sign-extend from that bit */
};

struct th_kval {
	const char *str;		/* a string key's text, in the line */
	size_t len;
	uint64_t num;
};

struct trace_hist {
	const struct report_agg_opts *o;
	char *instance, *system, *event, *filter;
	char *event_key;		/* "SYSTEM:EVENT", the event key */
	struct th_kkey kkeys[KERNEL_KEYS_MAX];
	int nr_kkeys;
	int *key_of;			/* by table key: a kkeys index, -1 */
	enum report_agg_key *src;		/* by table key */
	int value_key;			/* the kkeys index of the value, -1 */
	struct tracefs_hist *hist;
	char *cmd;			/* "hist:keys=...:vals=... if F" */
	char *file;			/* "events/SYSTEM/EVENT/trigger" */
	char *trigger;			/* the same, absolute: the undo's */
	int started;
};

/* The value is one of the keys where the table keeps each value. */
static int value_is_key(const struct report_agg_opts *o)
{
	return o->op == AGGREGATE_HIST || o->op == AGGREGATE_LHIST ||
	       o->op == AGGREGATE_MIN || o->op == AGGREGATE_MAX;
}

static const char *kernel_field(enum report_agg_key s, const char *name)
{
	if (s == REPORT_AGG_KEY_COMM || s == REPORT_AGG_KEY_PID)
		return "common_pid";
	if (s == REPORT_AGG_KEY_CPU)
		return "common_cpu";
	return name;
}

/* The index of the trigger's key for field, added where new; -1: full. */
static int kkey_of(struct th_kkey *kk, int *nr, const char *field)
{
	int i;

	for (i = 0; i < *nr; i++)
		if (!strcmp(kk[i].field, field))
			return i;
	if (*nr == KERNEL_KEYS_MAX)
		return -1;
	memset(&kk[*nr], 0, sizeof(*kk));
	kk[*nr].field = field;
	return (*nr)++;
}

/*
 * The trigger's keys for o, into kk; the number, or -1 when more than
 * the kernel takes.  A table without keys still needs one: common_pid,
 * folded over.
 */
static int plan_keys(const struct report_agg_opts *o, struct th_kkey *kk,
		     int *key_of, enum report_agg_key *src, int *value_key)
{
	int nr = 0, i;

	for (i = 0; i < o->nr_keys; i++) {
		src[i] = report_agg_key_kind(o->keys[i]);
		key_of[i] = -1;
		if (src[i] == REPORT_AGG_KEY_EVENT)
			continue;
		key_of[i] = kkey_of(kk, &nr, kernel_field(src[i], o->keys[i]));
		if (key_of[i] < 0)
			return -1;
		if (src[i] == REPORT_AGG_KEY_COMM)
			kk[key_of[i]].execname = 1;
	}
	*value_key = -1;
	if (value_is_key(o)) {
		*value_key = kkey_of(kk, &nr, o->field);
		if (*value_key < 0)
			return -1;
	}
	if (!nr)
		kkey_of(kk, &nr, "common_pid");
	return nr;
}

int trace_hist_supported(const struct report_agg_opts *o, struct strbuf *why)
{
	struct th_kkey kk[KERNEL_KEYS_MAX];
	int *key_of = xcalloc(o->nr_keys + 1, sizeof(*key_of));
	enum report_agg_key *src = xcalloc(o->nr_keys + 1, sizeof(*src));
	int value_key, ret = 0;

	if (plan_keys(o, kk, key_of, src, &value_key) < 0) {
		strbuf_addf(why, "%s: a hist trigger has %d keys at most, and this table needs more%s",
			    o->option, KERNEL_KEYS_MAX,
			    value_is_key(o) ? " (the value is one)" : "");
		ret = -EOPNOTSUPP;
	}
	free(key_of);
	free(src);
	return ret;
}

/* "SYSTEM:EVENT has no field 'F' (its fields: a, b)", as report says. */
static int no_field(const struct trace_hist *h, struct tep_event *ev,
		    const char *name, struct strbuf *err)
{
	struct tep_format_field **f = tep_event_fields(ev);
	int i;

	strbuf_addf(err, "%s: %s:%s has no field '%s' (its fields:",
		    h->o->option, h->system, h->event, name);
	for (i = 0; f && f[i]; i++)
		strbuf_addf(err, "%s %s", i ? "," : "", f[i]->name);
	strbuf_addstr(err, i ? ")" : " none)");
	free(f);
	return -EINVAL;
}

/* Each key's type from the event's format; common_cpu is no field. */
static int type_keys(struct trace_hist *h, struct tep_event *ev,
		     struct strbuf *err)
{
	struct tep_format_field *f;
	struct th_kkey *k;
	int i;

	for (i = 0; i < h->nr_kkeys; i++) {
		k = &h->kkeys[i];
		if (!strcmp(k->field, "common_cpu"))
			continue;
		f = tep_find_any_field(ev, k->field);
		if (!f)
			return no_field(h, ev, k->field, err);
		k->string = (f->flags & TEP_FIELD_IS_STRING) ||
			    ((f->flags & TEP_FIELD_IS_ARRAY) &&
			     f->elementsize == 1);
		if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8)
			k->sign_bits = 8 * f->size;
	}
	if (h->value_key >= 0 && h->kkeys[h->value_key].string)
		goto string_value;
	if (h->o->field && h->value_key < 0) {
		f = tep_find_any_field(ev, h->o->field);
		if (!f)
			return no_field(h, ev, h->o->field, err);
		if ((f->flags & TEP_FIELD_IS_STRING) ||
		    ((f->flags & TEP_FIELD_IS_ARRAY) && f->elementsize == 1))
			goto string_value;
	}
	return 0;
string_value:
	strbuf_addf(err, "%s: %s:%s's field '%s' is a string, not a number",
		    h->o->option, h->system, h->event, h->o->field);
	return -EINVAL;
}

/*
 * libtracefs's text of the command, from tracefs_hist_echo_cmd() ("echo
 * 'CMD' > PATH"): it takes a filter only as parsed parts, and the caller
 * has the text of one, which follows as " if FILTER" as the kernel reads
 * it.
 */
static int make_command(struct trace_hist *h, struct tracefs_instance *inst,
			struct strbuf *err)
{
	struct strbuf cmd = STRBUF_INIT;
	struct trace_seq seq;
	const char *p, *end;
	int ret = 0;

	trace_seq_init(&seq);
	if (tracefs_hist_echo_cmd(&seq, inst, h->hist,
				  TRACEFS_HIST_CMD_START) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	trace_seq_terminate(&seq);
	if (seq.state != TRACE_SEQ__GOOD) {
		ret = -ENOMEM;
		goto out;
	}
	p = seq.buffer;
	end = strstr(p, "' > ");
	if (strncmp(p, "echo '", 6) || !end) {
		strbuf_addf(err, "libtracefs's command is not echo 'CMD' > PATH: %s",
			    p);
		ret = -EINVAL;
		goto out;
	}
	p += 6;
	strbuf_add(&cmd, p, end - p);
	if (h->filter)
		strbuf_addf(&cmd, " if %s", h->filter);
	h->cmd = strbuf_detach(&cmd, NULL);
out:
	trace_seq_destroy(&seq);
	return ret;
}

static int build_hist(struct trace_hist *h, struct tep_handle *tep,
		      struct strbuf *err)
{
	struct tracefs_instance *inst = NULL;
	const struct th_kkey *k;
	int i, ret = -ENOMEM;

	if (h->instance) {
		inst = tracefs_instance_alloc(NULL, h->instance);
		if (!inst)
			return -ENOMEM;
	}
	h->hist = tracefs_hist_alloc_nd(tep, h->system, h->event, NULL);
	if (!h->hist)
		goto out;
	for (i = 0; i < h->nr_kkeys; i++) {
		k = &h->kkeys[i];
		if (tracefs_hist_add_key(h->hist, k->field, k->execname ?
					 TRACEFS_HIST_KEY_EXECNAME :
					 TRACEFS_HIST_KEY_NORMAL) < 0)
			goto out;
	}
	if (h->o->field && h->value_key < 0 &&
	    tracefs_hist_add_value(h->hist, h->o->field) < 0)
		goto out;
	ret = make_command(h, inst, err);
out:
	tracefs_instance_free(inst);
	return ret;
}

int trace_hist_new(struct tep_handle *tep, const char *instance,
		   const char *system, const char *event, const char *filter,
		   const struct report_agg_opts *o, struct trace_hist **out,
		   struct strbuf *err)
{
	struct trace_hist *h = xcalloc(1, sizeof(*h));
	struct strbuf sb = STRBUF_INIT;
	struct tep_event *ev;
	int ret;

	*out = NULL;
	h->o = o;
	h->instance = instance ? xstrdup(instance) : NULL;
	h->system = xstrdup(system);
	h->event = xstrdup(event);
	h->filter = filter ? xstrdup(filter) : NULL;
	strbuf_addf(&sb, "%s:%s", system, event);
	h->event_key = strbuf_detach(&sb, NULL);
	strbuf_addf(&sb, "events/%s/%s/trigger", system, event);
	h->file = strbuf_detach(&sb, NULL);
	h->key_of = xcalloc(o->nr_keys + 1, sizeof(*h->key_of));
	h->src = xcalloc(o->nr_keys + 1, sizeof(*h->src));
	h->nr_kkeys = plan_keys(o, h->kkeys, h->key_of, h->src,
				&h->value_key);
	ret = trace_hist_supported(o, err);
	if (ret)
		goto fail;
	ev = tep_find_event_by_name(tep, system, event);
	if (!ev) {
		strbuf_addf(err, "%s: no format of %s:%s", o->option, system,
			    event);
		ret = -ENOENT;
		goto fail;
	}
	ret = type_keys(h, ev, err);
	if (!ret)
		ret = build_hist(h, tep, err);
	if (ret)
		goto fail;
	*out = h;
	return 0;
fail:
	trace_hist_free(h);
	return ret;
}

const char *trace_hist_command(const struct trace_hist *h)
{
	return h->cmd;
}

/* A tep holding the one format of SYSTEM:EVENT, read from tracefs. */
static int load_format(const char *instance, const char *system,
		       const char *event, struct tep_handle **tep,
		       struct strbuf *err)
{
	struct strbuf file = STRBUF_INIT, fmt = STRBUF_INIT;
	long n;
	int ret = 0;

	strbuf_addf(&file, "events/%s/%s/format", system, event);
	n = tk_tracefs_read(instance, file.buf, &fmt);
	*tep = tep_alloc();
	if (n < 0) {
		strbuf_addf(err, "%s:%s: %s", system, event, strerror(-n));
		ret = (int)n;
	} else if (tep_parse_event(*tep, fmt.buf, fmt.len, system)) {
		strbuf_addf(err, "%s:%s: its format does not parse", system,
			    event);
		ret = -EINVAL;
	}
	strbuf_release(&file);
	strbuf_release(&fmt);
	return ret;
}

int trace_hist_start(const char *instance, const char *system,
		     const char *event, const char *filter,
		     const struct report_agg_opts *o, struct trace_hist **out,
		     struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, undo = STRBUF_INIT;
	struct tep_handle *tep;
	struct trace_hist *h;
	int ret;

	*out = NULL;
	if (!tk_tracefs_dir())
		return -ENODEV;
	ret = load_format(instance, system, event, &tep, err);
	if (!ret)
		ret = trace_hist_new(tep, instance, system, event, filter, o,
				     &h, err);
	tep_free(tep);
	if (ret)
		return ret;
	tk_tracefs_path(&path, instance, h->file);
	h->trigger = strbuf_detach(&path, NULL);
	strbuf_addf(&undo, "!%s", h->cmd);
	ret = tk_restore_push_write(h->trigger, undo.buf, 1);
	if (!ret) {
		ret = tk_tracefs_append_err(instance, h->file, h->cmd, err);
		if (ret)
			tk_restore_forget(h->trigger, undo.buf);
	}
	strbuf_release(&undo);
	if (ret) {
		if (!err->len)
			strbuf_addf(err, "%s:%s: %s", system, event,
				    strerror(-ret));
		trace_hist_free(h);
		return ret;
	}
	h->started = 1;
	*out = h;
	return 0;
}

/* ---- the hist file: kernel/trace/trace_events_hist.c's text ---- */

/* The section of h: its "# trigger info: " line has h's command. */
static const char *find_section(const struct trace_hist *h, const char *text)
{
	static const char info[] = "# trigger info: ";
	const char *p = text, *eol, *keys, *vals, *if_;
	size_t nk, nv;

	/*
	 * The kernel prints the command back as hist:keys=K:vals=hitcount,V
	 * :sort=hitcount:size=N if FILTER [active]: the keys and values as
	 * given, hitcount first among the values, and the filter as given.
	 */
	keys = h->cmd + strlen("hist:keys=");
	nk = strcspn(keys, ": ");
	vals = strstr(keys, ":vals=");
	nv = vals ? strcspn(vals + 6, ": ") : 0;
	for (; (p = strstr(p, info)); p = eol) {
		p += strlen(info);
		eol = strchrnul(p, '\n');
		if (strncmp(p, "hist:keys=", 10) || strncmp(p + 10, keys, nk) ||
		    p[10 + nk] != ':')
			continue;
		p += 10 + nk;
		if (strncmp(p, ":vals=hitcount", 14))
			continue;
		p += 14;
		if (vals && (*p != ',' || strncmp(p + 1, vals + 6, nv)))
			continue;
		p += vals ? nv + 1 : 0;
		if (*p != ':')
			continue;
		if_ = strstr(p, " if ");
		if (if_ && if_ > eol)
			if_ = NULL;
		if (!h->filter != !if_ ||
		    (if_ && (strncmp(if_ + 4, h->filter, strlen(h->filter)) ||
			     strncmp(if_ + 4 + strlen(h->filter), " [", 2))))
			continue;
		return *eol ? eol + 1 : eol;
	}
	return NULL;
}

/* "NAME: " at *p, NAME the key's field without its modifier. */
static int skip_name(const char **p, const char *field)
{
	size_t n = strcspn(field, ".");

	if (strncmp(*p, field, n) || strncmp(*p + n, ": ", 2))
		return -1;
	*p += n + 2;
	return 0;
}

/*
 * One key's text at *p, up to ", NEXT: " or, for the last, " } hitcount:"
 * (hist_trigger_print_key(): numbers "%10llu", strings "%-50s",
 * execnames "%-16s[%10llu]").  A string's padding is taken off.
 */
static int parse_key(const struct trace_hist *h, int i, const char **p,
		     const char *line_end, struct th_kval *v)
{
	const struct th_kkey *k = &h->kkeys[i];
	const char *end, *br, *next;
	char *num_end;

	if (skip_name(p, k->field))
		return -1;
	if (i + 1 < h->nr_kkeys) {
		for (end = *p; (end = strstr(end, ", ")); end++) {
			next = end + 2;
			if (!skip_name(&next, h->kkeys[i + 1].field))
				break;
		}
	} else {
		end = strstr(*p, " } hitcount:");
	}
	if (!end || end > line_end)
		return -1;
	if (k->execname) {
		for (br = end; br > *p && br[-1] != '['; br--)
			;
		if (br == *p || end[-1] != ']')
			return -1;
		v->str = *p;
		for (v->len = br - 1 - *p; v->len && (*p)[v->len - 1] == ' ';)
			v->len--;
		v->num = strtoull(br, &num_end, 10);
		if (num_end != end - 1)
			return -1;
	} else if (k->string) {
		v->str = *p;
		for (v->len = end - *p; v->len && (*p)[v->len - 1] == ' ';)
			v->len--;
	} else {
		v->num = strtoull(*p, &num_end, 10);
		if (num_end != end)
			return -1;
	}
	if (k->sign_bits && v->num >> (k->sign_bits - 1) & 1)
		v->num |= ~0ULL << k->sign_bits;
	*p = end + (i + 1 < h->nr_kkeys ? 2 : strlen(" } "));
	return 0;
}

/* "NAME:  N" at *p after spaces: the number. */
static int parse_count(const char **p, const char *name, uint64_t *n)
{
	char *end;

	while (**p == ' ')
		(*p)++;
	if (strncmp(*p, name, strlen(name)) || (*p)[strlen(name)] != ':')
		return -1;
	*n = strtoull(*p + strlen(name) + 1, &end, 10);
	if (end == *p + strlen(name) + 1)
		return -1;
	*p = end;
	return 0;
}

/* The table's keys of one entry, strings copied into strs. */
static void entry_keys(const struct trace_hist *h, const struct th_kval *kv,
		       struct aggregate_key *keys, struct strbuf *strs)
{
	const struct th_kval *v;
	int i;

	for (i = 0; i < h->o->nr_keys; i++) {
		keys[i].str = NULL;
		if (h->src[i] == REPORT_AGG_KEY_EVENT) {
			keys[i].str = h->event_key;
			continue;
		}
		v = &kv[h->key_of[i]];
		if (h->src[i] == REPORT_AGG_KEY_COMM ||
		    (h->src[i] == REPORT_AGG_KEY_FIELD &&
		     h->kkeys[h->key_of[i]].string)) {
			strbuf_reset(&strs[i]);
			strbuf_add(&strs[i], v->str, v->len);
			keys[i].str = strs[i].buf;
		} else {
			keys[i].num = (int64_t)v->num;
		}
	}
}

static int parse_entry(const struct trace_hist *h, const char *line,
		       const char *eol, struct aggregate *into,
		       struct aggregate_key *keys, struct strbuf *strs)
{
	struct th_kval kv[KERNEL_KEYS_MAX];
	const char *p = line + 2;
	uint64_t hits, sum = 0;
	int64_t v = 0;
	int i;

	for (i = 0; i < h->nr_kkeys; i++)
		if (parse_key(h, i, &p, eol, &kv[i]))
			return -1;
	if (parse_count(&p, "hitcount", &hits))
		return -1;
	if (h->o->field && h->value_key < 0 &&
	    parse_count(&p, h->o->field, &sum))
		return -1;
	if (h->value_key >= 0) {
		v = (int64_t)kv[h->value_key].num;
		sum = hits * (uint64_t)v;
	}
	if (p != eol)
		return -1;
	entry_keys(h, kv, keys, strs);
	aggregate_add_n(into, keys, v, hits, sum);
	return 0;
}

/* The totals after the entries: "Totals:", Hits, Entries, Dropped. */
static int parse_totals(const struct trace_hist *h, const char *p,
			struct strbuf *err)
{
	uint64_t hits, entries, dropped;

	if (strncmp(p, "Totals:\n", 8))
		return -1;
	p += 8;
	if (parse_count(&p, "Hits", &hits) || *p++ != '\n' ||
	    parse_count(&p, "Entries", &entries) || *p++ != '\n' ||
	    parse_count(&p, "Dropped", &dropped))
		return -1;
	if (!dropped)
		return 0;
	strbuf_addf(err, "%s: the kernel's table for %s:%s is full (%" PRIu64
		    " entries of %d): %" PRIu64 " events dropped, the table is short of them",
		    h->o->option, h->system, h->event, entries,
		    KERNEL_TABLE_SIZE, dropped);
	return -ENOSPC;
}

int trace_hist_parse(const struct trace_hist *h, const char *text,
		     struct aggregate *into, struct strbuf *err)
{
	struct aggregate_key *keys = xcalloc(h->o->nr_keys + 1, sizeof(*keys));
	struct strbuf *strs = xcalloc(h->o->nr_keys + 1, sizeof(*strs));
	const char *p = find_section(h, text), *eol;
	int i, ret = -EINVAL;

	for (i = 0; i <= h->o->nr_keys; i++)
		strbuf_init(&strs[i], 0);
	if (!p) {
		strbuf_addf(err, "%s:%s: its hist file has no table of '%s'",
			    h->system, h->event, h->cmd);
		goto out;
	}
	for (; *p && strncmp(p, "Totals:", 7); p = *eol ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		if (*p == '#' || p == eol)
			continue;
		if (strncmp(p, "{ ", 2) ||
		    parse_entry(h, p, eol, into, keys, strs)) {
			strbuf_addf(err, "%s:%s: a line of its hist file is not as the kernel prints it: %.*s",
				    h->system, h->event, (int)(eol - p), p);
			goto out;
		}
	}
	ret = parse_totals(h, p, err);
	if (ret == -1) {
		strbuf_addf(err, "%s:%s: its hist file's totals are not as the kernel prints them",
			    h->system, h->event);
		ret = -EINVAL;
	}
out:
	for (i = 0; i <= h->o->nr_keys; i++)
		strbuf_release(&strs[i]);
	free(strs);
	free(keys);
	return ret;
}

int trace_hist_read(struct trace_hist *h, struct aggregate *into,
		    struct strbuf *err)
{
	struct strbuf file = STRBUF_INIT, text = STRBUF_INIT;
	long n;
	int ret;

	strbuf_addf(&file, "events/%s/%s/hist", h->system, h->event);
	n = tk_tracefs_read(h->instance, file.buf, &text);
	if (n < 0) {
		strbuf_addf(err, "%s:%s: hist: %s", h->system, h->event,
			    strerror(-n));
		ret = (int)n;
	} else {
		ret = trace_hist_parse(h, text.buf, into, err);
	}
	strbuf_release(&file);
	strbuf_release(&text);
	return ret;
}

int trace_hist_clear(struct trace_hist *h)
{
	struct strbuf line = STRBUF_INIT;
	const char *if_ = h->filter ? strstr(h->cmd, " if ") : NULL;
	int ret;

	/*
	 * The command with ":clear" before its filter: the kernel finds the
	 * trigger to clear by its keys, values and filter, as
	 * tracefs_hist_reset() writes it.
	 */
	strbuf_add(&line, h->cmd,
		   if_ ? (size_t)(if_ - h->cmd) : strlen(h->cmd));
	strbuf_addf(&line, ":clear%s", if_ ? if_ : "");
	ret = tk_tracefs_append(h->instance, h->file, line.buf);
	strbuf_release(&line);
	return ret;
}

void trace_hist_free(struct trace_hist *h)
{
	struct strbuf undo = STRBUF_INIT;

	if (!h)
		return;
	if (h->started) {
		/* Where the kernel refuses, the undo at exit tries again. */
		strbuf_addf(&undo, "!%s", h->cmd);
		if (!tk_tracefs_append(h->instance, h->file, undo.buf))
			tk_restore_forget(h->trigger, undo.buf);
		strbuf_release(&undo);
	}
	tracefs_hist_free(h->hist);
	free(h->instance);
	free(h->system);
	free(h->event);
	free(h->filter);
	free(h->event_key);
	free(h->key_of);
	free(h->src);
	free(h->cmd);
	free(h->file);
	free(h->trigger);
	free(h);
}
