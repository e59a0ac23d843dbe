// SPDX-License-Identifier: GPL-2.0
/*
 * tracekit ubifs: inspect, verify and sign authenticated UBIFS images
 * offline.  The logic is in ubifs/; this file parses options, calls it
 * and prints.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "ubifs/auth.h"
#include "ubifs/extract.h"
#include "ubifs/image.h"
#include "ubifs/info.h"
#include "ubifs/sign.h"
#include "ubifs/verify.h"
#include "util/parse-options.h"
#include "util/usage.h"
#include "util/wrapper.h"

static const char *const ubifs_usage[] = {
	"tracekit ubifs info [--nodes] [--volume ID|NAME] IMAGE",
	"tracekit ubifs verify IMAGE [--volume ID|NAME] [--cert CERT.pem] [--key-file HMACKEY | --key-desc DESC]",
	"tracekit ubifs sign IN OUT (--key KEY.pem --cert CERT.pem | --hmac-key FILE) [--hash-algo ALGO]",
	"tracekit ubifs extract IMAGE DIR [--volume ID|NAME] [--cert CERT.pem] [--key-file HMACKEY | --key-desc DESC] [--max-size SIZE]",
	NULL
};

static void print_first_problem_and_die(const char *path,
					const struct ubifs_report *rep)
{
	char *s = ubifs_problem_str(&rep->v[0]);

	die("%s: %s", path, s);
}

static void open_image(const char *path, const char *volume,
		       struct ubifs_image *img, struct ubifs_report *rep)
{
	struct strbuf err = STRBUF_INIT;

	if (ubifs_image_open(img, path, volume, rep, &err))
		die("%s: %s", path, err.buf);
}

/*
 * The number of UBIFS volumes of the UBI image at path (0 for a raw
 * image), listed into uv, with what the whole image has to say: PEBs
 * left out (UBI itself leaves them out; a LEB they held reads as erased,
 * which verify then reports), a volume table missing.  With several and
 * none chosen, a command that works on one refuses: which one the device
 * mounts is the user's to say.
 */
static int image_volumes(const char *path, const char *volume, int several_ok,
			 struct ubifs_ubi_vol *uv)
{
	struct strbuf err = STRBUF_INIT;
	int ret = ubifs_image_volumes(path, uv, &err), n = uv->nr_vols;

	if (uv->skipped)
		warning("%s: UBI image: %d PEB%s with a corrupt header "
			"left out (first: PEB %d)", path, uv->skipped,
			uv->skipped == 1 ? "" : "s", uv->first_skipped);
	if (ret > 0 && uv->vtbl_note)
		warning("%s: UBI image: no good volume table (%s): volumes "
			"unnamed", path, uv->vtbl_note);
	if (ret < 0)
		die("%s: %s", path, err.buf);
	if (n > 1 && !volume && !several_ok) {
		ubifs_ubi_volumes_str(&err, uv->vols, n);
		die_code(TK_EXIT_USAGE, "%s: %d UBIFS volumes (%s): choose one "
			 "with --volume", path, n, err.buf);
	}
	strbuf_release(&err);
	return ret > 0 ? n : 0;
}

static int cmd_info(int argc, const char **argv)
{
	const char *const usage[] = {
		"tracekit ubifs info [--nodes] [--volume ID|NAME] IMAGE", NULL
	};
	const char *volume = NULL;
	int nodes = 0;
	const struct option options[] = {
		OPT_BOOL(0, "nodes", &nodes,
			 "also list every node found: LEB:offset, type, length"),
		OPT_STRING(0, "volume", &volume, "ID|NAME",
			   "the UBIFS volume of a UBI image, by volume ID or name"),
		OPT_END()
	};
	struct strbuf label = STRBUF_INIT, out = STRBUF_INIT;
	struct ubifs_verify_opts vo = { .no_hash = 1 };
	struct ubifs_ubi_vol uv;
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_result res;
	struct ubifs_image img;

	argc = parse_options(argc, argv, options, usage, 0);
	if (argc != 1)
		usage_with_options(usage, options);
	image_volumes(argv[0], volume, 0, &uv);
	ubifs_ubi_vol_release(&uv);
	open_image(argv[0], volume, &img, &rep);
	ubifs_image_label(&label, argv[0], ubifs_image_volume(&img));
	ubifs_verify(&img, &vo, &res, &rep);
	if (rep.nr)
		print_first_problem_and_die(label.buf, &rep);
	ubifs_info_str(&out, argv[0], &img, &res, nodes);
	fputs(out.buf, stdout);
	ubifs_image_release(&img);
	ubifs_report_clear(&rep);
	strbuf_release(&label);
	strbuf_release(&out);
	return TK_EXIT_OK;
}

