/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Between the two halves of xcp -r: tree.c (the walk, directories, links,
 * special files, the roots and reports) and tree_file.c (regular files and
 * the attributes of every entry). Not for xcp's other files: xcp.h has the
 * tree's interface.
 */
#ifndef XCP_TREE_H
#define XCP_TREE_H

#include <stdbool.h>
#include <sys/stat.h>

#include "xcp.h"

/* A new entry of type ('f', 'd', 'l', 's') at t->path; NULL when out of memory. */
struct xcp_tree_entry *xcp_tree_add(struct xcp_tree *t, char type);
/* The entry at t->path failed: counted, kept for the report, one line on t->err. */
void xcp_tree_fail(struct xcp_tree *t, struct xcp_tree_entry *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A line about the entry at t->path that is not a failure. */
void xcp_tree_note(struct xcp_tree *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The regular file sname of sdir (lstat: lst) as dname of ddir (tree_file.c). */
void xcp_tree_copy_file(struct xcp_tree *t, int sdir, int ddir, const char *sname,
			const char *dname, const struct stat *lst);
/*
 * Owner (when kept), mode, ACL (src >= 0: the source, open), times of the
 * open copy fd. Set-id bits only when the copy has the source's owner and
 * group; the source's extended ACL or, where it cannot be set, no group bits.
 */
void xcp_tree_set_attrs(struct xcp_tree *t, struct xcp_tree_entry *e, int fd, int src,
			const struct stat *st);
/* Has name in dfd (not followed) an ACL beyond its mode? 1 also when it cannot be told. */
int xcp_tree_acl_at(int dfd, const char *name);
/* The same for name in dfd, not opened (a symlink, a special file; no ACL copied). */
void xcp_tree_set_attrs_at(struct xcp_tree *t, struct xcp_tree_entry *e, int dfd,
			   const char *name, const struct stat *st, bool is_link);

#endif /* XCP_TREE_H */
