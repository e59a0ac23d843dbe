// SPDX-License-Identifier: GPL-2.0
/*
 * tktest: a target for tracekit's kernel-side tests (kprobes from DWARF,
 * the stack tracer).  Writing a number N to /proc/tktest calls
 * tktest_poke() with values derived from N, and logs them with pr_info so
 * a test can compare what a probe recorded with what the module passed.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

struct tktest_inner {
	long vals[4];
	char name[16];
};

struct tktest_obj {
	int id;
	unsigned int flags : 3;
	unsigned int prio : 5;
	unsigned char mac[6];
	struct tktest_inner *inner;
	void (*cb)(int);
};

static struct tktest_inner tktest_inner_data = { .name = "inner" };
static long tktest_static = 42;
struct tktest_obj tktest_global = { .id = 7, .inner = &tktest_inner_data };
EXPORT_SYMBOL_GPL(tktest_global);

static void tktest_cb(int n)
{
	pr_info("tktest: cb %d\n", n);
}

noinline int tktest_poke(struct tktest_obj *obj, long a, int b, short c,
			 char d, long e, long f, long g)
{
	const unsigned char *m = obj->mac;
	const long *v = obj->inner->vals;

	pr_info("tktest: poke id=%d flags=%u prio=%u a=%ld b=%d c=%d d=%d e=%ld f=%ld g=%ld\n",
		obj->id, obj->flags, obj->prio, a, b, c, d, e, f, g);
	/* What a probe on this function records, in the trace's own format. */
	pr_info("tktest: expect tktest_poke: id=%d a=%ld b=%d c=%d d=%d e=%ld f=%ld g=%ld mac={0x%x,0x%x,0x%x,0x%x,0x%x,0x%x} flags=%u prio=%u vals={%ld,%ld,%ld,%ld} name=\"%s\" cb=%pS gid=%d sv=%ld st=%ld\n",
		obj->id, a, b, c, d, e, f, g, m[0], m[1], m[2], m[3], m[4], m[5],
		obj->flags, obj->prio, v[0], v[1], v[2], v[3], obj->inner->name,
		obj->cb, tktest_global.id, tktest_inner_data.vals[1], tktest_static);
	if (obj->cb)
		obj->cb(b);
	return obj->id + b;
}

/*
 * Two functions the kernel may refuse a kprobe event on, for
 * probe-kmod-refuse.sh: one notrace (no ftrace location), one named as
 * a static function of 6.1's vmlinux (kernel/kallsyms.c), so that
 * kallsyms lists the name twice.  Global, so that they are kept.
 */
noinline notrace int tktest_notrace(int n)
{
	return n + 1;
}

noinline int kallsyms_open(int n)
{
	return n + 2;
}

static ssize_t tktest_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *off)
{
	char buf[32];
	long n;
	int i, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (kstrtol(strim(buf), 0, &n))
		return -EINVAL;
	tktest_global.id = (int)n;
	tktest_global.flags = n & 7;
	tktest_global.prio = (n >> 3) & 31;
	for (i = 0; i < 6; i++)
		tktest_global.mac[i] = (unsigned char)(0xa0 + i + n);
	for (i = 0; i < 4; i++)
		tktest_inner_data.vals[i] = n * 10 + i;
	tktest_global.cb = tktest_cb;
	tktest_static = n * 3;
	ret = tktest_poke(&tktest_global, n, (int)-n, (short)(n * 2), 'A' + (n % 26),
			  n + 5, n + 6, -(n + 7));
	pr_info("tktest: expect tktest_poke__return: ret=%d\n", ret);
	return len;
}

static const struct proc_ops tktest_ops = {
	.proc_write = tktest_write,
};

static struct proc_dir_entry *tktest_entry;

static int __init tktest_init(void)
{
	tktest_entry = proc_create("tktest", 0200, NULL, &tktest_ops);
	return tktest_entry ? 0 : -ENOMEM;
}

static void __exit tktest_exit(void)
{
	proc_remove(tktest_entry);
}

module_init(tktest_init);
module_exit(tktest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tracekit test target");
