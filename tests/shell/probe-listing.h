/* SPDX-License-Identifier: GPL-2.0 */
/* probe-listing.c's header: an inline function both source files use. */
static inline int clamp_to(int v, int lo, int hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}
