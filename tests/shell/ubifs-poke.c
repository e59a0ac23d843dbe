// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for tests/shell/ubifs-*.sh, the attacker's tool: finds and
 * edits nodes of a raw UBIFS image and headers of a UBI image in place,
 * repairing the CRCs so that only the reader's other checks (hashes,
 * HMACs, signatures) can object.  Offsets are bytes from
 * the start of the file, printed in decimal.
 *
 *   ubifs-poke find IMG LEB_SIZE dent NAME     offset of the entry NAME
 *   ubifs-poke find IMG LEB_SIZE data none|lzo|zlib|zstd
 *                                               first data node so stored
 *   ubifs-poke find IMG LEB_SIZE symlink        first symlink inode
 *   ubifs-poke find IMG LEB_SIZE ino INUM       inode node of INUM
 *   ubifs-poke branch IMG LEB_SIZE INUM BLOCK   "NODE KEY": the index node
 *        whose branch names data block BLOCK of INUM, and where in the
 *        file that branch's key holds the block number
 *   ubifs-poke compr IMG LEB_SIZE               data nodes per compressor
 *   ubifs-poke set IMG OFFSET BYTES VALUE       little-endian store
 *   ubifs-poke crc IMG OFFSET                   repair a node's CRC
 *   ubifs-poke xor IMG OFFSET MASK              IMG[OFFSET] ^= MASK (hex)
 *   ubifs-poke setsig IMG SIG.der               signature node at 4096
 *   ubifs-poke nodes IMG LEB_SIZE               "LEB N:0xOFF TYPE LEN" of
 *                                               every node but padding
 *   ubifs-poke peb IMG PEB_SIZE VOL LNUM        PEBs holding that LEB
 *   ubifs-poke vid IMG PEB_SIZE PNUM FIELD=VALUE...
 *        FIELD: sqnum, copy_flag, data_size, data_crc (a number or
 *        "good"); the VID header CRC is repaired
 *   ubifs-poke vtbl IMG PEB_SIZE COPY SLOT FIELD=VALUE...
 *        record SLOT of the volume table in the layout volume's LEB
 *        COPY (0, 1, or "both"); FIELD: reserved_pebs, name; the record
 *        CRC is repaired
 */
#include "ubifs-tool.h"

/* Calls fn for each node of each LEB, in the manner of a UBIFS scan. */
static long walk(size_t leb, long (*fn)(size_t off, void *arg), void *arg)
{
	size_t l, off;

	for (l = 0; l + leb <= img_len; l += leb)
		for (off = l; off + 28 <= l + leb;) {
			uint32_t len = le32(off + 16);
			long r;

			if (img[off] == 0xce) {		/* padding bytes */
				off += 8;
				continue;
			}
			if (le32(off) != 0x06101831 || len < 24)
				break;
			if (img[off + 20] == 5)		/* padding node */
				len += le32(off + 24);
			r = fn(off, arg);
			if (r >= 0)
				return r;
			off += (len + 7) & ~7u;
		}
	return -1;
}

struct want {
	const char *kind, *arg;
	long counts[4];
	uint32_t inum, block;
	size_t key;
};

/* An index node (type 9): child_cnt at 24, branches from 28, each
 * lnum, offs, len, then the key (inode number, block | type << 29). */
static long branch(size_t off, void *arg)
{
	struct want *w = arg;
	uint32_t len = le32(off + 16), cc = img[off + 24] | img[off + 25] << 8;
	size_t bsz, b, i;

	if (img[off + 20] != 9 || !cc || len < 28)
		return -1;
	bsz = (len - 28) / cc;
	for (i = 0; i < cc; i++) {
		b = off + 28 + i * bsz;
		if (le32(b + 12) == w->inum &&
		    le32(b + 16) == (1u << 29 | w->block)) {
			w->key = b + 16;
			return off;
		}
	}
	return -1;
}

static long match(size_t off, void *arg)
{
	struct want *w = arg;
	int type = img[off + 20];

	if (!strcmp(w->kind, "dent") && type == 2 &&
	    img[off + 50] + (img[off + 51] << 8) == (int)strlen(w->arg) &&
	    !memcmp(img + off + 56, w->arg, strlen(w->arg)))
		return off;
	if (!strcmp(w->kind, "ino") && type == 0 &&
	    le32(off + 24) == strtoul(w->arg, NULL, 0))
		return off;
	if (!strcmp(w->kind, "symlink") && type == 0 &&
	    (le32(off + 104) & 0170000) == 0120000)
		return off;
	if (!strcmp(w->kind, "data") && type == 1) {
		static const char *const names[] = { "none", "lzo", "zlib",
						     "zstd" };
		int c = img[off + 44];

		if (c < 4 && !strcmp(names[c], w->arg))
			return off;
	}
	return -1;
}

