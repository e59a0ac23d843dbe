// SPDX-License-Identifier: GPL-2.0
/*
 * Event formatting.  The text line reproduces trace-cmd report's
 * (tracecmd/trace-read.c: trace_show_data): "%16s-%-5d [%03d]", the
 * timestamp as libtraceevent's "%6.1000d" (usecs, rounded) for
 * nanosecond clocks, the event name padded to 20, then the event's print
 * format through tep_print_event().  The columns are built here instead
 * of with four tep_print_event() calls because that is most of the cost
 * per event; the info part stays with libtraceevent and its plugins.
 */
#include <stdio.h>
#include <string.h>

#include "util/print.h"

void print_init(struct print_ctx *p, int raw, int latency)
{
	p->raw = raw;
	p->latency = latency;
	trace_seq_init(&p->seq);
}

void print_release(struct print_ctx *p)
{
	trace_seq_destroy(&p->seq);
}

/* Where a field's bytes are in the record: 0, or -1 when outside it. */
static int field_span(struct tep_handle *tep, const struct tep_format_field *f,
		      const struct tep_record *rec, unsigned int *off, unsigned int *len)
{
	unsigned int loc;

	if ((unsigned int)f->offset + (unsigned int)f->size > (unsigned int)rec->size ||
	    f->offset < 0 || f->size < 0)
		return -1;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		*off = f->offset;
		*len = f->size;
		return 0;
	}
	if (f->size < 4)
		return -1;
	loc = tep_read_number(tep, (char *)rec->data + f->offset, 4);
	*off = loc & 0xffff;
	*len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		*off += f->offset + f->size;
	return *off + *len > (unsigned int)rec->size ? -1 : 0;
}

static int fields_check(struct tep_handle *tep, struct tep_format_field *f,
			struct tep_record *rec)
{
	unsigned int off, len;

	for (; f; f = f->next)
		if (field_span(tep, f, rec, &off, &len))
			return -1;
	return 0;
}

int print_record_check(struct tep_handle *tep, struct tep_record *rec)
{
	struct tep_event *ev = tep_get_first_event(tep);

	/* The type and pid are read with the common fields of any event. */
	if (!ev || fields_check(tep, ev->format.common_fields, rec))
		return -1;
	ev = tep_find_event_by_record(tep, rec);
	if (!ev)
		return 0;
	return fields_check(tep, ev->format.fields, rec);
}

static void add_label(struct strbuf *out, const char *label, int width)
{
	if (!label)
		return;
	strbuf_addf(out, *label ? "%*s: " : "%*s  ", width, label);
}

static void add_info(struct print_ctx *p, struct strbuf *out, struct tep_handle *tep,
		     struct tep_record *rec)
{
	struct trace_seq *s = &p->seq;

