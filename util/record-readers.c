// SPDX-License-Identifier: GPL-2.0
/*
 * record: one reader thread per CPU reads full pages from trace_pipe_raw
 * into chunks; one compressor thread encodes them into each CPU's
 * scratch file.  Ours rather than libtracefs's tracefs_cpu_*(): see the
 * measurements in util/tracefs.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "util/record-int.h"
#include "util/tracedat-write.h"
#include "util/tracefs.h"
#include "util/usage.h"
#include "util/wrapper.h"

/*
 * Chunks a reader may hold (the one it fills, the one queued), 2 MB a
 * CPU with 4 KB pages: while the compressor is behind, the pages wait
 * in the ring buffer, not here.  (4 chunks of 1 MB did no better in the
 * guest than 2.)  A bound of 32 MB for all readers from the start let a
 * reader woken at buffer_percent queue some 40 chunks, each touched for
 * the first time: 1,400 page faults, a tenth of bench/record.sh's CPU
 * time of ours.
 *
 * But when a ring buffer is half full while its reader waits, the
 * compressor is slower than the events come (a high -z level, many
 * CPUs) and the ring buffer would overflow: from then on the readers
 * queue up to QUEUE_BYTES, all of them together.  At -z 19 with -b 1024
 * the bound of 4 chunks of 128 KB alone lost 95% of 1.2M events, 32 MB 38%.
 * A waiting reader looks at its ring buffer every CHECK_MS.
 */
#define READER_CHUNKS	2
#define QUEUE_BYTES	(32u << 20)
#define CHECK_MS	2

static void set_err(struct record *rec, int err)
{
	pthread_mutex_lock(&rec->threads.lock);
	if (!rec->threads.err)
		rec->threads.err = err;
	pthread_mutex_unlock(&rec->threads.lock);
	eventfd_write(rec->threads.fail_fd, 1);
}

static int may_take(struct record *rec, struct cpu_reader *r)
{
	if (r->held < READER_CHUNKS)
		return 1;
	return rec->threads.behind &&
	       (rec->threads.free ||
		rec->threads.allocated + rec->setup.chunk_size <= QUEUE_BYTES);
}

/* Bytes in the ring buffer not read yet, -1 when the stats do not say. */
static int64_t unread_bytes(struct cpu_reader *r)
{
	struct cpu_stats st;

	return record_read_stats(r, &st, NULL) ? -1 : st.bytes;
}

static int ring_half_full(struct cpu_reader *r)
{
	return unread_bytes(r) > (int64_t)(r->ring_bytes / 2);
}

static void wait_check(struct record *rec)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_nsec += CHECK_MS * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&rec->threads.freed, &rec->threads.lock, &t);
}

static struct chunk *get_chunk(struct record *rec, struct cpu_reader *r)
{
	struct chunk *c;

	pthread_mutex_lock(&rec->threads.lock);
	while (!may_take(rec, r)) {
		int full;

		if (rec->threads.behind) {
			pthread_cond_wait(&rec->threads.freed,
					  &rec->threads.lock);
			continue;
		}
		pthread_mutex_unlock(&rec->threads.lock);
		full = ring_half_full(r);
		pthread_mutex_lock(&rec->threads.lock);
		if (full)
			rec->threads.behind = 1;
		else
			wait_check(rec);
	}
	r->held++;
	c = rec->threads.free;
	if (c)
		rec->threads.free = c->next;
	else
		rec->threads.allocated += rec->setup.chunk_size;
	pthread_mutex_unlock(&rec->threads.lock);
	if (!c)
		c = xmalloc(sizeof(*c) + rec->setup.chunk_size);
	c->next = NULL;
	c->r = r;
	c->len = 0;
	return c;
}

static void put_chunk(struct record *rec, struct chunk *c)
{
	pthread_mutex_lock(&rec->threads.lock);
	c->r->held--;
	c->next = rec->threads.free;
	rec->threads.free = c;
	/* Readers wait on one condition, each for a chunk of its own. */
	pthread_cond_broadcast(&rec->threads.freed);
	pthread_mutex_unlock(&rec->threads.lock);
}

static void queue_chunk(struct record *rec, struct chunk *c)
{
	pthread_mutex_lock(&rec->threads.lock);
	*rec->threads.tail = c;
	rec->threads.tail = &c->next;
	pthread_cond_signal(&rec->threads.queued);
	pthread_mutex_unlock(&rec->threads.lock);
}

/*
 * Until there may be pages to read; 1 when told to stop.  -s USEC
 * sleeps that long between reads, as trace-cmd's recorders do
 * (tracecmd_start_recording()); else poll() wakes the reader when the
 * kernel's buffer_percent of the buffer is full, or after a second.
 */
