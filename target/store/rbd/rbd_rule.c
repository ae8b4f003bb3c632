/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * When may whole objects go by RADOS copy-from? The rule alone, on facts
 * rbd_copy.c gathers from librbd (docs/target-rbd.md, "RBD: when copy-from is
 * safe"): no librbd here, so the unit tests run it on made-up images.
 */
#include "rbd_image.h"

static const char *const unsafe_names[XT_RBD_UNSAFE_MAX] = {
	[XT_RBD_SAFE] = "safe",
	[XT_RBD_UNSAFE_DISABLED] = "copyfrom=never",
	[XT_RBD_UNSAFE_CLUSTER] = "different clusters",
	[XT_RBD_UNSAFE_ORDER] = "different object sizes",
	[XT_RBD_UNSAFE_ALIGN] = "offsets not object-aligned alike",
	[XT_RBD_UNSAFE_STRIPING] = "fancy striping",
	[XT_RBD_UNSAFE_JOURNAL] = "destination journaling",
	[XT_RBD_UNSAFE_PARENT] = "source is a clone",
	[XT_RBD_UNSAFE_DST_SNAPS] = "destination has snapshots",
	[XT_RBD_UNSAFE_LOCK] = "exclusive lock held elsewhere",
	[XT_RBD_UNSAFE_WATCHERS] = "image open by another client",
	[XT_RBD_UNSAFE_FENCING] = "rbd_blocklist_on_break_lock is false",
};

const char *
xt_rbd_unsafe_name(enum xt_rbd_unsafe u)
{
	return (unsigned)u < XT_RBD_UNSAFE_MAX ? unsafe_names[u] : "?";
}

/*
 * The image's clients: this LU may write it by copy-from while no other
 * client can write it unseen. Another client that has it open (a standby
 * gateway) is fine when the image has the exclusive-lock feature and the
 * lock is ours: librbd will not write without the lock, we hold it in
 * explicit mode (not given up on request), and a client that takes it by
 * force blocklists us first, which fences our in-flight operations. That
 * last step is the breaking client's rbd_blocklist_on_break_lock (default
 * true): we can read only ours, and take it as the deployment's: false
 * here, no lock of ours is trusted to fence (docs/target-rbd.md, "Standby
 * gateways").
 */
enum xt_rbd_unsafe
xt_rbd_image_rule(const struct xt_rbd_facts *f)
{
	if (f->lock == XT_RBD_LOCK_OTHER || f->lock == XT_RBD_LOCK_UNKNOWN) {
		return XT_RBD_UNSAFE_LOCK;
	}
	if (f->no_fencing && f->lock != XT_RBD_LOCK_NONE) {
		return XT_RBD_UNSAFE_FENCING;
	}
	if (!f->watchers_known) {
		return XT_RBD_UNSAFE_WATCHERS;
	}
	if (f->foreign_watchers > 0 && f->lock != XT_RBD_LOCK_OURS) {
		return XT_RBD_UNSAFE_WATCHERS;
	}
	if (f->lock == XT_RBD_LOCK_FREE) {
		return XT_RBD_UNSAFE_LOCK;   /* gathered, but not taken */
	}
	return XT_RBD_SAFE;
}

/*
 * The source of a copy-from is only read, at the OSD: what matters is that
 * no other client holds writes of it we cannot see (its cache, while it owns
 * the lock), as for the fallback's librbd reads. No lock of ours is taken:
 * a free lock with nobody else watching is fine, and another client that
 * writes it during the copy is a concurrent write to a copy's source.
 */
enum xt_rbd_unsafe
xt_rbd_source_rule(const struct xt_rbd_facts *f)
{
	if (f->lock == XT_RBD_LOCK_OTHER || f->lock == XT_RBD_LOCK_UNKNOWN) {
		return XT_RBD_UNSAFE_LOCK;
	}
	if (!f->watchers_known) {
		return XT_RBD_UNSAFE_WATCHERS;
	}
	if (f->foreign_watchers > 0 && f->lock != XT_RBD_LOCK_OURS) {
		return XT_RBD_UNSAFE_WATCHERS;
	}
	return XT_RBD_SAFE;
}

static int
plain_striping(const struct xt_rbd_geom *g)
{
	return g->stripe_unit == g->object_size && g->stripe_count == 1;
}

enum xt_rbd_unsafe
xt_rbd_copy_rule(const struct xt_rbd_facts *src, const struct xt_rbd_facts *dst,
		 int same_cluster)
{
	const struct xt_rbd_geom *s = &src->geom, *d = &dst->geom;
	enum xt_rbd_unsafe u;

	if (!src->copy_from || !dst->copy_from) {
		return XT_RBD_UNSAFE_DISABLED;
	}
	if (!same_cluster) {
		return XT_RBD_UNSAFE_CLUSTER;
	}
	if (!src->geom_known || !dst->geom_known) {
		return XT_RBD_UNSAFE_WATCHERS;   /* cannot tell what the image is now */
	}
	if (s->order != d->order) {
		return XT_RBD_UNSAFE_ORDER;
	}
	if (!plain_striping(s) || !plain_striping(d)) {
		return XT_RBD_UNSAFE_STRIPING;
	}
	if (dst->journaling) {
		return XT_RBD_UNSAFE_JOURNAL;
	}
	if (s->has_parent) {
		return XT_RBD_UNSAFE_PARENT;
	}
	if (d->snap_count > 0) {
		return XT_RBD_UNSAFE_DST_SNAPS;
	}
	u = xt_rbd_source_rule(src);
	return u != XT_RBD_SAFE ? u : xt_rbd_image_rule(dst);
}
