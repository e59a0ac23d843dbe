// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for the ubifs-kernel tests: tampers with a UBIFS volume
 * image the way an attacker with the flash would, keeping every node's
 * CRC right so that only authentication can tell.
 *
 *   ubifs-mutate plan IMG COUNT SEED   COUNT variant specs, one a line
 *   ubifs-mutate apply IMG OUT SPEC    write the variant, print
 *                                      "LEB:offs node-type" of the change
 *   ubifs-mutate budnode IMG           "lnum offs" of a data node in a bud
 *                                      that an authentication node follows
 *
 * Specs: flip:POS (byte POS ^= 0x5a, the containing node's CRC repaired),
 * swap:A:B (LEBs A and B exchanged), mst-rollback (the newest master node
 * erased from both master LEBs, so the one before it rules again),
 * sb-rp (the superblock's rp_size changed, CRC repaired),
 * sb-zero-hmac (the superblock's HMAC zeroed, CRC repaired),
 * graft:DONOR (the log LEBs of the image DONOR, a volume of the same
 * geometry, and the buds its log refers to since its commit start node,
 * copied over IMG's: one line per LEB copied),
 * journal:N (up to N small journal nodes in buds the log refers to, over
 * the main LEBs that hold data nodes only: one line per bud).
 */
#include <stddef.h>

#include "ubifs/media.h"
#include "ubifs-tool.h"

static int leb_size, leb_cnt, log_lebs, main_first, lpt_first, lpt_last;

struct node {
	int lnum, offs, len, type;
	uint64_t sqnum;
};

static struct node *nodes;
static int nr_nodes;
static int *leb_end;

/* The image and the geometry its superblock gives. */
static void load_volume(const char *path)
{
	const struct ubifs_sb_node *sb;

	load(path);
	sb = (const void *)img;
	leb_size = le32toh(sb->leb_size);
	log_lebs = le32toh(sb->log_lebs);
	if (leb_size < 4096 || img_len % leb_size)
		die("bad LEB size");
	leb_cnt = img_len / leb_size;
	lpt_first = UBIFS_LOG_LNUM + log_lebs;
	lpt_last = lpt_first + le32toh(sb->lpt_lebs) - 1;
	main_first = UBIFS_LOG_LNUM + log_lebs + le32toh(sb->lpt_lebs) +
		     le32toh(sb->orph_lebs);
}

/* Nodes of every LEB, in the manner of the kernel's ubifs_scan(). */
static void scan(void)
{
	int lnum;

	leb_end = calloc(leb_cnt, sizeof(*leb_end));
	for (lnum = 0; lnum < leb_cnt; lnum++) {
		const uint8_t *leb = img + (size_t)lnum * leb_size;
		int offs = 0;

		/* The LPT is bit-packed, with its own CRC16: its flips
		 * stay unrepaired, over the bytes written. */
		if (lnum >= lpt_first && lnum <= lpt_last) {
			for (offs = leb_size; offs > 0 && leb[offs - 1] == 0xff;
			     offs--)
				;
			leb_end[lnum] = offs;
			continue;
		}

		while (offs + (int)UBIFS_CH_SZ <= leb_size) {
			const struct ubifs_ch *ch = (const void *)(leb + offs);
			int len;

			if (leb[offs] == 0xce) {
				offs++;
				continue;
			}
			if (le32toh(ch->magic) != UBIFS_NODE_MAGIC)
				break;
			len = le32toh(ch->len);
			if (len < (int)UBIFS_CH_SZ || len > leb_size - offs)
				break;
			if (ch->node_type == UBIFS_PAD_NODE) {
				const struct ubifs_pad_node *pad =
					(const void *)ch;

				offs += len + le32toh(pad->pad_len);
				continue;
			}
			nodes = realloc(nodes, (nr_nodes + 1) * sizeof(*nodes));
			nodes[nr_nodes++] = (struct node){ lnum, offs, len,
				ch->node_type, le64toh(ch->sqnum) };
			offs += (len + 7) & ~7;
		}
		leb_end[lnum] = offs < leb_size ? offs : leb_size;
	}
}

static const struct node *node_at(int lnum, int offs)
{
	int i;

	for (i = 0; i < nr_nodes; i++)
		if (nodes[i].lnum == lnum && nodes[i].offs <= offs &&
		    offs < nodes[i].offs + nodes[i].len)
			return &nodes[i];
	return NULL;
}

static const char *type_name(int t)
{
	static const char *const n[] = {
		"inode", "data", "dent", "xent", "trun", "pad", "sb", "mst",
		"ref", "idx", "cs", "orph", "auth", "sig",
	};

	return t >= 0 && t < (int)(sizeof(n) / sizeof(n[0])) ? n[t] : "?";
}

static uint64_t rnd_state;

static uint64_t rnd(uint64_t n)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return (rnd_state >> 33) % n;
}

/* A byte that is not a node's CRC (flipping that and repairing it would
 * undo the flip). */
static int usable(size_t pos)
{
	const struct node *n = node_at(pos / leb_size, pos % leb_size);
	int rel = n ? (int)(pos % leb_size) - n->offs : -1;

	return !(rel >= 4 && rel < 8);
}

static void plan(int count, unsigned seed)
{
	int by_type[UBIFS_NODE_TYPES_CNT] = { 0 }, types = 0, t, i, done = 0;
	size_t used = 0;
	int lnum;

	rnd_state = seed;
	for (i = 0; i < nr_nodes; i++)
		if (!by_type[nodes[i].type]++)
			types++;
	for (lnum = 0; lnum < leb_cnt; lnum++)
		used += leb_end[lnum];
	/* A few structural attacks first; a rollback needs an older
	 * master node behind the newest one. */
	for (i = 0; i < nr_nodes; i++)
		if (nodes[i].lnum == UBIFS_MST_LNUM && nodes[i].offs > 0)
			break;
	if (i < nr_nodes) {
		printf("mst-rollback\n");
		done++;
	}
	printf("sb-rp\nsb-zero-hmac\n");
	done += 2;
	for (i = 0; i < 4 && done < count; i++, done++) {
		int a = main_first + rnd(leb_cnt - main_first);
		int b = main_first + rnd(leb_cnt - main_first);

		if (a == b)
			b = a + 1 < leb_cnt ? a + 1 : main_first;
		printf("swap:%d:%d\n", a, b);
	}
	printf("swap:%d:%d\n", UBIFS_LOG_LNUM, UBIFS_LOG_LNUM + 1);
	done++;
	/* Half of the flips over every node kind alike, the rest over the
	 * whole used area (padding and gaps included). */
	for (t = 0; t < UBIFS_NODE_TYPES_CNT; t++) {
		int want = by_type[t] ? (count - done) / 2 / types : 0;

		for (i = 0; i < want; i++) {
			int k, pick = rnd(by_type[t]);
			size_t pos;

			for (k = 0; k < nr_nodes; k++)
				if (nodes[k].type == t && !pick--)
					break;
			do
				pos = (size_t)nodes[k].lnum * leb_size +
				      nodes[k].offs + rnd(nodes[k].len);
			while (!usable(pos));
			printf("flip:%zu\n", pos);
		}
	}
	done = count - done - (count - done) / 2 / types * types;
	/* Bytes in no node (padding, the LPT) are rare: a tenth of the
	 * rest is drawn among them alone. */
	for (i = 0; i < done / 10; i++) {
		size_t pos, r;
		int tries = 0;

		do {
			r = rnd(used);
			for (lnum = 0; r >= (size_t)leb_end[lnum]; lnum++)
				r -= leb_end[lnum];
			pos = (size_t)lnum * leb_size + r;
		} while (node_at(lnum, r) && ++tries < 100000);
		printf("flip:%zu\n", pos);
	}
	for (i = done / 10; i < done; i++) {
		size_t pos, r;

		do {
			r = rnd(used);
			for (lnum = 0; r >= (size_t)leb_end[lnum]; lnum++)
				r -= leb_end[lnum];
			pos = (size_t)lnum * leb_size + r;
		} while (!usable(pos));
		printf("flip:%zu\n", pos);
	}
}

static void describe(int lnum, int offs)
{
	const struct node *n = node_at(lnum, offs);

	if (n)
		printf("%d:0x%x %s\n", lnum, n->offs, type_name(n->type));
	else if (lnum >= lpt_first && lnum <= lpt_last)
		printf("%d:0x%x LPT\n", lnum, offs);
	else
		printf("%d:0x%x %s\n", lnum, offs,
		       offs < leb_end[lnum] ? "padding" : "free");
}

/*
 * The newest master node (*mst) and the sequence number of the commit
 * start node at its log_lnum, where the kernel's replay starts the log.
 */
static uint64_t log_head(const struct ubifs_mst_node **mst)
{
	uint64_t cs_sqnum = 0;
	int i;

	*mst = NULL;
	for (i = 0; i < nr_nodes; i++)
		if (nodes[i].lnum == UBIFS_MST_LNUM &&
		    nodes[i].type == UBIFS_MST_NODE)
			*mst = (const void *)(img + (size_t)UBIFS_MST_LNUM *
					      leb_size + nodes[i].offs);
	if (!*mst)
		die("no master node");
	for (i = 0; i < nr_nodes; i++)
		if (nodes[i].lnum == (int)le32toh((*mst)->log_lnum) &&
		    nodes[i].offs == 0 && nodes[i].type == UBIFS_CS_NODE)
			cs_sqnum = nodes[i].sqnum;
	if (!cs_sqnum)
		die("no commit start node at the log head");
	return cs_sqnum;
}

/*
 * The LEBs holding the donor's journal: its log, and the buds of the
 * reference nodes not older than the commit start node the newest master
 * node's log_lnum points at (fs/ubifs/replay.c, replay_log_leb()).
 */
static void graft(const char *donor)
{
	uint8_t *a = img;
	size_t a_len = img_len;
	const struct ubifs_mst_node *mst = NULL;
	uint64_t cs_sqnum = 0;
	uint8_t *copy;
	int i, l;

	img = NULL;
	nr_nodes = 0;
	load_volume(donor);
	scan();
	if (img_len != a_len)
		die("the donor's geometry differs");
	copy = calloc(leb_cnt, 1);
	if (!copy)
		die("out of memory");
	cs_sqnum = log_head(&mst);
	for (l = UBIFS_LOG_LNUM; l < UBIFS_LOG_LNUM + log_lebs; l++)
		copy[l] = 1;
	for (i = 0; i < nr_nodes; i++) {
		const struct ubifs_ref_node *ref = (const void *)(img +
			(size_t)nodes[i].lnum * leb_size + nodes[i].offs);

		if (nodes[i].type == UBIFS_REF_NODE &&
		    nodes[i].sqnum >= cs_sqnum &&
		    (int)le32toh(ref->lnum) < leb_cnt)
			copy[le32toh(ref->lnum)] = 1;
	}
	for (l = 0; l < leb_cnt; l++) {
		if (!copy[l])
			continue;
		memcpy(a + (size_t)l * leb_size, img + (size_t)l * leb_size,
		       leb_size);
		printf("%d:0x0 graft\n", l);
	}
	free(copy);
	free(img);
	img = a;
}

/* Where the next journal node goes: a bud, and the log that refers to
 * it. */
struct jcursor {
	uint8_t *bud_ok;	/* per LEB: may become a bud */
	int bud, offs;		/* the current bud, -1 before the first */
	int log_lnum, log_offs;
	uint64_t sqnum;
};

/* The common header, a sequence number and the CRC of the node at off. */
static void seal(struct jcursor *c, size_t off, uint32_t len, int type)
{
	struct ubifs_ch *ch = (void *)(img + off);

	ch->magic = htole32(UBIFS_NODE_MAGIC);
	ch->sqnum = htole64(++c->sqnum);
	ch->len = htole32(len);
	ch->node_type = type;
	fix_node_crc(off);
}

/* Room for len bytes at the cursor, in a new bud if need be: 0, or -1
 * when no LEB is left. */
static int make_room(struct jcursor *c, uint32_t len)
{
	struct ubifs_ref_node *ref;
	size_t at;

	if (c->bud >= 0 && c->offs + (int)len <= leb_size)
		return 0;
	while (++c->bud < leb_cnt && !c->bud_ok[c->bud])
		;
	if (c->bud >= leb_cnt)
		return -1;
	if (c->log_offs + (int)UBIFS_REF_NODE_SZ > leb_size)
		die("the log LEB is full");
	memset(img + (size_t)c->bud * leb_size, 0xff, leb_size);
	c->offs = 0;
	at = (size_t)c->log_lnum * leb_size + c->log_offs;
	ref = (void *)(img + at);
	memset(ref, 0, UBIFS_REF_NODE_SZ);
	ref->lnum = htole32(c->bud);
	ref->jhead = htole32(2);	/* the data head */
	seal(c, at, UBIFS_REF_NODE_SZ, UBIFS_REF_NODE);
	c->log_offs += UBIFS_REF_NODE_SZ;
	printf("%d:0x0 bud\n", c->bud);
	return 0;
}

/* An inode node of inum with nlink 0 (the inode deleted), or a node
 * truncating inum from 1 MiB to nothing.  0, or -1 when out of LEBs. */
static int put_jnode(struct jcursor *c, uint32_t inum, int trun)
{
	uint32_t len = trun ? UBIFS_TRUN_NODE_SZ : UBIFS_INO_NODE_SZ;
	size_t at;

	if (make_room(c, len))
		return -1;
	at = (size_t)c->bud * leb_size + c->offs;
	memset(img + at, 0, len);
	if (trun) {
		struct ubifs_trun_node *t = (void *)(img + at);

		t->inum = htole32(inum);
		t->old_size = htole64(1 << 20);
	} else {
		struct ubifs_ino_node *ino = (void *)(img + at);

		put_le32(at + offsetof(struct ubifs_ino_node, key), inum);
		put_le32(at + offsetof(struct ubifs_ino_node, key) + 4,
			 (uint32_t)UBIFS_INO_KEY << UBIFS_S_KEY_BLOCK_BITS);
		ino->mode = htole32(0100644);
	}
	seal(c, at, len, trun ? UBIFS_TRUN_NODE : UBIFS_INO_NODE);
	c->offs += (len + 7) & ~7u;
	return 0;
}

/*
 * The worst journal for verify's per-leaf lookups: as many nodes as
 * there is room for, up to n, each adding a key, a deleted inode or a
 * truncation.  The main LEBs holding data nodes only (big files) become
 * buds; the first nodes delete the inodes of those data nodes, so that
 * the index leaves pointing into the overwritten LEBs are ones the
 * kernel's replay drops unread.  Then inodes above the master's
 * highest_inum, unlinked and truncated in turn.
 */
static void journal(int n)
{
	const struct ubifs_mst_node *mst;
	struct jcursor c = { .bud = -1 };
	uint32_t *victims = calloc(nr_nodes + 1, sizeof(*victims));
	uint8_t *other = calloc(leb_cnt, 1);
	uint32_t inum;
	int nv = 0, i, k, made = 0;

	c.bud_ok = calloc(leb_cnt, 1);
	if (!victims || !other || !c.bud_ok)
		die("out of memory");
	log_head(&mst);
	c.log_lnum = le32toh(mst->log_lnum);
	c.log_offs = (leb_end[c.log_lnum] + 7) & ~7;
	for (i = 0; i < nr_nodes; i++) {
		if (nodes[i].sqnum > c.sqnum)
			c.sqnum = nodes[i].sqnum;
		if (nodes[i].lnum >= main_first)
			c.bud_ok[nodes[i].lnum] = 1;
		if (nodes[i].type != UBIFS_DATA_NODE)
			other[nodes[i].lnum] = 1;
	}
	for (i = 0; i < leb_cnt; i++)
		c.bud_ok[i] &= !other[i];
	for (i = 0; i < nr_nodes; i++) {
		if (!c.bud_ok[nodes[i].lnum])
			continue;
		inum = le32(((size_t)nodes[i].lnum * leb_size + nodes[i].offs +
			     offsetof(struct ubifs_data_node, key)));
		for (k = 0; k < nv && victims[k] != inum; k++)
			;
		if (k == nv)
			victims[nv++] = inum;
	}
	for (k = 0; k < nv && made < n; k++, made++)
		if (put_jnode(&c, victims[k], 0))
			die("no LEB holds data nodes only");
	inum = le64toh(mst->highest_inum) + 1;
	while (made < n && !put_jnode(&c, inum, made & 1)) {
		inum += made & 1;
		made++;
	}
	fprintf(stderr, "journal: %d nodes, %d deleting the inodes of the "
		"buds' old data nodes\n", made, nv);
	free(victims);
	free(other);
	free(c.bud_ok);
}

static void apply(const char *spec, const char *out)
{
	size_t pos;
	int a, b;

	if (sscanf(spec, "flip:%zu", &pos) == 1) {
		int lnum = pos / leb_size, offs = pos % leb_size;
		const struct node *n = node_at(lnum, offs);

		if (pos >= img_len)
			die("position beyond the image");
		img[pos] ^= 0x5a;
		/* The CRC covers the length the header now says, where that
		 * still fits in the LEB. */
		if (n) {
			size_t at = (size_t)lnum * leb_size + n->offs;
			uint32_t len = le32(at + 16);

			if (len >= UBIFS_CH_SZ &&
			    len <= (uint32_t)(leb_size - n->offs))
				fix_node_crc(at);
		}
		describe(lnum, offs);
	} else if (sscanf(spec, "swap:%d:%d", &a, &b) == 2) {
		uint8_t *t = malloc(leb_size);

		if (a >= leb_cnt || b >= leb_cnt)
			die("no such LEB");
		memcpy(t, img + (size_t)a * leb_size, leb_size);
		memcpy(img + (size_t)a * leb_size, img + (size_t)b * leb_size,
		       leb_size);
		memcpy(img + (size_t)b * leb_size, t, leb_size);
		free(t);
		printf("%d:0x0 LEB-swap\n", a);
	} else if (!strcmp(spec, "mst-rollback")) {
		int l, last = -1, i;

		for (l = UBIFS_MST_LNUM; l <= UBIFS_MST_LNUM + 1; l++) {
			for (i = 0; i < nr_nodes; i++)
				if (nodes[i].lnum == l)
					last = i;
			if (last < 0 || nodes[last].offs == 0)
				die("no older master node to roll back to");
			memset(img + (size_t)l * leb_size + nodes[last].offs,
			       0xff, leb_size - nodes[last].offs);
		}
		printf("%d:0x%x mst-rollback\n", UBIFS_MST_LNUM + 1,
		       nodes[last].offs);
	} else if (!strcmp(spec, "sb-rp") || !strcmp(spec, "sb-zero-hmac")) {
		struct ubifs_sb_node *sb = (void *)img;

		if (!strcmp(spec, "sb-rp"))
			sb->rp_size = htole64(le64toh(sb->rp_size) + 4096);
		else
			memset(sb->hmac, 0, sizeof(sb->hmac));
		fix_node_crc(0);
		printf("0:0x0 %s\n", spec);
	} else if (!strncmp(spec, "graft:", 6)) {
		graft(spec + 6);
	} else if (!strncmp(spec, "journal:", 8)) {
		journal(atoi(spec + 8));
	} else {
		die("unknown spec");
	}
	save(out);
}

/* A data node in a bud followed by an authentication node in that LEB:
 * a change to it must break that authentication node's HMAC. */
static void budnode(void)
{
	const struct node *best = NULL;
	int i, k;

	for (i = 0; i < nr_nodes; i++) {
		const struct ubifs_ref_node *ref;
		const uint8_t *p;

		if (nodes[i].type != UBIFS_REF_NODE)
			continue;
		p = img + (size_t)nodes[i].lnum * leb_size + nodes[i].offs;
		ref = (const void *)p;
		for (k = 0; k + 1 < nr_nodes; k++) {
			const struct node *n = &nodes[k];

			if (n->lnum != (int)le32toh(ref->lnum) ||
			    n->offs < (int)le32toh(ref->offs) ||
			    n->type != UBIFS_DATA_NODE ||
			    nodes[k + 1].lnum != n->lnum ||
			    nodes[k + 1].type != UBIFS_AUTH_NODE)
				continue;
			if (!best || n->sqnum > best->sqnum)
				best = n;
		}
	}
	if (!best)
		die("no authenticated data node in a bud");
	printf("%d %d\n", best->lnum, best->offs);
}

int main(int argc, char **argv)
{
	tool_name = "ubifs-mutate";
	if (argc < 3)
		die("usage: plan IMG COUNT SEED | apply IMG OUT SPEC | budnode IMG");
	load_volume(argv[2]);
	scan();
	if (!strcmp(argv[1], "plan") && argc == 5)
		plan(atoi(argv[3]), strtoul(argv[4], NULL, 0));
	else if (!strcmp(argv[1], "apply") && argc == 5)
		apply(argv[4], argv[3]);
	else if (!strcmp(argv[1], "budnode"))
		budnode();
	else
		die("bad arguments");
	return 0;
}