/* A tty on stderr and a large image: show how far the scan got. */
static void show_progress(void *arg, int done, int total)
{
	(void)arg;
	if (done < total)
		fprintf(stderr, "\rscanning LEB %d/%d", done, total);
	else
		fprintf(stderr, "\r\033[K");
}

static void load_key(const char *path, uint8_t **key, size_t *len)
{
	struct strbuf err = STRBUF_INIT;

	if (ubifs_read_key_file(path, key, len, &err))
		die("%s: %s", path, err.buf);
}

static int opt_max_size(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	if (ubifs_extract_parse_size(arg, opt->value))
		return error("--max-size %s: not a positive size (bytes, or "
			     "with K, M, G or T)", arg);
	return 0;
}

/*
 * Verifies, and into dir (unless NULL) extracts with eo, the volume of
 * path that volume names (NULL: the image); v, when going through
 * several, is that volume, whose failing to open is then one verdict
 * among others.  Returns the number of problems found.
 */
static int verify_volume(const char *path, const char *volume,
			 const struct ubifs_ubi_volume *v, const char *dir,
			 struct ubifs_extract_opts *eo,
			 struct ubifs_verify_opts *vo)
{
	struct strbuf err = STRBUF_INIT, label = STRBUF_INIT;
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_result res;
	struct ubifs_image img;
	int i, n;

	if (ubifs_image_open(&img, path, volume, &rep, &err)) {
		if (!v)
			die("%s: %s", path, err.buf);
		ubifs_image_label(&label, path, v);
		error("%s: verification FAILED: %s", label.buf, err.buf);
		n = 1;
		goto out;
	}
	ubifs_image_label(&label, path, ubifs_image_volume(&img));
	vo->progress = isatty(STDERR_FILENO) && img.file_size >= (64u << 20) ?
		       show_progress : NULL;
	ubifs_verify(&img, vo, &res, &rep);
	/* The kernel mounts such images; say what their hashes are worth. */
	if (res.authenticated && ubifs_hash_weak(img.g.hash_algo))
		warning("%s: hash algorithm %s: collisions can be computed, so "
			"its hashes do not bind the nodes they name (the kernel "
			"accepts it; sha256 does)", label.buf,
			ubifs_hash_name(img.g.hash_algo));
	n = rep.nr;
	for (i = 0; i < rep.nr; i++) {
		char *s = ubifs_problem_str(&rep.v[i]);

		if (ubifs_image_volume(&img))
			printf("%s: %s\n", label.buf, s);
		else
			printf("%s\n", s);
		free(s);
	}
	if (!n)
		printf("%s: OK: %d index nodes, %d leaves, %d LPT pnodes; %s\n",
		       label.buf, res.idx_nodes, ubifs_verify_leaves(&res),
		       res.pnodes, ubifs_verify_summary(&res));
	else
		error("%s: verification FAILED: %d problem%s%s", label.buf, n,
		      n == 1 ? "" : "s", dir ? ", nothing extracted" : "");
	if (!n && dir) {
		int files;

		if (res.journal_nodes)
			die("%s: extract: the journal holds %d nodes not yet in "
			    "the index; mount and unmount the image to commit "
			    "them", label.buf, res.journal_nodes);
		eo->verified = &res;
		if (ubifs_extract(&img, eo, dir, &files, &err))
			die("%s: extract: %s", label.buf, err.buf);
		printf("%s: %d files extracted\n", dir, files);
	}
	ubifs_image_release(&img);
out:
	ubifs_report_clear(&rep);
	strbuf_release(&label);
	strbuf_release(&err);
	return n;
}

