/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/store/rbd/rbd_rule.c: when whole objects may go by RADOS copy-from between two
 * RBD images (docs/target-rbd.md, "RBD: when copy-from is safe"). Each case
 * starts from two plain images whose lock is ours and changes one fact.
 */
#include <string.h>

#include "store/rbd/rbd_image.h"
#include "ut.h"

static void
image(struct xt_rbd_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->copy_from = 1;
	f->geom_known = 1;
	f->geom.order = 22;
	f->geom.object_size = 1u << 22;
	f->geom.stripe_unit = 1u << 22;
	f->geom.stripe_count = 1;
	f->watchers_known = 1;
	f->lock = XT_RBD_LOCK_OURS;
}

static enum xt_rbd_unsafe
rule(const struct xt_rbd_facts *s, const struct xt_rbd_facts *d)
{
	return xt_rbd_copy_rule(s, d, 1);
}

static void
rbd_rule_plain_images_are_safe(void)
{
	struct xt_rbd_facts s, d;

	image(&s);
	image(&d);
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_SAFE);
	/* no exclusive-lock feature and nobody else has it open: as before */
	s.lock = d.lock = XT_RBD_LOCK_NONE;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_SAFE);
}

static void
rbd_rule_layout(void)
{
	struct xt_rbd_facts s, d;

	image(&s);
	image(&d);
	CU_ASSERT_EQUAL(xt_rbd_copy_rule(&s, &d, 0), XT_RBD_UNSAFE_CLUSTER);
	d.copy_from = 0;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_DISABLED);
	image(&d);
	d.geom.order = 23;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_ORDER);
	image(&d);
	d.geom.stripe_count = 2;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_STRIPING);
	image(&d);
	s.geom.stripe_unit = 1u << 20;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_STRIPING);
	image(&s);
	d.journaling = 1;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_JOURNAL);
	s.journaling = 1;   /* a journaled source is read, not written: fine */
	d.journaling = 0;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_SAFE);
	image(&s);
	s.geom.has_parent = 1;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_PARENT);
	image(&s);
	d.geom.has_parent = 1;   /* a clone as destination: whole objects written */
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_SAFE);
	image(&d);
	d.geom.snap_count = 1;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_DST_SNAPS);
	image(&d);
	s.geom.snap_count = 3;   /* source snapshots: the head is read */
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_SAFE);
	s.geom_known = 0;        /* cannot tell what the image is now */
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_WATCHERS);
}

/* A standby gateway has the image open; the lock decides. */
static void
rbd_rule_standby_gateway_with_our_lock(void)
{
	struct xt_rbd_facts s, d;

	image(&s);
	image(&d);
	s.foreign_watchers = 1;
	d.foreign_watchers = 2;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_SAFE);
	CU_ASSERT_EQUAL(xt_rbd_image_rule(&d), XT_RBD_SAFE);
	/* ... but not when the lock is free (we never take it from under a watcher) */
	d.lock = XT_RBD_LOCK_FREE;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_WATCHERS);
	/* ... nor without the exclusive-lock feature: any client may write */
	d.lock = XT_RBD_LOCK_NONE;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_WATCHERS);
	s.lock = XT_RBD_LOCK_NONE;
	d.lock = XT_RBD_LOCK_OURS;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_WATCHERS);
}

static void
rbd_rule_lock_elsewhere_or_unknown(void)
{
	struct xt_rbd_facts s, d;

	image(&s);
	image(&d);
	d.lock = XT_RBD_LOCK_OTHER;   /* the active gateway is another client */
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_LOCK);
	d.foreign_watchers = 1;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_LOCK);
	image(&d);
	s.lock = XT_RBD_LOCK_UNKNOWN;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_LOCK);
	image(&s);
	d.watchers_known = 0;         /* rbd_watchers_list failed */
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_WATCHERS);
	/* a free lock nobody else watches is taken by the caller first: until then, no */
	image(&d);
	d.lock = XT_RBD_LOCK_FREE;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_LOCK);
}

/*
 * The source is only read: its lock is never taken (a source pinned in
 * explicit mode refused every other client the lock until the LU closed).
 */
static void
rbd_rule_source_needs_no_lock(void)
{
	struct xt_rbd_facts s, d;

	image(&s);
	image(&d);
	s.lock = XT_RBD_LOCK_FREE;     /* nobody else has it open */
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_SAFE);
	CU_ASSERT_EQUAL(xt_rbd_source_rule(&s), XT_RBD_SAFE);
	CU_ASSERT_EQUAL(xt_rbd_image_rule(&s), XT_RBD_UNSAFE_LOCK);   /* as a destination: taken first */
	s.foreign_watchers = 1;        /* a free lock under another client: it may write unseen */
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_WATCHERS);
	s.lock = XT_RBD_LOCK_OTHER;    /* another client's, with its cache */
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_LOCK);
	s.lock = XT_RBD_LOCK_OURS;     /* ours (automatic mode): a standby watches */
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_SAFE);
	s.watchers_known = 0;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_WATCHERS);
}

/*
 * Fencing: a lock of ours guards a copy-from only if whoever breaks it
 * blocklists us (rbd_blocklist_on_break_lock, read from our own config).
 */
static void
rbd_rule_fencing(void)
{
	struct xt_rbd_facts s, d;

	image(&s);
	image(&d);
	d.no_fencing = 1;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_FENCING);
	CU_ASSERT_EQUAL(xt_rbd_image_rule(&d), XT_RBD_UNSAFE_FENCING);   /* ROD tokens too */
	d.foreign_watchers = 1;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_UNSAFE_FENCING);
	image(&d);
	d.lock = XT_RBD_LOCK_NONE;     /* no lock feature: no lock is relied on */
	d.no_fencing = 1;
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_SAFE);
	image(&d);
	s.no_fencing = 1;              /* the source is not written */
	CU_ASSERT_EQUAL(rule(&s, &d), XT_RBD_SAFE);
	CU_ASSERT_STRING_EQUAL(xt_rbd_unsafe_name(XT_RBD_UNSAFE_FENCING),
			       "rbd_blocklist_on_break_lock is false");
}

static void
rbd_rule_names(void)
{
	CU_ASSERT_STRING_EQUAL(xt_rbd_unsafe_name(XT_RBD_UNSAFE_WATCHERS),
			       "image open by another client");
	CU_ASSERT_STRING_EQUAL(xt_rbd_unsafe_name(XT_RBD_UNSAFE_MAX), "?");
}

static CU_TestInfo g_tests[] = {
	{ "plain_images_are_safe", rbd_rule_plain_images_are_safe },
	{ "layout", rbd_rule_layout },
	{ "standby_gateway_with_our_lock", rbd_rule_standby_gateway_with_our_lock },
	{ "lock_elsewhere_or_unknown", rbd_rule_lock_elsewhere_or_unknown },
	{ "source_needs_no_lock", rbd_rule_source_needs_no_lock },
	{ "fencing", rbd_rule_fencing },
	{ "names", rbd_rule_names },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_rbd_rule, g_tests)
