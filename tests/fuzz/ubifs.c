// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the UBIFS reader: UBI reassembly, superblock,
 * scan, index walk, LPT, hashes; and, for inputs that verify as plain
 * images, sign with an HMAC key and check that the result verifies.
 * Built and run by tests/fuzz/run-ubifs.sh (not part of make check).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/ubifs-auth.h"
#include "util/ubifs-image.h"
#include "util/ubifs-sign.h"
#include "util/ubifs-ubi.h"
#include "util/ubifs-verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sign_round_trip(struct ubifs_image *img)
{
	static const uint8_t key[] = "fuzzing key";
	struct ubifs_sign_opts so = {
		.hash_algo = ubifs_hash_algo_by_name("sha256"),
		.hmac_key = key, .hmac_key_len = sizeof(key) - 1,
	};
	struct ubifs_verify_opts vo = { .hmac_key = key,
					.hmac_key_len = sizeof(key) - 1 };
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_result res;
	struct ubifs_image out;
	uint8_t *buf;
	size_t len;
	char why[256];

	if (ubifs_sign(img, &so, &buf, &len, why, sizeof(why)))
		return;
	if (ubifs_image_init(&out, buf, len, &rep) ||
	    ubifs_verify(&out, &vo, &res, &rep) || !res.hmac_checked)
		abort();
	ubifs_image_release(&out);
	ubifs_report_clear(&rep);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ubifs_verify_opts vo = { 0 };
	struct ubifs_report rep = { 0 };
	struct ubifs_verify_result res;
	struct ubifs_image img;
	const void *vol = data;
	void *owned = NULL;
	size_t len = size;
	char why[256];

	if (ubifs_ubi_detect(data, size)) {
		struct ubifs_ubi_vol uv;

		if (ubifs_ubi_extract(data, size, &uv, why, sizeof(why)))
			return 0;
		owned = uv.data;
		vol = owned;
		len = uv.len;
	}
	if (ubifs_image_init(&img, vol, len, &rep) == 0 &&
	    ubifs_verify(&img, &vo, &res, &rep) == 0 && !res.authenticated)
		sign_round_trip(&img);
	ubifs_image_release(&img);
	ubifs_report_clear(&rep);
	free(owned);
	return 0;
}