static int cmd_verify(int argc, const char **argv)
{
	const char *const verify_usage[] = {
		"tracekit ubifs verify IMAGE [--volume ID|NAME] [--cert CERT.pem] [--key-file HMACKEY | --key-desc DESC]",
		NULL
	};
	const char *const extract_usage[] = {
		"tracekit ubifs extract IMAGE DIR [--volume ID|NAME] [--cert CERT.pem] [--key-file HMACKEY | --key-desc DESC] [--max-size SIZE]",
		NULL
	};
	int extract = !strcmp(argv[0], "extract");
	const char *const *usage = extract ? extract_usage : verify_usage;
	const char *cert = NULL, *key_file = NULL, *key_desc = NULL;
	const char *volume = NULL;
	struct ubifs_extract_opts eo = { 0 };
	const struct option options[] = {
		OPT_STRING(0, "cert", &cert, "CERT.pem",
			   "verify the superblock's PKCS#7 signature with this X.509 certificate (PEM or DER)"),
		OPT_STRING(0, "key-file", &key_file, "HMACKEY",
			   "verify the HMACs with this raw key (the logon key's payload)"),
		OPT_STRING(0, "key-desc", &key_desc, "DESC",
			   "verify the HMACs with the user key DESC from the kernel keyring"),
		OPT_STRING(0, "volume", &volume, "ID|NAME",
			   "the UBIFS volume of a UBI image, by volume ID or name (verify: all by default)"),
		OPT_CALLBACK(0, "max-size", &eo.max_size, "SIZE",
			     "extract: refuse images whose files declare more than SIZE bytes (K, M, G, T; default: the free space)",
			     opt_max_size),
		OPT_END()
	};
	struct ubifs_verify_opts vo = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct ubifs_ubi_vol uv;
	uint8_t *key = NULL;
	size_t key_len = 0;
	int i, n, failed = 0;

	argc = parse_options(argc, argv, options, usage, 0);
	if (argc != 1 + extract)
		usage_with_options(usage, options);
	if (eo.max_size && !extract)
		die_code(TK_EXIT_USAGE, "--max-size is an option of extract");
	if (key_file && key_desc)
		die_code(TK_EXIT_USAGE, "--key-file and --key-desc exclude each other");
	if (key_file)
		load_key(key_file, &key, &key_len);
	if (key_desc && ubifs_read_key_desc(key_desc, &key, &key_len, &err))
		die("--key-desc: %s", err.buf);
	vo.hmac_key = key;
	vo.hmac_key_len = key_len;
	vo.cert = cert;
	/* A dump holds several volumes, and a signed one proves nothing of
	 * the one the device mounts: without a choice, verify them all. */
	n = image_volumes(argv[0], volume, !extract, &uv);
	if (n > 1 && !volume) {
		for (i = 0; i < n; i++) {
			char id[16];

			snprintf(id, sizeof(id), "%u", uv.vols[i].vol_id);
			if (!verify_volume(argv[0], id, &uv.vols[i], NULL, NULL,
					   &vo))
				continue;
			if (failed++)
				strbuf_addstr(&err, ", ");
			ubifs_ubi_volumes_str(&err, &uv.vols[i], 1);
		}
		if (failed)
			error("%s: %d of %d UBIFS volumes FAILED: %s", argv[0],
			      failed, n, err.buf);
	} else {
		failed = !!verify_volume(argv[0], volume, NULL,
					 extract ? argv[1] : NULL, &eo, &vo);
	}
	ubifs_ubi_vol_release(&uv);
	ubifs_key_free(key, key_len);
	strbuf_release(&err);
	return failed ? TK_EXIT_FAIL : TK_EXIT_OK;
}

