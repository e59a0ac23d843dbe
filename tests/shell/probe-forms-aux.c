// SPDX-License-Identifier: GPL-2.0
/* probe-forms.c's second source file: SRC:LINE and SRC;PATTERN specs. */
struct req {
	int len;
	char name[16];
	struct req *next;
};

__attribute__((noinline)) int aux_sum(const struct req *r, int scale)
{
	int acc = 0;

	while (r) {
		acc += r->len * scale;
		r = r->next;
	}
	return acc;
}