	trace_seq_reset(s);
	tep_print_event(tep, s, rec, "%s", p->raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	trace_seq_terminate(s);
	if (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	strbuf_add(out, s->buffer, s->len);
}

/* Decimal digits of v, right to left from end; returns the start. */
static char *utoa(char *end, unsigned long long v)
{
	do
		*--end = '0' + v % 10;
	while (v /= 10);
	return end;
}

/* printf("%*s", width, str) or "%-*s" (left), without printf. */
static void add_padded(struct strbuf *out, const char *str, size_t len, int width, int left)
{
	size_t pad = (size_t)width > len ? width - len : 0;

	strbuf_grow(out, len + pad);
	if (!left) {
		memset(out->buf + out->len, ' ', pad);
		out->len += pad;
	}
	memcpy(out->buf + out->len, str, len);
	out->len += len;
	if (left) {
		memset(out->buf + out->len, ' ', pad);
		out->len += pad;
	}
	out->buf[out->len] = '\0';
}

static void add_int(struct strbuf *out, long long v, int width, int left, int zero)
{
	char buf[32], *end = buf + sizeof(buf), *p;
	int neg = v < 0;

	p = utoa(end, neg ? -(unsigned long long)v : (unsigned long long)v);
	while (zero && end - p < width - neg)
		*--p = '0';
	if (neg)
		*--p = '-';
	add_padded(out, p, end - p, width, left);
}

/* " %5llu.%06llu:" of the usecs, as libtraceevent's "%6.1000d" does. */
static void add_usecs(struct strbuf *out, unsigned long long ts)
{
	unsigned long long us = (ts + 500) / 1000;

	strbuf_addch(out, ' ');
	/* libtraceevent prints small values without the dot. */
	if (us > 1000000) {
		add_int(out, us / 1000000, 5, 0, 0);
		strbuf_addch(out, '.');
		add_int(out, us % 1000000, 6, 0, 1);
	} else {
		add_int(out, us, 12, 0, 0);
	}
	strbuf_addch(out, ':');
}

void print_text(struct print_ctx *p, struct strbuf *out, const struct tracedat_event *ev,
		const char *label, int width)
{
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_record *rec = ev->rec;
	struct tep_event *event = tep_find_event_by_record(tep, rec);
	const char *name = event ? event->name : "(NULL)";
	const char *comm;
	int pid;
	size_t len;

	add_label(out, label, width);
	if (rec->missed_events > 0)
		strbuf_addf(out, "CPU:%d [%lld EVENTS DROPPED]\n", rec->cpu,
			    rec->missed_events);
	else if (rec->missed_events < 0)
		strbuf_addf(out, "CPU:%d [EVENTS DROPPED]\n", rec->cpu);
	pid = tep_data_pid(tep, rec);
	comm = tep_data_comm_from_pid(tep, pid);
	if (p->latency) {
		strbuf_addf(out, "%8.8s-%-5d %3d", comm, pid, rec->cpu);
		trace_seq_reset(&p->seq);
		tep_print_event(tep, &p->seq, rec, "%s", TEP_PRINT_LATENCY);
		strbuf_add(out, p->seq.buffer, p->seq.len);
	} else {
		/* "%16s-%-5d [%03d]" */
		add_padded(out, comm, strlen(comm), 16, 0);
		strbuf_addch(out, '-');
		add_int(out, pid, 5, 1, 0);
		strbuf_addstr(out, " [");
		add_int(out, rec->cpu, 3, 0, 1);
		strbuf_addch(out, ']');
	}
	if (tracedat_info(ev->td)->in_usecs) {
		add_usecs(out, rec->ts);
	} else {
		trace_seq_reset(&p->seq);
		tep_print_event(tep, &p->seq, rec, "%12d:", TEP_PRINT_TIME);
		strbuf_add(out, p->seq.buffer, p->seq.len);
	}
	/* " %s: " and the name padded to 20 */
	len = strlen(name);
	strbuf_addch(out, ' ');
	add_padded(out, name, len, 0, 1);
	strbuf_addstr(out, ": ");
	add_padded(out, "", 0, len < 20 ? 20 - len : 0, 0);
	add_info(p, out, tep, rec);
	strbuf_addch(out, '\n');
}

void print_json_string(struct strbuf *out, const char *s, size_t len)
{
	size_t i;

	strbuf_addch(out, '"');
	for (i = 0; i < len && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			strbuf_addch(out, '\\');
			strbuf_addch(out, c);
		} else if (c == '\n') {
			strbuf_addstr(out, "\\n");
		} else if (c == '\t') {
			strbuf_addstr(out, "\\t");
		} else if (c < 0x20 || c >= 0x7f) {
			/* Bytes, not UTF-8: keep the output valid JSON. */
			strbuf_addf(out, "\\u%04x", c);
		} else {
			strbuf_addch(out, c);
		}
	}
	strbuf_addch(out, '"');
}

static void json_number(struct strbuf *out, struct tep_handle *tep, const void *p,
			unsigned int size, int is_signed)
{
	unsigned long long v;

	if (size != 1 && size != 2 && size != 4 && size != 8) {
		strbuf_addstr(out, "null");
		return;
	}
	v = tep_read_number(tep, p, size);
	if (!is_signed) {
		strbuf_addf(out, "%llu", v);
		return;
	}
	switch (size) {
	case 1:
		strbuf_addf(out, "%d", (signed char)v);
		break;
	case 2:
		strbuf_addf(out, "%d", (short)v);
		break;
	case 4:
		strbuf_addf(out, "%d", (int)v);
		break;
	default:
		strbuf_addf(out, "%lld", (long long)v);
		break;
	}
}

/*
 * Probe arrays are declared "s32 a[]" with the size of the whole array
 * (kernel 6.18 uprobe formats); libtraceevent then knows no element size,
 * so take it from the type name.
 */
static unsigned int element_size(const struct tep_format_field *f)
{
	static const struct { const char *prefix; unsigned int size; } types[] = {
		{ "s8", 1 }, { "u8", 1 }, { "x8", 1 }, { "char", 1 }, { "unsigned char", 1 },
		{ "s16", 2 }, { "u16", 2 }, { "x16", 2 }, { "short", 2 }, { "unsigned short", 2 },
		{ "s32", 4 }, { "u32", 4 }, { "x32", 4 }, { "int", 4 }, { "unsigned int", 4 },
		{ "s64", 8 }, { "u64", 8 }, { "x64", 8 }, { "long", 8 }, { "unsigned long", 8 },
	};
	const char *t = f->type;
	size_t i, n;

	if (f->arraylen && f->size > 0 && f->size % f->arraylen == 0)
		return f->size / f->arraylen;
	if (!strncmp(t, "__data_loc ", 11))
		t += 11;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		n = strlen(types[i].prefix);
		if (!strncmp(t, types[i].prefix, n) && (t[n] == ' ' || t[n] == '[' || !t[n]))
			return types[i].size == 8 && !strncmp(t, "long", 4) ?
				(unsigned int)tep_get_long_size(f->event->tep) : types[i].size;
	}
	return f->elementsize ? f->elementsize : 1;
}

