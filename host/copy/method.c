/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one place a copy's method is chosen (xch_copy_method), with the
 * checks it rests on: whether a handle's offload or tokens were turned off,
 * what blocks EXTENDED COPY or tokens between two handles. Every copy of LBA
 * pairs asks here through xch_copy_pairs (copy_pairs.c): device copies
 * (dev_copy.c), file copies (file/), and each group of runs a mapped
 * volume's copy cuts. The methods:
 *   map     a mapped volume on a side (and no host-only handle): the pairs
 *           cut at its pieces, each group of runs between the handles under
 *           it copied by the method chosen for them (copy_pairs.c);
 *   tokens  ROD tokens, asked for (XCOPY_USE_TOKENS) or where both handles
 *           offer them and EXTENDED COPY is not offered or off (token_copy.c);
 *   lid1    EXTENDED COPY LID1 (lid1_copy.c);
 *   host    nothing can be tried (the caller's XCOPY_NO_OFFLOAD, a handle
 *           that takes no commands, offload off on both handles of two LUs
 *           or on the handle of one, block sizes, CSCD limits, no tokens
 *           where they were asked for): every pair goes to the caller's
 *           fallback, with the reason.
 * What a handle is only enters through its kind's reach (xch_device.h).
 */
#include <errno.h>

#include "base/xch_base.h"
#include "xch_copy.h"

/*
 * A handle may be shared by calls running at once (file_dev.c's cache): a
 * verdict's change to it (disabled, one segment per command) is stored
 * atomically, the reason before the flag, and read back the same way.
 */
bool
xch_dev_off(const struct xcopy_dev *d, enum xcopy_fallback_reason *why)
{
	if (!__atomic_load_n(&d->disabled, __ATOMIC_ACQUIRE)) {
		return false;
	}
	*why = __atomic_load_n(&d->disabled_why, __ATOMIC_RELAXED);
	return true;
}

bool
xch_cm_usable(const struct xcopy_dev *d, uint32_t ncscd, enum xcopy_fallback_reason *why)
{
	if (xch_dev_off(d, why)) {
		return false;
	}
	if (d->caps.max_cscd < ncscd) {
		*why = XCOPY_FB_INVALID_PARAM;
		return false;
	}
	*why = XCOPY_FB_NONE;
	return true;
}

/* A LU a CSCD can name whatever copy manager receives the command: a SCSI LU with a designator. */
static bool
nameable(const struct xcopy_dev *d)
{
	return d->kind->reach == XCH_REACH_CMDS && d->caps.desig_len != 0;
}

/*
 * Two LUs that CSCDs can name may be LUs of different targets: the copy
 * manager of either may do the copy (lid1_copy.c tries the destination's,
 * then the source's), so offload is blocked only when neither can take the
 * command. One LU, or a side no CSCD can name: both must offload.
 */
enum xcopy_fallback_reason
xch_offload_blocker(const struct xcopy_dev *src, const struct xcopy_dev *dst)
{
	enum xcopy_fallback_reason why;
	bool same = xch_same_lu(src, dst);

	if (!same && nameable(src) && nameable(dst) &&
	    (xch_cm_usable(dst, 2, &why) || xch_cm_usable(src, 2, &why))) {
		return src->caps.block_size != dst->caps.block_size ? XCOPY_FB_BLOCK_SIZE
								    : XCOPY_FB_NONE;
	}
	if (xch_dev_off(src, &why) || xch_dev_off(dst, &why)) {
		return why;
	}
	if (src->caps.block_size != dst->caps.block_size) {
		return XCOPY_FB_BLOCK_SIZE;
	}
	if (!same && (src->caps.max_cscd < 2 || dst->caps.max_cscd < 2)) {
		return XCOPY_FB_INVALID_PARAM;
	}
	return XCOPY_FB_NONE;
}

/*
 * Tokens turned off on a handle by a verdict (sticky): calls sharing the
 * handle (file_dev.c's cache) read it while another may set it, so the
 * reason is stored before the flag and both are accessed atomically.
 */
bool
xch_tok_off(const struct xcopy_dev *d, enum xcopy_fallback_reason *why)
{
	if (!__atomic_load_n(&d->tok.disabled, __ATOMIC_ACQUIRE)) {
		return false;
	}
	*why = __atomic_load_n(&d->tok.disabled_why, __ATOMIC_RELAXED);
	return true;
}

bool
xch_use_tokens(const struct xcopy_dev *src, const struct xcopy_dev *dst, unsigned flags)
{
	enum xcopy_fallback_reason why;

	if (flags & (XCOPY_NO_OFFLOAD | XCOPY_USE_LID1)) {
		return false;
	}
	if (flags & XCOPY_USE_TOKENS) {
		return true;
	}
	/* automatic: tokens where both offer them and EXTENDED COPY is not offered (or off) */
	return src->tok.offered && dst->tok.offered && !xch_tok_off(src, &why) && !xch_tok_off(dst, &why) &&
	       (!src->tok.lid1 || !dst->tok.lid1 || __atomic_load_n(&src->disabled, __ATOMIC_ACQUIRE) ||
		__atomic_load_n(&dst->disabled, __ATOMIC_ACQUIRE));
}

enum xcopy_fallback_reason
xch_tok_blocker(const struct xcopy_dev *src, const struct xcopy_dev *dst, unsigned flags)
{
	enum xcopy_fallback_reason why;

	if (flags & XCOPY_NO_OFFLOAD) {
		return XCOPY_FB_REQUESTED;
	}
	if (!src->tok.offered || !dst->tok.offered) {
		return XCOPY_FB_NO_TOKENS;
	}
	if (xch_tok_off(src, &why) || xch_tok_off(dst, &why)) {
		return why;
	}
	if (src->caps.block_size != dst->caps.block_size || src->caps.block_size == 0) {
		return XCOPY_FB_BLOCK_SIZE;
	}
	return XCOPY_FB_NONE;
}

static bool
reached_by(const struct xcopy_dev *d, enum xch_reach r)
{
	return d->kind->reach == r;
}

enum xch_method
xch_copy_method(const struct xcopy_dev *src, const struct xcopy_dev *dst, unsigned flags,
		enum xcopy_fallback_reason *why)
{
	bool tokens;

	*why = XCOPY_FB_NONE;
	if ((reached_by(src, XCH_REACH_MAP) || reached_by(dst, XCH_REACH_MAP)) &&
	    !reached_by(src, XCH_REACH_HOST) && !reached_by(dst, XCH_REACH_HOST)) {
		return XCH_METHOD_MAP;
	}
	tokens = xch_use_tokens(src, dst, flags);
	if (tokens) {
		*why = xch_tok_blocker(src, dst, flags);
	} else {
		*why = (flags & XCOPY_NO_OFFLOAD) ? XCOPY_FB_REQUESTED : xch_offload_blocker(src, dst);
	}
	if (*why != XCOPY_FB_NONE) {
		return XCH_METHOD_HOST;
	}
	return tokens ? XCH_METHOD_TOKENS : XCH_METHOD_LID1;
}
