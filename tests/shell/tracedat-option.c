// SPDX-License-Identifier: GPL-2.0
/*
 * tracedat-option FILE ID HEXDATA: appends an option to a little-endian
 * trace.dat v7 file (trace-cmd's trace-cmd.dat.v7 layout): a new options
 * section at the end of the file holding option ID with the bytes
 * HEXDATA and a DONE option, linked from the DONE of the last options
 * section.  Makes the host/guest options (TIME_SHIFT, GUEST) of a
 * recording that cannot be made here, for trace-cmd report to apply.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t get(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void put(unsigned char *p, uint64_t v, int n)
{
	while (n--) {
		*p++ = v;
		v >>= 8;
	}
}

static int die(const char *why)
{
	fprintf(stderr, "tracedat-option: %s\n", why);
	return 1;
}

int main(int argc, char **argv)
{
	unsigned char *f, *opt;
	long size, pos, first, done = -1, sec;
	size_t len, i, n;
	FILE *fp;

	if (argc != 4 || strlen(argv[3]) % 2)
		return die("usage: tracedat-option FILE ID HEXDATA");
	fp = fopen(argv[1], "r+b");
	if (!fp || fseek(fp, 0, SEEK_END) || (size = ftell(fp)) < 64)
		return die("cannot open the file");
	f = malloc(size);
	rewind(fp);
	if (!f || fread(f, 1, size, fp) != (size_t)size)
		return die("cannot read the file");
	if (memcmp(f, "\x17\x08\x44tracing7", 11) || f[12])
		return die("not a little-endian v7 trace.dat");
	/* magic, version, endian, long size, page size */
	pos = 18;
	pos += strlen((char *)f + pos) + 1;	/* compression name */
	pos += strlen((char *)f + pos) + 1;	/* and version */
	sec = first = get(f + pos, 8);
	/*
	 * Each options section: u16 id 0, u16 flags, u32 string, u64 size,
	 * options.
	 */
	while (sec && sec + 16 <= size && get(f + sec, 2) == 0 &&
	       get(f + sec + 2, 2) == 0) {
		pos = sec + 16;
		while (pos + 6 <= size && get(f + pos, 2) != 0)
			pos += 6 + get(f + pos + 2, 4);
		if (pos + 14 > size || get(f + pos + 2, 4) != 8)
			return die("options section without DONE");
		done = pos + 6;
		sec = get(f + done, 8);
	}
	if (done < 0 || sec)
		return die("no uncompressed options chain");
	n = strlen(argv[3]) / 2;
	len = 16 + 6 + n + 6 + 8;
	opt = calloc(1, len);
	/* The new section's description: the string of the first one. */
	memcpy(opt + 4, f + first + 4, 4);
	put(opt + 8, len - 16, 8);
	put(opt + 16, strtoul(argv[2], NULL, 0), 2);
	put(opt + 18, n, 4);
	for (i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(argv[3] + 2 * i, "%2x", &b) != 1)
			return die("HEXDATA is not hex");
		opt[22 + i] = b;
	}
	put(opt + 22 + n + 2, 8, 4);	/* DONE: id 0, size 8, next 0 */
	put(f + done, size, 8);
	if (fseek(fp, done, SEEK_SET) || fwrite(f + done, 1, 8, fp) != 8 ||
	    fseek(fp, 0, SEEK_END) || fwrite(opt, 1, len, fp) != len ||
	    fclose(fp))
		return die("cannot write the file");
	free(opt);
	free(f);
	return 0;
}