static int idle_wait(struct cpu_reader *r)
{
	struct record *rec = r->rec;
	struct pollfd pfd[2] = {
		{ .fd = rec->threads.stop_fd, .events = POLLIN },
		{ .fd = r->fd, .events = POLLIN },
	};
	int us = rec->o->sleep_us;
	struct timespec ts = { us / 1000000, us % 1000000 * 1000L };

	if (us > 0)
		return ppoll(pfd, 1, &ts, NULL) > 0;
	return poll(pfd, 2, 1000) > 0 && (pfd[0].revents & POLLIN);
}

/*
 * Pages that are surely full.  A page holds at most psize bytes of
 * events, so with more than n * psize bytes unread the events span more
 * than n pages, and the first n are not the one being written.  Reading
 * that one while tracing would copy its events out, and the next read
 * the few written since: the reader would chase the writer, page after
 * mostly empty page.  Unknown: all there is.
 */
static size_t full_pages(struct cpu_reader *r)
{
	int64_t bytes = unread_bytes(r);

	return bytes < 0 ? SIZE_MAX : (size_t)bytes / r->rec->setup.psize;
}

static int live_pages(struct record *rec, struct cpu_reader *r,
		      const void *buf, size_t len)
{
	const struct record_live *live = rec->o->live;
	struct strbuf err = STRBUF_INIT;
	int ret = live->pages(live->data, (int)(r - rec->setup.cpus), buf, len,
			      &err);

	if (ret) {
		record_error(rec, "%s", err.buf);
		set_err(rec, ret);
	}
	strbuf_release(&err);
	return ret;
}

/*
 * Up to max pages into chunks, many a readv(): each of its buffers is
 * one read() of trace_pipe_raw, which hands out a whole page.  A full
 * page is swapped out of the ring buffer and copied once.  splice()
 * into a pipe cost a page allocated and cleared per page (Debian's
 * kernel clears every page it allocates) and a copy out of the pipe:
 * 1.2M events of dd, median of 6 runs in the guest with one CPU, 1.31 s
 * of CPU then, 1.19 s now; on the host 175 -> 167 ms, 19,000 syscalls
 * -> 2,250.  Returns pages read, or -errno; fewer than max when the
 * ring buffer is empty.
 */
static long read_pages(struct cpu_reader *r, struct chunk **cp, size_t max)
{
	struct record *rec = r->rec;
	struct iovec iov[CHUNK_PAGES];
	size_t done = 0;

	while (done < max) {
		struct chunk *c = *cp;
		size_t k = (rec->setup.chunk_size - c->len) /
			   rec->setup.psize;
		size_t i;
		ssize_t n;

		if (k > CHUNK_PAGES)
			k = CHUNK_PAGES;
		if (k > max - done)
			k = max - done;
		for (i = 0; i < k; i++) {
			iov[i].iov_base = c->data + c->len +
					  i * rec->setup.psize;
			iov[i].iov_len = rec->setup.psize;
		}
		n = readv(r->fd, iov, (int)k);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		if (n <= 0)
			break;
		/*
		 * Whole pages only: readers of the file walk it page by page.
		 */
		if (n % rec->setup.psize) {
			size_t pad = rec->setup.psize - n % rec->setup.psize;

			memset(c->data + c->len + n, 0, pad);
			n += pad;
		}
		record_ksyms_scan(rec, c->data + c->len, n);
		done += n / rec->setup.psize;
		__atomic_add_fetch(&r->bytes_in, n, __ATOMIC_RELAXED);
		if (rec->o->live) {
			int ret = live_pages(rec, r, c->data + c->len, n);

			if (ret)
				return ret;
		}
		/* No file: the pages were the live view's alone. */
		if (rec->out.fd >= 0)
			c->len += n;
		if (c->len == rec->setup.chunk_size) {
			queue_chunk(rec, c);
			*cp = get_chunk(rec, r);
		}
		if ((size_t)n < k * rec->setup.psize)
			break;
	}
	return done;
}

/* Once told to stop, tracing is off: the page being written is read too. */
static void *reader_main(void *arg)
{
	struct cpu_reader *r = arg;
	struct record *rec = r->rec;
	struct chunk *c = get_chunk(rec, r);

	for (;;) {
		int stop = idle_wait(r);
		long n = read_pages(r, &c, stop ? SIZE_MAX : full_pages(r));

		if (n < 0) {
			record_error(rec, "cpu%d/trace_pipe_raw: %s", r->cpu, strerror((int)-n));
			set_err(rec, (int)n);
			break;
		}
		if (stop)
			break;
	}
	if (c->len)
		queue_chunk(rec, c);
	else
		put_chunk(rec, c);
	return NULL;
}

