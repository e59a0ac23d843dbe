// SPDX-License-Identifier: GPL-2.0
/*
 * KernelShark's own loader (libkshark, KernelShark 2.2.1) on a trace.dat:
 * prints what it found as
 *   cpus N
 *   cpu C ENTRIES          for each CPU
 *   task PID COMM          for each task with entries
 *   info TEXT              with SYSTEM/EVENT: the info of its entries
 * for kshark-load.sh to compare with tracekit report.  Exit 1 when the
 * file does not open or load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libkshark.h>

int main(int argc, char **argv)
{
	struct kshark_context *ctx = NULL;
	struct kshark_entry **rows = NULL;
	struct kshark_data_stream *stream;
	long long *per_cpu;
	ssize_t n, i, nr_pids;
	int sd, *pids = NULL, ret = 1;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: kshark-load FILE [SYSTEM/EVENT]\n");
		return 2;
	}
	if (!kshark_instance(&ctx))
		return 1;
	sd = kshark_open(ctx, argv[1]);
	if (sd < 0) {
		fprintf(stderr, "kshark_open %s: %d\n", argv[1], sd);
		goto out;
	}
	stream = kshark_get_data_stream(ctx, sd);
	n = kshark_load_entries(ctx, sd, &rows);
	if (!stream || n < 0) {
		fprintf(stderr, "kshark_load_entries %s: %zd\n", argv[1], n);
		goto out;
	}
	per_cpu = calloc(stream->n_cpus ? stream->n_cpus : 1, sizeof(*per_cpu));
	if (!per_cpu)
		goto out;
	printf("cpus %d\n", stream->n_cpus);
	for (i = 0; i < n; i++) {
		char *name = argc == 3 ? kshark_get_event_name(rows[i]) : NULL;

		if (rows[i]->cpu >= 0 && rows[i]->cpu < stream->n_cpus)
			per_cpu[rows[i]->cpu]++;
		if (name && !strcmp(name, argv[2])) {
			char *info = kshark_get_info(rows[i]);

			printf("info %s\n", info ? info : "(null)");
			free(info);
		}
		free(name);
		free(rows[i]);
	}
	for (i = 0; i < stream->n_cpus; i++)
		printf("cpu %zd %lld\n", i, per_cpu[i]);
	nr_pids = kshark_get_task_pids(ctx, sd, &pids);
	for (i = 0; i < nr_pids; i++) {
		char *comm = kshark_comm_from_pid(sd, pids[i]);

		printf("task %d %s\n", pids[i], comm ? comm : "(null)");
		free(comm);
	}
	free(per_cpu);
	ret = 0;
out:
	free(pids);
	free(rows);
	kshark_close_all(ctx);
	kshark_free(ctx);
	return ret;
}
