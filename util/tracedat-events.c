// SPDX-License-Identifier: GPL-2.0
/*
 * A trace.dat's event formats into the handle: each kept as text until
 * a record of its event is read, then parsed after the checks of
 * tracedat-format.c, with the signed fields TK_SIGNED_FIELDS names made
 * signed; those that do not parse are listed for tracedat_bad_formats().
 */
#include <stdio.h>
#include <stdlib.h>

#include "util/tracedat-read-int.h"
#include "util/usage.h"


static size_t count_lines(const char *text, size_t len)
{
	size_t n = 0;
	const char *p = text, *end = text + len;

	while ((p = memchr(p, '\n', end - p))) {
		p++;
		n++;
	}
	return n;
}

static void add_bad_format(struct tracedat *td, int id, struct strbuf *what)
{
	struct tracedat_bad_format *b;

	td->bad = xrealloc(td->bad, (td->nr_bad + 1) * sizeof(*td->bad));
	b = &td->bad[td->nr_bad++];
	b->id = id;
	b->what = strbuf_detach(what, NULL);
}

/*
 * The field NAME of a probe event's format, as the kernel writes it
 * (kernel/trace/trace_probe.c: the b type's field is its container's
 * uN, printed " NAME=%u", "%Lu" for u64; an sN is printed "%d", "%Ld"),
 * made signed in text: sN, "signed:1", and a conversion that prints the
 * N bits signed.  libtraceevent 1.7 reads a field without its sign and
 * hands %d an int: an s16 of -300 prints 65236 (measured, trace-cmd
 * report 3.1.6), so 8 and 16 bits take %hhd and %hd.  0, or -1 with text
 * unchanged where the format is not of that shape.
 */
static int make_signed(struct strbuf *text, const char *name,
		       unsigned int width)
{
	static const char *const bits[] = { "8", "16", "32", "64" };
	static const char *const conv[] = { "hhd", "hd", "d", "Ld" };
	struct strbuf pat = STRBUF_INIT, out = STRBUF_INIT;
	char *field = NULL, *sign = NULL, *c = NULL,
	     *fmt = strstr(text->buf, "\nprint fmt: \"");
	char *args = fmt ? strstr(fmt, "\", ") : NULL, *end;
	size_t i, k = 0;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]) && !field; i++) {
		strbuf_reset(&pat);
		strbuf_addf(&pat, "\tfield:u%s %s;\t", bits[i], name);
		field = strstr(text->buf, pat.buf);
		if (!field) {
			pat.buf[7] = 's';
			field = strstr(text->buf, pat.buf);
		}
		if (field && (unsigned int)atoi(bits[i]) < width)
			field = NULL;
		k = i;
	}
	if (field)
		sign = strstr(field, "\tsigned:");
	if (sign && (memchr(field, '\n', sign - field) ||
		     !strchr("01", sign[8]) || sign[9] != ';'))
		sign = NULL;
	strbuf_reset(&pat);
	strbuf_addf(&pat, " %s=%%", name);
	if (args) {
		*args = '\0';
		c = strstr(fmt, pat.buf);
		*args = '"';
	}
	if (c) {
		c += pat.len;
		end = c + (*c == 'L');
		if ((*end != 'u' && *end != 'd') ||
		    (end[1] != ' ' && end[1] != '"'))
			c = NULL;
	}
	if (sign && c) {
		field[7] = 's';
		sign[8] = '1';
		strbuf_add(&out, text->buf, c - text->buf);
		strbuf_addstr(&out, conv[k]);
		strbuf_addstr(&out, end + 1);
		strbuf_reset(text);
		strbuf_add(text, out.buf, out.len);
	}
	strbuf_release(&pat);
	strbuf_release(&out);
	return sign && c ? 0 : -1;
}

/*
 * The format of an event TK_SIGNED_FIELDS names, with those fields made
 * signed in text, their names in fields; 0 when it names none.
 */
static int signed_format(const struct tracedat *td, const char *data,
			 size_t len, const char *system, struct strbuf *text,
			 struct strbuf *fields)
{
	char name[64], sys[64], ev[64], field[64], line[256];
	const char *l;
	unsigned int width;
	size_t ll;
	int n = 0, nr = 0;

	tracedat_format_name(data, len, name, sizeof(name));
	for (l = td->signed_text.buf; *l; l += ll + (l[ll] == '\n')) {
		ll = strcspn(l, "\n");
		if (ll >= sizeof(line))
			continue;
		memcpy(line, l, ll);
		line[ll] = '\0';
		if (sscanf(line, "%63s %63s %63s %u", sys, ev, field,
			   &width) != 4 ||
		    strcmp(sys, system) || strcmp(ev, name) || width < 1 ||
		    width > 64)
			continue;
		if (!nr++)
			strbuf_add(text, data, len);
		if (!make_signed(text, field, width)) {
			strbuf_addf(fields, "%s %u\n", field, width);
			n++;
		}
	}
	return n;
}

/* The fields signed_format() made signed, found in the event parsed. */
static void add_signed_fields(struct tracedat *td,
			      const struct tep_event *event, const char *fields)
{
	char name[64];
	unsigned int width;
	const char *l;

	for (l = fields; *l; l += strcspn(l, "\n") + 1) {
		struct tep_format_field *f;
		struct td_signed_field *sf;

		if (sscanf(l, "%63s %u", name, &width) != 2)
			continue;
		f = tep_find_field((struct tep_event *)event, name);
		if (!f || !(f->flags & TEP_FIELD_IS_SIGNED) ||
		    (unsigned int)f->size * 8 < width ||
		    (f->size != 1 && f->size != 2 && f->size != 4 &&
		     f->size != 8))
			continue;
		td->signed_fields = xrealloc(td->signed_fields,
					     (td->nr_signed_fields + 1) *
					     sizeof(*td->signed_fields));
		sf = &td->signed_fields[td->nr_signed_fields++];
		sf->id = event->id;
		sf->offset = f->offset;
		sf->size = f->size;
		sf->width = width;
	}
}

