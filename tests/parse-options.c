// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tests.h"
#include "util/parse-options.h"
#include "util/strbuf.h"

static int cb_calls;
static const char *cb_last;

static int count_cb(const struct option *opt, const char *arg, int unset)
{
	(void)opt;
	if (unset)
		return 0;
	if (arg && !strcmp(arg, "bad"))
		return -1;
	cb_calls++;
	cb_last = arg;
	return 0;
}

struct vals {
	int flag, verbose, num, set;
	unsigned long ul;
	const char *str;
	struct opt_string_list list;
};

static int parse(struct vals *v, int flags, const char **argv, int argc,
		 struct strbuf *err)
{
	const struct option opts[] = {
		OPT_BOOL('f', "flag", &v->flag, "a flag"),
		OPT_INCR('v', "verbose", &v->verbose, "more"),
		OPT_INTEGER('n', "num", &v->num, "N", "a number"),
		OPT_ULONG('u', "ulong", &v->ul, "N", "unsigned"),
		OPT_STRING('o', "output", &v->str, "FILE", "a string"),
		OPT_STRING_LIST('e', "event", &v->list, "EV", "repeatable"),
		OPT_SET_INT(0, "num-seven", &v->set, "sets 7", 7),
		OPT_CALLBACK('c', "call", NULL, "ARG", "callback", count_cb),
		OPT_END()
	};

	memset(v, 0, sizeof(*v));
	cb_calls = 0;
	cb_last = NULL;
	strbuf_reset(err);
	return parse_options_noexit(argc, argv, opts, flags, err);
}

#define ARGV(...) ((const char *[]){ "cmd", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((const char *[]){ "cmd", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(v, flags, ...) \
	parse(v, flags, ARGV(__VA_ARGS__), ARGC(__VA_ARGS__), &err)

/* What the completion script reads: one spelling a line, =ARGH where the
 * next word is the argument. */
static int test_list(void)
{
	static const char want[] =
		"-o=FILE\n--output=FILE\n--flag\n-F\n--funcs\n-e=...\n-h\n--help\n";
	const char *str = NULL;
	int flag = 0;
	const struct option opts[] = {
		OPT_GROUP("a group"),
		OPT_STRING('o', "output", &str, "FILE", "a file"),
		OPT_BOOL(0, "flag", &flag, "a flag"),
		OPT_ENTRY_(OPTION_CALLBACK, 'F', "funcs", NULL, "GLOB", "optional arg",
			   PARSE_OPT_OPTARG, count_cb, 0),
		OPT_HIDDEN_BOOL(0, "secret", &flag, "hidden"),
		OPT_STRING('e', NULL, &str, NULL, "no argh"),
		OPT_END()
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	TEST_ASSERT_VAL("open_memstream", fp);
	parse_options_list(fp, opts);
	fclose(fp);
	TEST_ASSERT_STR("--list-opts", buf, want);
	free(buf);
	return TEST_OK;
}

int test__parse_options(void)
{
	struct vals v;
	struct strbuf err = STRBUF_INIT;
	const char **av;
	int n;

	n = PARSE(&v, 0, "-f", "x", "--num=42", "-vv", "y", "-oout.dat", "-e", "a", "--event", "b");
	TEST_ASSERT_EQUAL("non-option count", n, 2);
	TEST_ASSERT_EQUAL("bool", v.flag, 1);
	TEST_ASSERT_EQUAL("incr bundled", v.verbose, 2);
	TEST_ASSERT_EQUAL("--num=42", v.num, 42);
	TEST_ASSERT_STR("-oVAL", v.str, "out.dat");
	TEST_ASSERT_EQUAL("list count", v.list.nr, 2);
	TEST_ASSERT_STR("list order", v.list.items[1], "b");
	opt_string_list_clear(&v.list);

	av = ARGV("a", "--num", "0x10", "--", "-f", "b");
	n = parse(&v, 0, av, 7, &err);
	TEST_ASSERT_EQUAL("args around --", n, 3);
	TEST_ASSERT_STR("kept order 0", av[0], "a");
	TEST_ASSERT_STR("after -- kept verbatim", av[1], "-f");
	TEST_ASSERT_EQUAL("hex integer", v.num, 16);
	TEST_ASSERT_EQUAL("-f after -- is not an option", v.flag, 0);

	av = ARGV("-f", "sub", "-n", "3");
	n = parse(&v, PARSE_OPT_STOP_AT_NON_OPTION, av, 5, &err);
	TEST_ASSERT_EQUAL("stop at non-option", n, 3);
	TEST_ASSERT_STR("stop keeps rest", av[1], "-n");
	TEST_ASSERT_EQUAL("-n not parsed", v.num, 0);

	n = PARSE(&v, 0, "--fl", "--no-flag", "--num-seven", "-u", "5");
	TEST_ASSERT_EQUAL("abbrev + negation", n, 0);
	TEST_ASSERT_EQUAL("--no-flag wins", v.flag, 0);
	TEST_ASSERT_EQUAL("set-int", v.set, 7);
	TEST_ASSERT_EQUAL("ulong", v.ul, 5);

	n = PARSE(&v, 0, "-c", "x", "--call=y");
	TEST_ASSERT_EQUAL("callback twice", cb_calls, 2);
	TEST_ASSERT_STR("callback arg", cb_last, "y");

	TEST_ASSERT_EQUAL("unknown long", PARSE(&v, 0, "--bogus"), -1);
	TEST_ASSERT_VAL("unknown long message", strstr(err.buf, "unknown option '--bogus'"));
	TEST_ASSERT_EQUAL("unknown short", PARSE(&v, 0, "-fZ"), -1);
	TEST_ASSERT_VAL("unknown short message", strstr(err.buf, "unknown switch 'Z'"));
	TEST_ASSERT_EQUAL("missing value", PARSE(&v, 0, "--num"), -1);
	TEST_ASSERT_VAL("missing value message", strstr(err.buf, "requires a value"));
	TEST_ASSERT_EQUAL("bad integer", PARSE(&v, 0, "-n", "12x"), -1);
	TEST_ASSERT_VAL("bad integer message", strstr(err.buf, "expects an integer"));
	TEST_ASSERT_EQUAL("negative ulong", PARSE(&v, 0, "-u", "-1"), -1);
	TEST_ASSERT_EQUAL("bool with value", PARSE(&v, 0, "--flag=1"), -1);
	TEST_ASSERT_EQUAL("ambiguous prefix", PARSE(&v, 0, "--nu"), -1);
	TEST_ASSERT_VAL("ambiguous message", strstr(err.buf, "ambiguous option '--nu'"));
	TEST_ASSERT_EQUAL("callback rejects", PARSE(&v, 0, "-c", "bad"), -1);
	TEST_ASSERT_EQUAL("no negation for incr", PARSE(&v, 0, "--no-verbose"), -1);
	TEST_ASSERT_EQUAL("-h is help", PARSE(&v, 0, "-h"), -2);
	TEST_ASSERT_EQUAL("--help is help", PARSE(&v, 0, "--help"), -2);
	TEST_ASSERT_EQUAL("--list-opts is help", PARSE(&v, 0, "--list-opts"), -2);
	strbuf_release(&err);
	return test_list();
}