static void json_field(struct strbuf *out, struct tep_handle *tep,
		       const struct tep_format_field *f, const struct tep_record *rec)
{
	const char *data = rec->data;
	unsigned int off, len, esize, i;
	int is_signed = !!(f->flags & TEP_FIELD_IS_SIGNED);

	if (field_span(tep, f, rec, &off, &len)) {
		strbuf_addstr(out, "null");
		return;
	}
	if (f->flags & TEP_FIELD_IS_STRING) {
		print_json_string(out, data + off, len);
		return;
	}
	if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))) {
		json_number(out, tep, data + off, len, is_signed);
		return;
	}
	esize = element_size(f);
	strbuf_addch(out, '[');
	for (i = 0; i + esize <= len; i += esize) {
		if (i)
			strbuf_addch(out, ',');
		json_number(out, tep, data + off + i, esize, is_signed);
	}
	strbuf_addch(out, ']');
}

void print_json(struct print_ctx *p, struct strbuf *out, const struct tracedat_event *ev,
		const char *buffer, const char *file)
{
	struct tep_handle *tep = tracedat_tep(ev->td);
	struct tep_record *rec = ev->rec;
	struct tep_event *event = tep_find_event_by_record(tep, rec);
	struct tep_format_field *f;
	const char *comm;
	int pid = tep_data_pid(tep, rec);

	comm = tep_data_comm_from_pid(tep, pid);
	strbuf_addf(out, "{\"ts_ns\":%llu,\"cpu\":%d,\"pid\":%d,\"comm\":", rec->ts,
		    rec->cpu, pid);
	print_json_string(out, comm, strlen(comm));
	if (file) {
		strbuf_addstr(out, ",\"file\":");
		print_json_string(out, file, strlen(file));
	}
	if (buffer && *buffer) {
		strbuf_addstr(out, ",\"buffer\":");
		print_json_string(out, buffer, strlen(buffer));
	}
	if (rec->missed_events)
		strbuf_addf(out, ",\"missed_before\":%lld", rec->missed_events);
	if (!event) {
		strbuf_addf(out, ",\"event\":null,\"type\":%d}\n", tep_data_type(tep, rec));
		return;
	}
	strbuf_addstr(out, ",\"system\":");
	print_json_string(out, event->system, strlen(event->system));
	strbuf_addstr(out, ",\"event\":");
	print_json_string(out, event->name, strlen(event->name));
	strbuf_addstr(out, ",\"fields\":{");
	for (f = event->format.fields; f; f = f->next) {
		if (f != event->format.fields)
			strbuf_addch(out, ',');
		print_json_string(out, f->name, strlen(f->name));
		strbuf_addch(out, ':');
		json_field(out, tep, f, rec);
	}
	strbuf_addstr(out, "},\"info\":");
	trace_seq_reset(&p->seq);
	tep_print_event(tep, &p->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&p->seq);
	if (p->seq.len && p->seq.buffer[p->seq.len - 1] == '\n')
		p->seq.len--;
	print_json_string(out, p->seq.buffer, p->seq.len);
	strbuf_addstr(out, "}\n");
}