/*
 * -m: trace-cmd's recorder keeps the last max_kb of a CPU in two files
 * of half that size each (trace-recorder.c, max_kb), writing to one
 * until it is full, then emptying the other and writing there.  The
 * halves here count ring-buffer bytes, compressed in the file.
 */
static int rotate_scratch(struct record *rec, struct cpu_reader *r)
{
	int fd = r->comp.scratch_old;

	if (fd < 0)
		fd = record_open_scratch(rec, rec->out.path);
	else if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	if (fd < 0)
		return fd;
	r->comp.scratch_old = r->comp.scratch;
	r->comp.old_size = r->comp.scratch_size;
	r->comp.old_chunks = r->comp.nr_chunks;
	r->comp.scratch = fd;
	r->comp.scratch_size = 0;
	r->comp.nr_chunks = 0;
	r->comp.cur_in = 0;
	return 0;
}

static void *compressor_main(void *arg)
{
	struct record *rec = arg;
	struct strbuf out = STRBUF_INIT;
	struct tracedat_chunker *z = NULL;
	int failed = 0, ret;

	ret = tracedat_chunker_new(rec->o->zlevel, &z);
	if (ret) {
		set_err(rec, ret);
		failed = 1;
	}
	for (;;) {
		struct chunk *c;
		struct cpu_reader *r;

		pthread_mutex_lock(&rec->threads.lock);
		while (!rec->threads.head && !rec->threads.closed)
			pthread_cond_wait(&rec->threads.queued,
					  &rec->threads.lock);
		c = rec->threads.head;
		if (c) {
			rec->threads.head = c->next;
			if (!rec->threads.head)
				rec->threads.tail = &rec->threads.head;
		}
		pthread_mutex_unlock(&rec->threads.lock);
		if (!c)
			break;
		r = c->r;
		if (!failed && rec->o->max_kb &&
		    r->comp.cur_in + c->len > rec->o->max_kb * 1024 / 2 &&
		    r->comp.cur_in) {
			ret = rotate_scratch(rec, r);
			if (ret) {
				record_error(rec, "%s: scratch file: %s",
					     rec->out.dir, strerror(-ret));
				set_err(rec, ret);
				failed = 1;
			}
		}
		if (!failed) {
			r->comp.cur_in += c->len;
			strbuf_reset(&out);
			ret = tracedat_chunk_encode(z, c->data, c->len, &out);
			if (!ret)
				ret = write_in_full(r->comp.scratch, out.buf,
						    out.len);
			if (ret) {
				record_error(rec, "%s: write failed: %s",
					     rec->out.path, strerror(-ret));
				set_err(rec, ret);
				failed = 1;
			} else {
				r->comp.scratch_size += out.len;
				r->comp.nr_chunks++;
				__atomic_add_fetch(&r->comp.bytes_out, out.len,
						   __ATOMIC_RELAXED);
			}
		}
		put_chunk(rec, c);
	}
	tracedat_chunker_free(z);
	strbuf_release(&out);
	return NULL;
}

