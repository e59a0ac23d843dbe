// SPDX-License-Identifier: GPL-2.0
/* Suites with known outcomes for the framework's self-test. */
#include <stdlib.h>

#include "tests/tests.h"

int test__fixture_pass(void)
{
	TEST_ASSERT_EQUAL("arithmetic", 2 + 2, 4);
	return TEST_OK;
}

int test__fixture_fail(void)
{
	TEST_ASSERT_EQUAL("deliberate failure detail", 2 + 2, 5);
	return TEST_OK;
}

/* "fixture" is a capability --caps reports absent in fixture runs. */
int test__fixture_skip(void)
{
	return test_skip_cap("fixture", "fixture reason");
}

/* The skip ledger counts these two as failures. */
int test__fixture_skip_nocap(void)
{
	return test_skip("no capability named");
}

int test__fixture_skip_wrong_cap(void)
{
	return test_skip_cap("!fixture", "claims a capability it lacks is present");
}

int test__fixture_crash(void)
{
	/* abort(), not SIGSEGV: ASan catches SEGV and exits normally. */
	abort();
	return TEST_OK;
}
