/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one table of copy-manager limits. The parameter-list parser enforces
 * exactly these values, and RECEIVE COPY RESULTS OPERATING PARAMETERS and VPD
 * 0x8F report exactly these values (they all take a struct xcm_limits).
 */
#include "xcm/xcm.h"

_Static_assert(XCM_MAX_CSCD <= XCM_CSCD_ID_MAX_INDEX + 1, "CSCD index space");

const struct xcm_limits xcm_limits_default = {
	.max_cscd = XCM_MAX_CSCD,
	.max_seg = XCM_MAX_SEG,
	/* every descriptor at its largest supported size (E4h 32, 0Ah 32 bytes) */
	.max_desc_list_len = XCM_MAX_CSCD * XCM_CSCD_LEN + XCM_MAX_SEG * XCM_SEG_B2B_OFF_LEN,
	/*
	 * 256 MiB per segment, as LIO reports: clients such as ddpt split a copy
	 * at this length, and a small one only multiplies commands. The work of
	 * a maximum-size command (1024 x 256 MiB) cannot finish inside TCMU's
	 * command timeout on a copying backend; the engine executes segments in
	 * chunks and ends such a command at its deadline with COPY ABORTED and
	 * the exact count of what was written (exec.h, xcm_exec_opts).
	 */
	.max_seg_len = 256u << 20,
	.max_inline_len = 0,
	.held_data_limit = 0,
	.total_concurrent = 1,
	.max_concurrent = 1,
	.data_seg_gran = 0,
	.inline_gran = 0,
	.held_gran = 0,
	.snlid = true,
};

uint32_t
xcm_limits_max_param_len(const struct xcm_limits *lim)
{
	return XCM_PLIST_HDR_LEN + lim->max_desc_list_len + lim->max_inline_len;
}

/*
 * Segments 02h, 0Ah and the vendor specific C0h (docs/remote-tokens.md);
 * CSCDs E4h and EAh (docs/cscd-descriptors.md), not E5h, E6h, EBh
 */
static const uint8_t g_desc_codes[] = { XCM_SEG_B2B, XCM_SEG_B2B_OFF, XCM_SEG_TOKEN,
					XCM_CSCD_ID, XCM_CSCD_IPV6 };
/*
 * 83h: EXTENDED COPY LID1, LID4, POPULATE TOKEN, WRITE USING TOKEN (xcm/token.h),
 * COPY OPERATION ABORT (xcm/lid4.h)
 */
static const uint8_t g_xcopy_sas[] = { XCM_SA_XCOPY_LID1, XCM_SA_XCOPY_LID4, 0x10, 0x11, 0x1C };
/*
 * 84h: the LID1 service actions, RECEIVE COPY STATUS (LID4) 05h (xcm/lid4.h),
 * RECEIVE ROD TOKEN INFORMATION 07h and REPORT ALL ROD TOKENS 08h (xcm/token.h)
 */
static const uint8_t g_rcr_sas[] = {
	XCM_SA_RCR_COPY_STATUS, XCM_SA_RCR_RECEIVE_DATA, XCM_SA_RCR_OP_PARAMS,
	XCM_SA_RCR_FAILED_SEGMENT, 0x05, 0x07, 0x08,
};

const uint8_t *
xcm_supported_desc_codes(size_t *n)
{
	*n = sizeof(g_desc_codes);
	return g_desc_codes;
}

const uint8_t *
xcm_supported_xcopy_sas(size_t *n)
{
	*n = sizeof(g_xcopy_sas);
	return g_xcopy_sas;
}

const uint8_t *
xcm_supported_rcr_sas(size_t *n)
{
	*n = sizeof(g_rcr_sas);
	return g_rcr_sas;
}
