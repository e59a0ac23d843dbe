// SPDX-License-Identifier: GPL-2.0
/*
 * verify --key-desc: the HMAC key comes from the kernel keyring.  Keys are
 * added to this process's own keyring, which goes away with it.
 */
#include <errno.h>
#include <linux/keyctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/tests.h"
#include "ubifs/auth.h"
#include "util/strbuf.h"

static long add_key(const char *type, const char *desc, const void *p,
		    size_t n)
{
	return syscall(SYS_add_key, type, desc, p, n,
		       KEY_SPEC_PROCESS_KEYRING);
}

int test__ubifs_keyring(void)
{
	static const uint8_t secret[] = "\x01\x02\x03 raw HMAC key";
	uint8_t *key = NULL;
	size_t len = 0;
	struct strbuf why = STRBUF_INIT;

	/* Debian's kernels have keyrings: add_key failing is a failure. */
	TEST_ASSERT_VAL("add_key of a user key",
			add_key("user", "tracekit:ubifs-test", secret,
				sizeof(secret)) >= 0);
	TEST_ASSERT_EQUAL("user key read",
			  ubifs_read_key_desc("tracekit:ubifs-test", &key, &len,
					      &why), 0);
	TEST_ASSERT_EQUAL("length", len, sizeof(secret));
	TEST_ASSERT_VAL("payload", !memcmp(key, secret, len));
	free(key);

	TEST_ASSERT_VAL("missing key",
			ubifs_read_key_desc("tracekit:nonexistent", &key, &len,
					    &why) < 0 &&
			strstr(why.buf, "no user key"));
	/* What the kernel's UBIFS uses: a logon key, unreadable here. */
	if (add_key("logon", "ubifs:tracekit-test", secret,
		    sizeof(secret)) >= 0)
		TEST_ASSERT_VAL("logon key refused",
				ubifs_read_key_desc("ubifs:tracekit-test", &key,
						    &len, &why) < 0 &&
				strstr(why.buf, "logon key"));
	strbuf_release(&why);
	return TEST_OK;
}
