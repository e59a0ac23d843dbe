// SPDX-License-Identifier: GPL-2.0
/*
 * What an opened trace.dat says of itself, once tracedat_open() read
 * it: its path, info and texts, its buffers and their CPUs.
 */
#include "util/tracedat-read-int.h"

const char *tracedat_procmaps(const struct tracedat *td)
{
	return td->procmaps.buf;
}

const char *tracedat_build_ids(const struct tracedat *td)
{
	return td->build_ids.buf;
}

const char *tracedat_path(const struct tracedat *td)
{
	return td->path;
}

const struct tracedat_info *tracedat_info(const struct tracedat *td)
{
	return &td->info;
}

int tracedat_bad_formats(const struct tracedat *td,
			 const struct tracedat_bad_format **bad)
{
	*bad = td->bad;
	return td->nr_bad;
}

struct tep_handle *tracedat_tep(const struct tracedat *td)
{
	return td->tep;
}

int tracedat_nr_buffers(const struct tracedat *td)
{
	return td->nr_buffers;
}

const char *tracedat_buffer_name(const struct tracedat *td, int buffer)
{
	return td->buffers[buffer].name;
}

int tracedat_buffer_nr_cpus(const struct tracedat *td, int buffer)
{
	return td->buffers[buffer].nr_cpus;
}

int tracedat_buffer_cpu(const struct tracedat *td, int buffer, int idx)
{
	return td->buffers[buffer].cpus[idx].cpu;
}

uint64_t tracedat_buffer_data_size(const struct tracedat *td, int buffer)
{
	const struct td_buffer *b = &td->buffers[buffer];
	uint64_t sum = 0;
	int i;

	for (i = 0; i < b->nr_cpus; i++)
		sum += b->cpus[i].size;
	return sum;
}
