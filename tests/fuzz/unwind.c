// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/unwind: a live snapshot of this process (as
 * probe --call-graph takes one, tests/lib.h) and its maps, changed by the
 * input, then unwound.  Built and run by tests/fuzz/run-unwind.sh.
 *
 * The input is a list of edits, each an opcode byte (modulo EDIT_NR) and
 * its little-endian arguments; edits of words are relative to the
 * snapshot where they can be, so that an input replays on another run
 * whatever the addresses ASLR gave.  Byte 0's low bit unwinds with the
 * recorded build-ids of every file differing from the files on disk.
 *
 * Every stack must end within the frame limit, a frame the unwinder could
 * not finish marked unknown; ASan and UBSan check the rest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib.h"
#include "util/unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum edit {
	EDIT_SET,	/* u16 record offset, u64 value */
	EDIT_ADD,	/* u16 record offset, s32 delta */
	EDIT_CUT,	/* u16 record size */
	EDIT_HOLE,	/* u8 map: dropped */
	EDIT_GONE,	/* u8 map: its file is missing */
	EDIT_SWAP,	/* u8 map, u8 map: their files swapped */
	EDIT_SHIFT,	/* u8 map, s32 delta to its start and end */
	EDIT_NR
};

#define MAX_MAPS	256
/*
 * A fresh struct unwind that often: its cache of names grows with each new
 * address.
 */
#define RENEW_EVERY	4096

struct map_line {
	unsigned long long start, end;
	char name[256];
};

static struct test_snapshot snap;
static unsigned char base[TEST_SNAPSHOT_MAX];
static size_t base_size;
static struct map_line maps[MAX_MAPS];
static int nr_maps;
static struct tep_handle *tep;
static struct tep_event *event;
static struct unwind *u[2];	/* build-ids as on disk, all differing */
static struct strbuf bad_ids = STRBUF_INIT;
static unsigned int runs;

static void parse_maps(const char *text)
{
	const char *l = strchr(text, '\n');

	while (l && *++l && nr_maps < MAX_MAPS) {
		struct map_line *m = &maps[nr_maps];

		if (sscanf(l, "%llx %llx %255s", &m->start, &m->end, m->name) == 3) {
			nr_maps++;
			if (m->name[0] == '/')
				strbuf_addf(&bad_ids, "00 %s\n", m->name);
		}
		l = strchr(l, '\n');
	}
}

static void setup(void)
{
	struct strbuf procmaps = STRBUF_INIT, fmt = STRBUF_INIT;

	test_snapshot_take(&snap, &procmaps);
	parse_maps(procmaps.buf);
	base_size = test_lay_out(base, &snap);
	test_capture_format(&fmt, snap.len);
	tep = tep_alloc();
	tep_set_long_size(tep, sizeof(long));
	if (tep_parse_event(tep, fmt.buf, fmt.len, "tkfuzz") ||
	    !(event = tep_find_event(tep, TEST_SNAPSHOT_EVENT))) {
		fprintf(stderr, "libtraceevent refuses the format:\n%s", fmt.buf);
		abort();
	}
	strbuf_release(&procmaps);
	strbuf_release(&fmt);
}

static void renew(void)
{
	unwind_free(u[0]);
	unwind_free(u[1]);
	u[0] = unwind_new();
	u[1] = unwind_new();
	unwind_add_build_ids(u[1], bad_ids.buf);
}

/* Takes n bytes of the input, or fails at its end. */
static int take(const uint8_t **p, const uint8_t *end, void *dst, size_t n)
{
	if ((size_t)(end - *p) < n)
		return -1;
	memcpy(dst, *p, n);
	*p += n;
	return 0;
}

static void apply(const uint8_t *p, const uint8_t *end, unsigned char *rec,
		  size_t *size, struct map_line *m, int *nr)
{
	uint8_t op, a, b;
	uint16_t off;
	uint64_t v;
	int32_t d;

	while (!take(&p, end, &op, 1)) {
		switch (op % EDIT_NR) {
		case EDIT_SET:
		case EDIT_ADD:
			if (take(&p, end, &off, 2))
				return;
			off = TEST_SNAPSHOT_HEAD +
			      off % (base_size - TEST_SNAPSHOT_HEAD - 7);
			memcpy(&v, rec + off, 8);
			if (op % EDIT_NR == EDIT_SET ? take(&p, end, &v, 8)
						     : take(&p, end, &d, 4))
				return;
			if (op % EDIT_NR == EDIT_ADD)
				v += d;
			memcpy(rec + off, &v, 8);
			break;
		case EDIT_CUT:
			if (take(&p, end, &off, 2))
				return;
			*size = off % (base_size + 1);
			break;
		case EDIT_HOLE:
			if (take(&p, end, &a, 1) || !*nr)
				return;
			a %= *nr;
			memmove(&m[a], &m[a + 1], (*nr - a - 1) * sizeof(*m));
			(*nr)--;
			break;
		case EDIT_GONE:
			if (take(&p, end, &a, 1) || !*nr)
				return;
			strcpy(m[a % *nr].name, "/nonexistent/tkfuzz");
			break;
		case EDIT_SWAP: {
			char t[sizeof(m->name)];

			if (take(&p, end, &a, 1) || take(&p, end, &b, 1) ||
			    !*nr)
				return;
			a %= *nr;
			b %= *nr;
			memcpy(t, m[a].name, sizeof(t));
			memcpy(m[a].name, m[b].name, sizeof(t));
			memcpy(m[b].name, t, sizeof(t));
			break;
		}
		case EDIT_SHIFT:
			if (take(&p, end, &a, 1) || take(&p, end, &d, 4) ||
			    !*nr)
				return;
			a %= *nr;
			m[a].start += d;
			m[a].end += d;
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char rec_data[TEST_SNAPSHOT_MAX];
	static struct map_line m[MAX_MAPS];
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct unwind_stack st = { 0 };
	struct tep_record rec = { 0 };
	struct unwind *uw;
	size_t rec_size = base_size;
	int nr = nr_maps, i, n;

	if (!tep)
		setup();
	if (runs++ % RENEW_EVERY == 0)
		renew();
	uw = u[size && (data[0] & 1)];
	memcpy(rec_data, base, base_size);
	memcpy(m, maps, sizeof(m));
	if (size)
		apply(data + 1, data + size, rec_data, &rec_size, m, &nr);
	strbuf_addf(&text, "%x %x /proc/self/exe\n", TEST_SNAPSHOT_PID, nr);
	for (i = 0; i < nr; i++)
		strbuf_addf(&text, "%llx %llx %s\n", m[i].start, m[i].end, m[i].name);
	/* A map a shift turned empty or around is refused with the PROCMAPS. */
	if (!unwind_add_procmaps(uw, 0, text.buf, &err)) {
		rec.data = rec_data;
		rec.size = rec_size;
		n = unwind_record(uw, 0, event, &rec, TEST_SNAPSHOT_PID, &st);
		if (n > UNWIND_MAX_FRAMES + 1 || n != st.nr)
			abort();
		for (i = 0; i < n - 1; i++)
			if (st.v[i].unknown)
				abort();
	}
	unwind_stack_release(&st);
	strbuf_release(&text);
	strbuf_release(&err);
	return 0;
}
