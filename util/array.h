/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_ARRAY_H
#define TK_ARRAY_H

#include <stddef.h>
#include <stdlib.h>

/*
 * Releases each of the nr elements of the array v with release (which
 * takes a pointer to one element), then frees v: the one loop behind
 * every foo_release() of a list of owned elements.
 */
#define release_array(v, nr, release) do {			\
	size_t release_i_;					\
								\
	for (release_i_ = 0; release_i_ < (size_t)(nr); release_i_++) \
		release(&(v)[release_i_]);			\
	free(v);						\
} while (0)

/* For release_array() over an array of pointers each owning its block. */
static inline void free_ptr(void *pp)
{
	free(*(void **)pp);
}

#endif