static long count(size_t off, void *arg)
{
	struct want *w = arg;

	if (img[off + 20] == 1 && img[off + 44] < 4)
		w->counts[img[off + 44]]++;
	return -1;
}

static void vid_field(size_t vid, const char *fv, size_t data, size_t max)
{
	const char *eq = strchr(fv, '=');
	unsigned long long v;

	if (!eq)
		die("FIELD=VALUE expected");
	v = strtoull(eq + 1, NULL, 0);
	if (!strncmp(fv, "sqnum=", 6)) {
		v = htobe64(v);
		memcpy(img + vid + 40, &v, 8);
	} else if (!strncmp(fv, "copy_flag=", 10)) {
		img[vid + 6] = v;
	} else if (!strncmp(fv, "data_size=", 10)) {
		put_be32(vid + 20, v);
	} else if (!strncmp(fv, "data_crc=", 9)) {
		uint32_t n = be32(vid + 20);

		if (!strcmp(eq + 1, "good")) {
			if (n > max)
				die("data_size beyond the PEB");
			v = crc32_ubifs(img + data, n);
		}
		put_be32(vid + 32, v);
	} else {
		die("unknown VID field");
	}
}

static int cmd_vid(int argc, char **argv)
{
	size_t peb = strtoul(argv[3], NULL, 0);
	size_t p = strtoul(argv[4], NULL, 0) * peb;
	size_t vid, data;
	int i;

	if (p + peb > img_len)
		die("no such PEB");
	vid = p + be32(p + 16);
	data = p + be32(p + 20);
	if (vid + 64 > p + peb || data > p + peb || be32(vid) != 0x55424921)
		die("no VID header in that PEB");
	for (i = 5; i < argc; i++)
		vid_field(vid, argv[i], data, p + peb - data);
	put_be32(vid + 60, crc32_ubifs(img + vid, 60));
	save(argv[2]);
	return 0;
}

static int cmd_peb(char **argv)
{
	size_t peb = strtoul(argv[3], NULL, 0), p;
	uint32_t vol = strtoul(argv[4], NULL, 0);
	uint32_t lnum = strtoul(argv[5], NULL, 0);

	for (p = 0; p + peb <= img_len; p += peb) {
		size_t vid = p + be32(p + 16);

		if (be32(vid) == 0x55424921 && be32(vid + 8) == vol &&
		    be32(vid + 12) == lnum)
			printf("%zu\n", p / peb);
	}
	return 0;
}

/* struct ubi_vtbl_record of the kernel's ubi-media.h: 172 bytes, the CRC
 * over the first 168. */
static void vtbl_field(size_t rec, const char *fv)
{
	const char *eq = strchr(fv, '=');

	if (!eq)
		die("FIELD=VALUE expected");
	if (!strncmp(fv, "reserved_pebs=", 14)) {
		put_be32(rec, strtoul(eq + 1, NULL, 0));
	} else if (!strncmp(fv, "name=", 5)) {
		size_t n = strlen(eq + 1);

		if (n > 127)
			die("name too long");
		memset(img + rec + 16, 0, 128);
		memcpy(img + rec + 16, eq + 1, n);
		img[rec + 14] = n >> 8;
		img[rec + 15] = n;
	} else {
		die("unknown volume table field");
	}
	put_be32(rec + 168, crc32_ubifs(img + rec, 168));
}

static int cmd_vtbl(int argc, char **argv)
{
	size_t peb = strtoul(argv[3], NULL, 0),
	       slot = strtoul(argv[5], NULL, 0);
	int both = !strcmp(argv[4], "both"), done = 0, i;
	unsigned long copy = strtoul(argv[4], NULL, 0);
	size_t p;

	for (p = 0; peb && p + peb <= img_len; p += peb) {
		size_t vid = p + be32(p + 16), data = p + be32(p + 20);

		if (vid + 64 > p + peb || be32(vid) != 0x55424921 ||
		    be32(vid + 8) != 0x7fffefff ||
		    (!both && be32(vid + 12) != copy) ||
		    data + (slot + 1) * 172 > p + peb)
			continue;
		for (i = 6; i < argc; i++)
			vtbl_field(data + slot * 172, argv[i]);
		done++;
	}
	if (!done)
		die("no such volume table copy");
	save(argv[2]);
	return 0;
}

