/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_TRACEFS_INT_H
#define TK_TRACEFS_INT_H

/*
 * What util/tracefs.c and the registry that undoes its changes
 * (util/tracefs-restore.c) share, and nobody else.
 */
struct tracefs_instance;

/* -errno after a libtracefs call failed, -EIO where it left errno 0. */
int tk_tracefs_neg_errno(void);

/* The handle of instance NAME (NULL: the top level); 0 or -errno. */
int tk_tracefs_instance(const char *name, struct tracefs_instance **inst);

#endif
