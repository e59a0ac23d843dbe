// SPDX-License-Identifier: GPL-2.0
/*
 * An LD_PRELOAD library for report-badformat.sh: tep_parse_format() dies
 * of SIGSEGV on a format of the event TK_CRASH_EVENT names that has a
 * print fmt, as libtraceevent 1.7.1's does on the shapes of issue #40,
 * and is the library's otherwise.  It stands for a crash the checks in
 * front of the parser do not recognise.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

enum tep_errno tep_parse_format(struct tep_handle *tep,
				struct tep_event **eventp, const char *buf,
				unsigned long size, const char *sys)
{
	enum tep_errno (*real)(struct tep_handle *, struct tep_event **,
			       const char *, unsigned long, const char *);
	const char *event = getenv("TK_CRASH_EVENT");
	char name[256];

	if (event) {
		snprintf(name, sizeof(name), "name: %s\n", event);
		if (size > strlen(name) && !memcmp(buf, name, strlen(name)) &&
		    memmem(buf, size, "\nprint fmt:", 11))
			raise(SIGSEGV);
	}
	*(void **)&real = dlsym(RTLD_NEXT, "tep_parse_format");
	return real(tep, eventp, buf, size, sys);
}