int record_open_readers(struct record *rec)
{
	int i, ret;

	for (i = 0; i < rec->setup.nr_cpus; i++) {
		struct cpu_reader *r = &rec->setup.cpus[i];
		struct strbuf file = STRBUF_INIT, path = STRBUF_INIT;

		strbuf_addf(&file, "per_cpu/cpu%d/trace_pipe_raw", r->cpu);
		tk_tracefs_path(&path, rec->setup.inst, file.buf);
		r->fd = open(path.buf, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ret = r->fd < 0 ? -errno : 0;
		if (!ret) {
			strbuf_reset(&file);
			strbuf_reset(&path);
			strbuf_addf(&file, "per_cpu/cpu%d/stats", r->cpu);
			tk_tracefs_path(&path, rec->setup.inst, file.buf);
			r->stats_fd = open(path.buf, O_RDONLY | O_CLOEXEC);
			ret = r->stats_fd < 0 ? -errno : 0;
		}
		if (ret)
			record_error(rec, "%s: %s", path.buf, strerror(-ret));
		strbuf_release(&path);
		strbuf_release(&file);
		if (ret)
			return ret;
		record_read_stats(r, &r->base, NULL);
		r->ring_bytes = record_ring_kb(rec, r->cpu) * 1024;
		if (rec->out.fd < 0)
			continue;
		r->comp.scratch = record_open_scratch(rec, rec->out.path);
		if (r->comp.scratch < 0) {
			record_error(rec, "%s: scratch file: %s", rec->out.dir,
				     strerror(-r->comp.scratch));
			return r->comp.scratch;
		}
	}
	return 0;
}

/*
 * The live view's reads: all there is, the page being written too.  A
 * reader thread would wait for full pages; here the wait is the caller's
 * period, so that an event is seen within it however few come.
 */
int record_live_read(struct record *rec, int last)
{
	const struct record_live *live = rec->o->live;
	struct strbuf err = STRBUF_INIT;
	int i, ret = 0;

	for (i = 0; i < rec->setup.nr_cpus && !ret; i++) {
		struct cpu_reader *r = &rec->setup.cpus[i];
		long n;

		if (!r->live)
			r->live = get_chunk(rec, r);
		n = read_pages(r, &r->live, SIZE_MAX);
		if (n < 0 && !rec->threads.err)
			record_error(rec, "cpu%d/trace_pipe_raw: %s", r->cpu,
				     strerror((int)-n));
		if (n < 0)
			ret = (int)n;
	}
	if (!ret) {
		ret = live->round(live->data, last, &err);
		if (ret)
			record_error(rec, "%s", err.buf);
	}
	if (ret)
		set_err(rec, ret);
	for (i = 0; last && i < rec->setup.nr_cpus; i++) {
		struct cpu_reader *r = &rec->setup.cpus[i];

		if (r->live && r->live->len)
			queue_chunk(rec, r->live);
		else if (r->live)
			put_chunk(rec, r->live);
		r->live = NULL;
	}
	strbuf_release(&err);
	return ret;
}

int record_start_threads(struct record *rec)
{
	int i, ret;

	if (rec->o->live) {
		if (rec->out.fd < 0)
			return 0;
		ret = pthread_create(&rec->threads.compressor, NULL,
				     compressor_main, rec);
		if (ret)
			return -ret;
		rec->threads.compressor_started = 1;
		return 0;
	}
	ret = pthread_create(&rec->threads.compressor, NULL, compressor_main,
			     rec);
	if (ret)
		return -ret;
	rec->threads.compressor_started = 1;
	for (i = 0; i < rec->setup.nr_cpus; i++) {
		ret = pthread_create(&rec->setup.cpus[i].thread, NULL,
				     reader_main, &rec->setup.cpus[i]);
		if (ret)
			return -ret;
		rec->setup.cpus[i].started = 1;
	}
	return 0;
}

void record_stop_threads(struct record *rec)
{
	int i;

	eventfd_write(rec->threads.stop_fd, 1);
	for (i = 0; i < rec->setup.nr_cpus; i++)
		if (rec->setup.cpus[i].started) {
			pthread_join(rec->setup.cpus[i].thread, NULL);
			rec->setup.cpus[i].started = 0;
		}
	if (rec->threads.compressor_started) {
		pthread_mutex_lock(&rec->threads.lock);
		rec->threads.closed = 1;
		pthread_cond_broadcast(&rec->threads.queued);
		pthread_mutex_unlock(&rec->threads.lock);
		pthread_join(rec->threads.compressor, NULL);
		rec->threads.compressor_started = 0;
	}
}

int record_join_scratch(struct record *rec)
{
	int i;

	for (i = 0; i < rec->setup.nr_cpus; i++) {
		struct cpu_reader *r = &rec->setup.cpus[i];
		loff_t in = 0, out = r->comp.old_size;
		uint64_t left = r->comp.scratch_size;
		ssize_t n;

		if (r->comp.scratch_old < 0)
			continue;
		for (; left; left -= n) {
			n = copy_file_range(r->comp.scratch, &in,
					    r->comp.scratch_old, &out, left, 0);
			if (n <= 0) {
				record_error(rec, "%s: scratch file: %s",
					     rec->out.dir, n ? strerror(errno) :
					     "short copy");
				return n ? -errno : -EIO;
			}
		}
		close(r->comp.scratch);
		r->comp.scratch = r->comp.scratch_old;
		r->comp.scratch_old = -1;
		r->comp.scratch_size += r->comp.old_size;
		r->comp.nr_chunks += r->comp.old_chunks;
	}
	return 0;
}

/* An instance cannot be removed while its files are open. */
void record_close_readers(struct record *rec)
{
	int i;

	for (i = 0; i < rec->setup.nr_cpus; i++) {
		struct cpu_reader *r = &rec->setup.cpus[i];

		if (r->fd >= 0)
			close(r->fd);
		if (r->stats_fd >= 0)
			close(r->stats_fd);
		r->fd = r->stats_fd = -1;
	}
}
