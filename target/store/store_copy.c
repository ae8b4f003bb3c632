/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EXTENDED COPY data movement between two LUs, by their stores (base/lu.h):
 * file to file through copy.c/parallel.c as always; two RBD LUs through the
 * RBD store's copy op (RADOS copy-from when safe, store_rbd.c); a file LU and
 * an RBD LU through the stores' own read and write in this process, one
 * bounce buffer (XT_BOUNCE_LEN) at a time. Nothing goes through the
 * initiator.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "fault/fault.h"
#include "store/file/store_file.h"
#include "store/rbd/store_rbd.h"
#include "store/store.h"

/* Is lu's store the backing file (file to file copies: copy.c, parallel.c)? */
static bool
xt_lu_is_file(const struct xcm_lu *lu)
{
	return lu->ops == &xt_store_file;
}

bool
xt_lu_clones(const struct xcm_lu *src, const struct xcm_lu *dst)
{
	return src->reflink && dst->reflink && xt_lu_is_file(src) && xt_lu_is_file(dst) &&
	       xt_file(src)->st_dev == xt_file(dst)->st_dev;
}

unsigned int
xt_lu_copy_pieces(const struct xcm_lu *src, const struct xcm_lu *dst)
{
	return xt_lu_is_file(src) && xt_lu_is_file(dst) ? XT_PAR_PIECES : 1;
}

/* n bytes of buf to dst; an injected short write (fault.c) is continued. */
static int
gw_write(struct xcm_lu *dst, uint64_t doff, uint8_t *buf, size_t n)
{
	struct iovec v;
	size_t off = 0, want;
	int rc;

	while (off < n) {
		want = n - off;
		rc = xt_fault_io(dst, true, &want);
		if (rc == 0 && want == 0) {
			rc = -EIO;
		}
		if (rc == 0) {
			v.iov_base = buf + off;
			v.iov_len = want;
			rc = dst->ops->io(dst, &v, 1, want, doff + off, true);
		}
		if (rc != 0) {
			return rc;
		}
		off += want;
	}
	return 0;
}

/* One bounce-sized piece: read src, write dst; fault hooks as copy.c's loop. */
static int
gw_piece(struct xcm_lu *src, uint64_t soff, struct xcm_lu *dst, uint64_t doff, size_t n,
	 uint8_t *buf, bool *at_dst)
{
	struct iovec v = { .iov_base = buf, .iov_len = n };
	size_t want = n;
	int rc;

	*at_dst = false;
	rc = xt_fault_io(src, false, &want);
	if (rc == 0) {
		rc = src->ops->io(src, &v, 1, n, soff, false);
	}
	if (rc != 0) {
		return rc;
	}
	*at_dst = true;
	return gw_write(dst, doff, buf, n);
}

/*
 * Through this process: pieces of XT_BOUNCE_LEN, from the end when the
 * ranges of one LU overlap and the destination is above the source
 * (memmove order, SPC-4 copy semantics of a block device segment).
 */
static int
gw_copy(struct xcm_lu *src, uint64_t soff, struct xcm_lu *dst, uint64_t doff, uint64_t len,
	uint8_t *buf, struct xt_copy_acct *acct, bool *at_dst, uint64_t *done)
{
	bool back = src == dst && doff > soff && doff < soff + len;
	uint64_t n, at;
	int rc = 0;

	*done = 0;
	*at_dst = false;
	xt_store_deadline(acct->deadline_ms);   /* RBD io: no wait past the job's deadline */
	while (*done < len) {
		n = len - *done < XT_BOUNCE_LEN ? len - *done : XT_BOUNCE_LEN;
		at = back ? len - *done - n : *done;
		rc = gw_piece(src, soff + at, dst, doff + at, (size_t)n, buf, at_dst);
		if (rc != 0) {
			break;
		}
		acct->gateway_bytes += n;
		*done += n;
	}
	xt_store_deadline(0);
	if (rc == 0) {
		*at_dst = false;
	}
	return rc;
}

bool
xt_lu_store_copies(const struct xcm_lu *src, const struct xcm_lu *dst)
{
	const struct xt_store_ops *so = src->ops;

	return so == dst->ops && so->copy != NULL && !xt_fault_active(src) &&
	       !xt_fault_active(dst);
}

int
xt_lu_copy(struct xcm_lu *src, uint64_t soff, struct xcm_lu *dst, uint64_t doff, uint64_t len,
	   uint8_t *const *bounce, unsigned int nb, enum xt_clone clone, enum xt_cfr cfr,
	   struct xt_copy_acct *acct, bool *at_dst, uint64_t *done)
{
	*at_dst = false;
	*done = 0;
	if (len == 0 || (src == dst && soff == doff)) {
		return 0;
	}
	if (xt_lu_is_file(src) && xt_lu_is_file(dst)) {
		return xt_par_copy(src, soff, dst, doff, len, bounce, nb, clone, cfr, acct, at_dst,
				   done);
	}
	if (xt_lu_store_copies(src, dst)) {
		return src->ops->copy(src, soff, dst, doff, len, acct, at_dst, done);
	}
	return gw_copy(src, soff, dst, doff, len, bounce[0], acct, at_dst, done);
}
