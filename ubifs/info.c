// SPDX-License-Identifier: GPL-2.0
/*
 * The text of `tracekit ubifs info`: an image and what verifying it
 * counted, in lines of a 16-column label and a value.
 */
#include <endian.h>
#include <string.h>

#include "ubifs/info.h"
#include "ubifs/ubi.h"

static const char *compr_name(int c)
{
	static const char *const names[] = { "none", "lzo", "zlib", "zstd" };

	return c >= 0 && c < 4 ? names[c] : "unknown";
}

static void counts_str(struct strbuf *sb, const char *label,
		       const int *counts)
{
	static const int order[] = {
		UBIFS_SB_NODE, UBIFS_SIG_NODE, UBIFS_MST_NODE, UBIFS_CS_NODE,
		UBIFS_REF_NODE, UBIFS_IDX_NODE, UBIFS_INO_NODE,
		UBIFS_DENT_NODE, UBIFS_XENT_NODE, UBIFS_DATA_NODE,
		UBIFS_TRUN_NODE, UBIFS_ORPH_NODE, UBIFS_AUTH_NODE,
	};
	const char *sep = "";
	size_t i;

	strbuf_addf(sb, "%-16s", label);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *name = ubifs_node_name(order[i]);

		if (!counts[order[i]])
			continue;
		strbuf_addf(sb, "%s%.*s %d", sep, (int)(strlen(name) - 5),
			    name, counts[order[i]]);
		sep = ", ";
	}
	strbuf_addch(sb, '\n');
}

static void nodes_str(struct strbuf *sb, const struct ubifs_image *img)
{
	int lnum, i;

	for (lnum = 0; lnum < img->g.leb_cnt; lnum++)
		for (i = 0; i < img->scan[lnum].nr; i++) {
			const struct ubifs_snode *sn = &img->scan[lnum].v[i];

			strbuf_addf(sb, "LEB %d:0x%x %s %u\n", lnum, sn->offs,
				    ubifs_node_name(sn->type), sn->len);
		}
}

void ubifs_info_str(struct strbuf *sb, const char *path,
		    const struct ubifs_image *img,
		    const struct ubifs_verify_result *res, int nodes)
{
	const struct ubifs_geom *g = &img->g;
	const struct ubifs_sb_node *sbn = &img->sb;

	strbuf_addf(sb, "%-16s%s (%zu bytes%s%s)\n", "image:", path,
		    img->file_size, img->ubi_note ? ", " : "",
		    img->ubi_note ? img->ubi_note : "");
	if (img->ubi_note) {
		strbuf_addf(sb, "%-16s", "volume:");
		ubifs_ubi_volumes_str(sb, &img->ubi_vol, 1);
		strbuf_addf(sb, " (of %d UBIFS volume%s)\n", img->ubi_nr_vols,
			    img->ubi_nr_vols == 1 ? "" : "s");
	}
	strbuf_addf(sb, "%-16smin I/O %d, LEB size %d, LEBs %d (max %d)\n",
		    "geometry:", g->min_io, g->leb_size, g->leb_cnt,
		    g->max_leb_cnt);
	strbuf_addf(sb, "%-16ssuperblock 0, master 1-2, log %d-%d, "
		    "LPT %d-%d, orphan %d-%d, main %d-%d\n", "areas:",
		    UBIFS_LOG_LNUM, g->lpt_first - 1, g->lpt_first,
		    g->lpt_last, g->orph_first, g->main_first - 1,
		    g->main_first, g->leb_cnt - 1);
	strbuf_addf(sb, "%-16sversion %d, fanout %d, compression %s, "
		    "%s LPT\n", "format:", g->fmt_version, g->fanout,
		    compr_name(le16toh(sbn->default_compr)),
		    g->flags & UBIFS_FLG_BIGLPT ? "big" : "small");
	strbuf_addf(sb, "%-16s0x%x%s%s%s%s\n", "flags:", g->flags,
		    g->flags & UBIFS_FLG_AUTHENTICATION ?
		    " authentication" : "",
		    g->flags & UBIFS_FLG_ENCRYPTION ? " encryption" : "",
		    g->flags & UBIFS_FLG_DOUBLE_HASH ? " double-hash" : "",
		    g->flags & UBIFS_FLG_SPACE_FIXUP ? " space-fixup" : "");
	if (res->authenticated)
		strbuf_addf(sb, "%-16s%s, %s%s\n", "authentication:",
			    ubifs_hash_name(g->hash_algo),
			    res->sig_present ?
			    "signed (PKCS#7 signature node)" : "no signature",
			    res->hmac_present ? ", HMACs" : "");
	else
		strbuf_addf(sb, "%-16snone\n", "authentication:");
	strbuf_addf(sb, "%-16sLEB %d:0x%x, length %d, level %d\n",
		    "root index:", res->root_lnum, res->root_offs,
		    res->root_len, res->root_level);
	strbuf_addf(sb, "%-16s%d (highest inode number %llu)\n", "inodes:",
		    res->leaves[UBIFS_INO_NODE],
		    (unsigned long long)res->highest_inum);
	strbuf_addf(sb, "%-16s%d entries, %d xattr entries, %d data nodes "
		    "(%llu bytes)\n", "files:", res->leaves[UBIFS_DENT_NODE],
		    res->leaves[UBIFS_XENT_NODE],
		    res->leaves[UBIFS_DATA_NODE],
		    (unsigned long long)res->data_bytes);
	strbuf_addf(sb, "%-16s%d index nodes; LPT %d nnodes, %d pnodes\n",
		    "tree:", res->idx_nodes, res->nnodes, res->pnodes);
	strbuf_addf(sb, "%-16s%d buds, %d uncommitted nodes\n", "journal:",
		    res->buds, res->journal_nodes);
	counts_str(sb, "nodes:", res->scanned);
	if (nodes)
		nodes_str(sb, img);
}