void tracedat_sign_extend(const struct tracedat *td, int id,
			  struct tep_record *rec)
{
	unsigned char *data = rec->data;
	uint64_t v, sign;
	unsigned int k;
	int i;

	for (i = 0; i < td->nr_signed_fields; i++) {
		const struct td_signed_field *sf = &td->signed_fields[i];

		if (sf->id != id || rec->size < 0 ||
		    sf->offset + sf->size > (unsigned int)rec->size)
			continue;
		v = sf->size == 1 ? data[sf->offset] :
		    tracedat_num(td, data + sf->offset, sf->size);
		sign = 1ULL << (sf->width - 1);
		if (!(v & sign))
			continue;
		v |= ~(sign - 1);
		/*
		 * Back in the file's byte order, the bytes above the
		 * field's own.
		 */
		for (k = 0; k < sf->size; k++)
			data[sf->offset + (td->info.big_endian ?
					   sf->size - 1 - k : k)] =
				v >> (8 * k);
	}
}

static void parse_format(struct tracedat *td, const char *data, size_t len,
			 const char *system)
{
	struct tep_event *event;
	struct strbuf text = STRBUF_INIT, sig = STRBUF_INIT,
		      fields = STRBUF_INIT;
	char name[64];
	int died;
	size_t sane;

	if (td->signed_text.len &&
	    signed_format(td, data, len, system, &sig, &fields)) {
		data = sig.buf;
		len = sig.len;
	}
	sane = tracedat_guarded_sane_part(td, data, len, system, &died);
	tracedat_parse_upto(td->tep, data, len, sane, system, &event);
	if (event && fields.len && !(event->flags & TEP_EVENT_FL_FAILED))
		add_signed_fields(td, event, fields.buf);
	if (event && !td->want_symbols && tracedat_names_symbol(td, event))
		tracedat_register_symbols(td);
	if (event && (event->flags & TEP_EVENT_FL_FAILED)) {
		strbuf_addf(&text, "event %s:%s: format does not parse",
			    event->system, event->name);
		if (sane < len)
			strbuf_addf(&text, " at line %zu",
				    count_lines(data, sane) + 1);
		if (died)
			strbuf_addstr(&text, " (libtraceevent dies on it)");
		strbuf_addstr(&text,
			      ": printed as trace-cmd does ([FAILED TO PARSE] and its fields)");
		add_bad_format(td, event->id, &text);
	} else if (!event) {
		tracedat_format_name(data, len, name, sizeof(name));
		strbuf_addf(&text,
			    "event %s:%s: malformed format%s: printed as [UNKNOWN EVENT]",
			    system, name,
			    died ? " (libtraceevent dies on it)" : "");
		add_bad_format(td, tracedat_format_id(data, len), &text);
	}
	strbuf_release(&text);
	strbuf_release(&sig);
	strbuf_release(&fields);
}

/*
 * A file holds the format of every event the kernel has (2,000 on 6.1)
 * and most reports meet a few of them: parsing them all was 27% of
 * `report` on a file of 300 sched_switch records (perf record, 2,082
 * formats).  A format that opens as the kernel writes it ("name: N\nID:
 * I\n") waits as text until tracedat_parse_pending() meets a record of
 * its id; any other is parsed at once, as is a second format of an id
 * (after the first, the order libtraceevent would have seen them in).
 */
static int lazy_id(const struct tracedat *td, const char *text, size_t len)
{
	const char *nl = len > 6 && !memcmp(text, "name: ", 6) ?
			 memchr(text, '\n', len) : NULL;
	int id;

	if (!nl || memmem(text, len, "\nID: ", 5) != nl)
		return -1;
	id = tracedat_format_id(text, len);
	return id < 0 || td->pending[id] || tep_find_event(td->tep, id) ?
	       -1 : id;
}

static void parse_pending_id(struct tracedat *td, int id)
{
	struct td_format *f = id >= 0 ? td->pending[id] : NULL;

	if (!f)
		return;
	td->pending[id] = NULL;
	td->nr_pending--;
	parse_format(td, f->text, f->len, f->system);
	if (f->owned)
		free((char *)f->text);
	free(f);
}

/*
 * Takes data when owned (malloc'ed), else it lies in td->formats_mem;
 * system lives as long as td.
 */
void tracedat_add_format(struct tracedat *td, const char *data, size_t len,
			 const char *system, int lazy, int owned)
{
	struct td_format *f;
	int id = lazy ? lazy_id(td, data, len) : -1;

	if (id < 0) {
		if (lazy)
			parse_pending_id(td, tracedat_format_id(data, len));
		parse_format(td, data, len, system);
		if (owned)
			free((char *)data);
		return;
	}
	f = xmalloc(sizeof(*f));
	f->text = data;
	f->len = len;
	f->system = system;
	f->owned = owned;
	td->pending[id] = f;
	td->nr_pending++;
}

void tracedat_parse_pending(struct tracedat *td, int id)
{
	if (id >= 0 && id < TRACEDAT_MAX_EVENT_ID)
		parse_pending_id(td, id);
}

void tracedat_parse_formats(struct tracedat *td)
{
	int id;

	for (id = 0; td->nr_pending && id < TRACEDAT_MAX_EVENT_ID; id++)
		parse_pending_id(td, id);
}
