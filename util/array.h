/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_ARRAY_H
#define TK_ARRAY_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "util/usage.h"

/*
 * Makes room for element nr of the array v of alloc elements, nr being
 * at most alloc: when v is full, doubles alloc (to first when nothing is
 * allocated yet) and reallocates v, dying if memory runs out.  After it,
 * nr < alloc.  v and alloc, which it assigns, are evaluated more than
 * once; nr and first once.
 */
#define grow_array(v, nr, alloc, first) do {				\
	if ((nr) >= (alloc)) {						\
		(alloc) = (alloc) ? 2 * (alloc) : (first);		\
		(v) = xreallocarray((v), (alloc), sizeof(*(v)));	\
	}								\
} while (0)

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

/*
 * The index of the first of the nr elements of v, sorted by strcmp() of
 * their const char * member field, whose field does not sort before key
 * (nr when none): where a run of equal names starts.
 */
#define lower_bound_by_name(v, nr, field, key)                                 \
	name_lower_bound((v), (nr), sizeof(*(v)),                              \
			 offsetof(__typeof__(*(v)), field), (key))

static inline size_t name_lower_bound(const void *v, size_t nr, size_t size,
				      size_t off, const char *key)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *elem = (const char *)v + mid * size;
		const char *name = *(const char *const *)(elem + off);

		if (strcmp(name, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