static int cmd_sign(int argc, const char **argv)
{
	const char *const usage[] = {
		"tracekit ubifs sign IN OUT (--key KEY.pem --cert CERT.pem | --hmac-key FILE) [--hash-algo ALGO]",
		NULL
	};
	const char *key = NULL, *cert = NULL, *algo = "sha256";
	const char *hmac_file = NULL;
	const struct option options[] = {
		OPT_STRING(0, "key", &key, "KEY.pem",
			   "private key (PEM) that signs the superblock"),
		OPT_STRING(0, "cert", &cert, "CERT.pem",
			   "X.509 certificate of that key, identifies the signer"),
		OPT_STRING(0, "hash-algo", &algo, "ALGO",
			   "hash for nodes, index and LPT: sha256 (default), sha1, sha512, ..."),
		OPT_STRING(0, "hmac-key", &hmac_file, "FILE",
			   "also authenticate superblock and master nodes with HMACs of this raw key"),
		OPT_END()
	};
	struct ubifs_sign_opts so = { 0 };
	struct ubifs_report rep = { 0 };
	struct ubifs_image img;
	uint8_t *hkey = NULL, *out;
	size_t hkey_len = 0, out_len;
	struct strbuf err = STRBUF_INIT;

	argc = parse_options(argc, argv, options, usage, 0);
	if (argc != 2)
		usage_with_options(usage, options);
	if (!key != !cert)
		die_code(TK_EXIT_USAGE, "--key and --cert go together");
	if (!key && !hmac_file)
		die_code(TK_EXIT_USAGE, "give --key and --cert, or --hmac-key");
	so.hash_algo = ubifs_hash_algo_by_name(algo);
	if (so.hash_algo < 0)
		die_code(TK_EXIT_USAGE, "--hash-algo %s: not supported", algo);
	if (hmac_file) {
		load_key(hmac_file, &hkey, &hkey_len);
		so.hmac_key = hkey;
		so.hmac_key_len = hkey_len;
	}
	so.key = key;
	so.cert = cert;
	open_image(argv[0], NULL, &img, &rep);
	if (img.ubi_note)
		die("%s: sign works on raw UBIFS images (mkfs.ubifs output), "
		    "not UBI images", argv[0]);
	if (ubifs_sign(&img, &so, &out, &out_len, &err))
		die("%s: %s", argv[0], err.buf);
	if (write_file_atomic(argv[1], out, out_len, 0644, &err))
		die("%s", err.buf);
	printf("%s: signed with %s%s%s, %zu bytes\n", argv[1], algo,
	       key ? ", PKCS#7 signature" : "", hmac_file ? ", HMACs" : "",
	       out_len);
	free(out);
	ubifs_image_release(&img);
	ubifs_report_clear(&rep);
	ubifs_key_free(hkey, hkey_len);
	return TK_EXIT_OK;
}

static const struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
} verbs[] = {
	{ "info", cmd_info },
	{ "verify", cmd_verify },
	{ "sign", cmd_sign },
	{ "extract", cmd_verify },
};

int cmd_ubifs(int argc, const char **argv)
{
	int list_cmds = 0;
	size_t i;
	const struct option options[] = {
		/* The completion script's list of verbs. */
		OPT_HIDDEN_BOOL(0, "list-cmds", &list_cmds, "list the subcommands"),
		OPT_END()
	};

	argc = parse_options(argc, argv, options, ubifs_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (list_cmds) {
		for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
			printf("%s\n", verbs[i].name);
		return TK_EXIT_OK;
	}
	if (argc < 1)
		usage_with_options(ubifs_usage, options);
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[0], verbs[i].name))
			return verbs[i].fn(argc, argv);
	error("unknown subcommand '%s'", argv[0]);
	usage_with_options(ubifs_usage, options);
}