/* "LEB N:0xOFF TYPE LEN" of every node but padding. */
static long list(size_t off, void *arg)
{
	size_t leb = *(size_t *)arg;

	if (img[off + 20] != 5)
		printf("LEB %zu:0x%zx %d %u\n", off / leb, off % leb,
		       img[off + 20], le32(off + 16));
	return -1;
}

/* A signature node at 4096, the place mkfs.ubifs puts it, holding the
 * DER signature in the file given. */
static int cmd_setsig(char **argv)
{
	FILE *f = fopen(argv[3], "rb");
	uint8_t sig[8192];
	size_t n;

	if (!f)
		die("cannot open the signature");
	n = fread(sig, 1, sizeof(sig), f);
	fclose(f);
	if (4096 + 64 + n > img_len)
		die("the signature does not fit");
	memset(img + 4096 + 24, 0, 40);
	put_le32(4096 + 16, 64 + n);
	img[4096 + 20] = 13;		/* UBIFS_SIG_NODE */
	put_le32(4096 + 24, 1);		/* UBIFS_SIGNATURE_TYPE_PKCS7 */
	put_le32(4096 + 28, n);
	memcpy(img + 4096 + 64, sig, n);
	fix_node_crc(4096);
	save(argv[2]);
	return 0;
}

int main(int argc, char **argv)
{
	struct want w = { 0 };
	long off;

	tool_name = "ubifs-poke";

	if (argc < 4)
		die("usage: see the comment at the top of ubifs-poke.c");
	load(argv[2]);
	if (!strcmp(argv[1], "find") && argc >= 5) {
		w.kind = argv[4];
		w.arg = argc > 5 ? argv[5] : "";
		off = walk(strtoul(argv[3], NULL, 0), match, &w);
		if (off < 0)
			die("not found");
		printf("%ld\n", off);
		return 0;
	}
	if (!strcmp(argv[1], "branch") && argc == 6) {
		w.inum = strtoul(argv[4], NULL, 0);
		w.block = strtoul(argv[5], NULL, 0);
		off = walk(strtoul(argv[3], NULL, 0), branch, &w);
		if (off < 0)
			die("not found");
		printf("%ld %zu\n", off, w.key);
		return 0;
	}
	if (!strcmp(argv[1], "compr")) {
		walk(strtoul(argv[3], NULL, 0), count, &w);
		printf("none=%ld lzo=%ld zlib=%ld zstd=%ld\n", w.counts[0],
		       w.counts[1], w.counts[2], w.counts[3]);
		return 0;
	}
	if (!strcmp(argv[1], "set") && argc == 6) {
		size_t o = strtoul(argv[3], NULL, 0);
		int n = atoi(argv[4]), i;
		unsigned long long v = strtoull(argv[5], NULL, 0);

		if (n < 1 || n > 8 || o + n > img_len)
			die("bad offset or size");
		for (i = 0; i < n; i++)
			img[o + i] = v >> (8 * i);
		save(argv[2]);
		return 0;
	}
	if (!strcmp(argv[1], "crc")) {
		fix_node_crc(strtoul(argv[3], NULL, 0));
		save(argv[2]);
		return 0;
	}
	if (!strcmp(argv[1], "xor") && argc == 5) {
		size_t o = strtoul(argv[3], NULL, 0);

		if (o >= img_len)
			die("offset beyond the image");
		img[o] ^= strtoul(argv[4], NULL, 16);
		save(argv[2]);
		return 0;
	}
	if (!strcmp(argv[1], "setsig"))
		return cmd_setsig(argv);
	if (!strcmp(argv[1], "nodes")) {
		size_t leb = strtoul(argv[3], NULL, 0);

		if (!leb)
			die("bad LEB size");
		walk(leb, list, &leb);
		return 0;
	}
	if (!strcmp(argv[1], "peb") && argc == 6)
		return cmd_peb(argv);
	if (!strcmp(argv[1], "vid") && argc >= 6)
		return cmd_vid(argc, argv);
	if (!strcmp(argv[1], "vtbl") && argc >= 7)
		return cmd_vtbl(argc, argv);
	die("usage: see the comment at the top of ubifs-poke.c");
	return 1;
}
