/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one table mapping a copy-manager status to SCSI status, sense key and
 * ASC/ASCQ (SPC-4 sense keys and ASC/ASCQ assignments). Nothing else in the
 * tree chooses sense codes.
 */
#include <string.h>

#include "xcm/xcm.h"

#define ILLEGAL(asc) { XCM_SAM_CHECK_CONDITION, XCM_SK_ILLEGAL_REQUEST, (asc)
#define ABORTED(asc) { XCM_SAM_CHECK_CONDITION, XCM_SK_COPY_ABORTED, (asc)

static const struct xcm_status_info g_status[XCM_STATUS_COUNT] = {
	[XCM_OK] = { XCM_SAM_GOOD, XCM_SK_NO_SENSE, XCM_ASC_NO_ADDITIONAL_SENSE, "GOOD" },
	[XCM_E_INVALID_OPCODE] = ILLEGAL(XCM_ASC_INVALID_OPCODE), "INVALID COMMAND OPERATION CODE" },
	[XCM_E_INVALID_FIELD_CDB] = ILLEGAL(XCM_ASC_INVALID_FIELD_IN_CDB), "INVALID FIELD IN CDB" },
	[XCM_E_PARAM_LIST_LEN] = ILLEGAL(XCM_ASC_PARAM_LIST_LEN), "PARAMETER LIST LENGTH ERROR" },
	[XCM_E_INVALID_FIELD_PARAM] = ILLEGAL(XCM_ASC_INVALID_FIELD_IN_PARAM),
		"INVALID FIELD IN PARAMETER LIST" },
	[XCM_E_TOO_MANY_CSCD] = ILLEGAL(XCM_ASC_TOO_MANY_CSCD), "TOO MANY TARGET DESCRIPTORS" },
	[XCM_E_UNSUPP_CSCD_TYPE] = ILLEGAL(XCM_ASC_UNSUPP_CSCD_TYPE),
		"UNSUPPORTED TARGET DESCRIPTOR TYPE CODE" },
	[XCM_E_TOO_MANY_SEG] = ILLEGAL(XCM_ASC_TOO_MANY_SEG), "TOO MANY SEGMENT DESCRIPTORS" },
	[XCM_E_UNSUPP_SEG_TYPE] = ILLEGAL(XCM_ASC_UNSUPP_SEG_TYPE),
		"UNSUPPORTED SEGMENT DESCRIPTOR TYPE CODE" },
	[XCM_E_INLINE_DATA_LEN] = ILLEGAL(XCM_ASC_INLINE_DATA_LEN_EXCEEDED),
		"INLINE DATA LENGTH EXCEEDED" },
	[XCM_E_OP_IN_PROGRESS] = ILLEGAL(XCM_ASC_OPERATION_IN_PROGRESS), "OPERATION IN PROGRESS" },
	[XCM_E_LBA_OUT_OF_RANGE] = ILLEGAL(XCM_ASC_LBA_OUT_OF_RANGE),
		"LOGICAL BLOCK ADDRESS OUT OF RANGE" },
	[XCM_E_INSUFFICIENT_RESOURCES] = ILLEGAL(XCM_ASC_INSUFFICIENT_RESOURCES),
		"INSUFFICIENT RESOURCES" },
	/*
	 * A list ended by COPY OPERATION ABORT (SPC-4 6.3) before its next
	 * chunk. The standard's TASK ABORTED status cannot be returned through
	 * TCMU (libtcmu maps no handler code to it), so the command ends in
	 * CHECK CONDITION, COPY ABORTED (data had begun to move), no additional
	 * sense code, CSI = the segment being processed; RECEIVE COPY STATUS
	 * (LID4) reports the list TERMINATED (60h) with the exact counts.
	 */
	[XCM_E_CA_ABORTED] = ABORTED(XCM_ASC_NO_ADDITIONAL_SENSE), "COPY ABORTED: ABORTED BY REQUEST" },
	[XCM_E_CA_UNREACHABLE] = ABORTED(XCM_ASC_UNREACHABLE_COPY_TARGET),
		"COPY ABORTED: UNREACHABLE COPY TARGET" },
	[XCM_E_CA_DEVICE_FAILURE] = ABORTED(XCM_ASC_THIRD_PARTY_DEVICE_FAILURE),
		"COPY ABORTED: THIRD PARTY DEVICE FAILURE" },
	[XCM_E_CA_NOT_REACHABLE] = ABORTED(XCM_ASC_COPY_TARGET_NOT_REACHABLE),
		"COPY ABORTED: COPY TARGET DEVICE NOT REACHABLE" },
	[XCM_E_CA_INCORRECT_TYPE] = ABORTED(XCM_ASC_INCORRECT_COPY_TARGET_TYPE),
		"COPY ABORTED: INCORRECT COPY TARGET DEVICE TYPE" },
	[XCM_E_CA_UNDERRUN] = ABORTED(XCM_ASC_COPY_TARGET_UNDERRUN),
		"COPY ABORTED: COPY TARGET DEVICE DATA UNDERRUN" },
	[XCM_E_CA_OVERRUN] = ABORTED(XCM_ASC_COPY_TARGET_OVERRUN),
		"COPY ABORTED: COPY TARGET DEVICE DATA OVERRUN" },
	[XCM_E_CA_INEXACT_SEGMENT] = ABORTED(XCM_ASC_INEXACT_SEGMENT),
		"COPY ABORTED: UNEXPECTED INEXACT SEGMENT" },
	[XCM_E_CA_INVALID_OP] = ABORTED(XCM_ASC_INVALID_OP_FOR_COPY),
		"COPY ABORTED: INVALID OPERATION FOR COPY SOURCE OR DESTINATION" },
	[XCM_E_CA_GRANULARITY] = ABORTED(XCM_ASC_COPY_SEGMENT_GRANULARITY),
		"COPY ABORTED: COPY SEGMENT GRANULARITY VIOLATION" },
	[XCM_E_CA_FAST_COPY_NOT_POSSIBLE] = ABORTED(XCM_ASC_FAST_COPY_NOT_POSSIBLE),
		"COPY ABORTED: FAST COPY NOT POSSIBLE" },
	/*
	 * The copy manager ended the command itself because it would otherwise
	 * outlive the time the transport allows it (the LU's command timeout):
	 * SPC-5 assigns 2E/02 COMMAND TIMEOUT DURING PROCESSING to a command the
	 * device server terminates once its time limit expired during processing;
	 * the key is COPY ABORTED because segment processing had begun (SPC-4
	 * 6.4: errors after data moved); CSI = the segment being processed.
	 */
	[XCM_E_CA_DEADLINE] = ABORTED(XCM_ASC_CMD_TIMEOUT_DURING_PROCESSING),
		"COPY ABORTED: COMMAND TIMEOUT DURING PROCESSING" },
	[XCM_E_INTERNAL] = { XCM_SAM_CHECK_CONDITION, XCM_SK_HARDWARE_ERROR,
		XCM_ASC_INTERNAL_TARGET_FAILURE, "INTERNAL TARGET FAILURE" },
};

const struct xcm_status_info *
xcm_status_info(enum xcm_status st)
{
	if ((unsigned)st >= XCM_STATUS_COUNT) {
		st = XCM_E_INTERNAL;
	}
	return &g_status[st];
}

void
xcm_err_set(struct xcm_err *e, enum xcm_status st)
{
	memset(e, 0, sizeof(*e));
	e->status = st;
}

void
xcm_err_set_field(struct xcm_err *e, enum xcm_status st, bool in_cdb, uint32_t field, int bit)
{
	xcm_err_set(e, st);
	e->sks_valid = true;
	e->in_cdb = in_cdb;
	e->field = field;
	if (bit >= 0 && bit <= 7) {
		e->bit_valid = true;
		e->bit = (uint8_t)bit;
	}
}

void
xcm_err_set_segment(struct xcm_err *e, enum xcm_status st, uint32_t seg, int field)
{
	xcm_err_set(e, st);
	e->csi_valid = true;
	e->csi = seg;
	if (field >= 0) {
		e->sks_valid = true;
		e->sd = true;
		e->field = (uint32_t)field;
	}
}
