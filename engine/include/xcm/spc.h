/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SPC-4 / SBC-4 constants shared by the copy manager (engine, target) and the
 * initiator (host). Names follow the standard; ASC/ASCQ are one 16-bit value
 * (ASC << 8 | ASCQ).
 */
#ifndef XCM_SPC_H
#define XCM_SPC_H

#ifdef __cplusplus
extern "C" {
#endif

/* Operation codes */
enum {
	XCM_OP_TEST_UNIT_READY = 0x00,
	XCM_OP_INQUIRY = 0x12,
	XCM_OP_READ_16 = 0x88,
	XCM_OP_WRITE_16 = 0x8A,
	XCM_OP_XCOPY = 0x83,           /* THIRD-PARTY COPY OUT (EXTENDED COPY) */
	XCM_OP_RCR = 0x84,             /* THIRD-PARTY COPY IN (RECEIVE COPY RESULTS) */
	XCM_OP_SERVICE_ACTION_IN_16 = 0x9E,
	XCM_OP_REPORT_LUNS = 0xA0,
};

/* Service actions (CDB byte 1 bits 4:0) */
enum {
	XCM_SA_XCOPY_LID1 = 0x00,
	XCM_SA_XCOPY_LID4 = 0x01,
	XCM_SA_RCR_COPY_STATUS = 0x00,
	XCM_SA_RCR_RECEIVE_DATA = 0x01,
	XCM_SA_RCR_OP_PARAMS = 0x03,
	XCM_SA_RCR_FAILED_SEGMENT = 0x04,
	XCM_SA_READ_CAPACITY_16 = 0x10,
};

/* VPD pages */
enum {
	XCM_VPD_SUPPORTED_PAGES = 0x00,
	XCM_VPD_UNIT_SERIAL = 0x80,
	XCM_VPD_DEVICE_ID = 0x83,
	XCM_VPD_TPC = 0x8F,
	XCM_VPD_BLOCK_LIMITS = 0xB0,
};

/* Third-party Copy VPD descriptor types */
enum {
	XCM_TPC_DESC_BDRL = 0x0000,
	XCM_TPC_DESC_SUPPORTED_CMDS = 0x0001,
	XCM_TPC_DESC_PARAM_DATA = 0x0004,
	XCM_TPC_DESC_SUPPORTED_DESCS = 0x0008,
	XCM_TPC_DESC_SUPPORTED_CSCD_IDS = 0x000C,
	XCM_TPC_DESC_ROD_FEATURES = 0x0106,
	XCM_TPC_DESC_ROD_TYPES = 0x0108,
	XCM_TPC_DESC_GENERAL_COPY_OPS = 0x8001,
};

/* Segment descriptor type codes */
enum {
	XCM_SEG_B2B = 0x02,            /* block -> block, 28 bytes */
	XCM_SEG_B2B_OFF = 0x0A,        /* block (byte offset) -> block (byte offset), 32 bytes */
	/*
	 * vendor specific (SPC-4: C0h-DFh): ROD token -> block device ranges,
	 * 536 + 16n bytes (docs/remote-tokens.md); one per list
	 */
	XCM_SEG_TOKEN = 0xC0,
};

/* CSCD descriptor type codes and special CSCD descriptor IDs */
enum {
	XCM_CSCD_FC_N_PORT_NAME = 0xE0,
	XCM_CSCD_ID = 0xE4,            /* identification descriptor */
	XCM_CSCD_IPV4 = 0xE5,          /* iSCSI IPv4: layout not established, refused */
	XCM_CSCD_ALIAS = 0xE6,         /* alias: needs CHANGE ALIASES, refused */
	XCM_CSCD_IPV6 = 0xEA,          /* iSCSI IPv6, 64 bytes (docs/cscd-descriptors.md) */
	XCM_CSCD_IP_COPY_SERVICE = 0xEB, /* vendor specific protocol, refused */
	XCM_CSCD_EXT = 0xFF,           /* CSCD descriptor extension: bytes 32-63 of a 64-byte one */
};
enum {
	XCM_CSCD_ID_MAX_INDEX = 0x07FF,
	XCM_CSCD_ID_NULL_BLOCK = 0xC000,
	XCM_CSCD_ID_NULL_STREAM = 0xC001,
	XCM_CSCD_ID_ROD = 0xF800,
	XCM_CSCD_ID_SELF = 0xFFFF,     /* the LU that received the command */
};

/* LIST ID USAGE (parameter list byte 1 bits 4:3) */
enum {
	XCM_LIST_ID_HOLD = 0,          /* 00b: keep status and held data */
	XCM_LIST_ID_RESERVED = 1,      /* 01b: reserved */
	XCM_LIST_ID_DISCARD = 2,       /* 10b: keep status, no held data */
	XCM_LIST_ID_NONE = 3,          /* 11b: no list identifier (id must be 0) */
};

/* VPD 0x83 designator fields */
enum {
	XCM_CODE_SET_BINARY = 1,
	XCM_CODE_SET_ASCII = 2,
	XCM_CODE_SET_UTF8 = 3,
	XCM_ASSOC_LU = 0,
	XCM_DESIG_VENDOR = 0,
	XCM_DESIG_T10 = 1,
	XCM_DESIG_EUI64 = 2,
	XCM_DESIG_NAA = 3,
	XCM_DESIG_MD5 = 7,
	XCM_DESIG_SCSI_NAME = 8,
	XCM_DESIG_UUID = 0xA,
};

/* Peripheral device types */
enum {
	XCM_PDT_BLOCK = 0x00,
	XCM_PDT_STREAM = 0x01,
};

/* COPY STATUS: COPY MANAGER STATUS and TRANSFER COUNT UNITS */
enum {
	XCM_CM_STATUS_IN_PROGRESS = 0x00,
	XCM_CM_STATUS_GOOD = 0x01,
	XCM_CM_STATUS_ERROR = 0x02,
	XCM_TC_UNITS_BYTES = 0x00,
	XCM_TC_UNITS_KIB = 0x01,
	XCM_TC_UNITS_MIB = 0x02,
	XCM_TC_UNITS_GIB = 0x03,
	XCM_TC_UNITS_TIB = 0x04,
};

/* SCSI status */
enum {
	XCM_SAM_GOOD = 0x00,
	XCM_SAM_CHECK_CONDITION = 0x02,
	XCM_SAM_BUSY = 0x08,
	XCM_SAM_TASK_SET_FULL = 0x28,
};

/* Sense keys */
enum {
	XCM_SK_NO_SENSE = 0x0,
	XCM_SK_NOT_READY = 0x2,
	XCM_SK_MEDIUM_ERROR = 0x3,
	XCM_SK_HARDWARE_ERROR = 0x4,
	XCM_SK_ILLEGAL_REQUEST = 0x5,
	XCM_SK_UNIT_ATTENTION = 0x6,
	XCM_SK_DATA_PROTECT = 0x7,
	XCM_SK_ABORTED_COMMAND = 0xB,
	XCM_SK_COPY_ABORTED = 0xA,
	XCM_SK_COMPLETED = 0xF,
};

/* ASC/ASCQ as one 16-bit value */
enum {
	XCM_ASC_NO_ADDITIONAL_SENSE = 0x0000,
	XCM_ASC_OPERATION_IN_PROGRESS = 0x0016,
	XCM_ASC_UNREACHABLE_COPY_TARGET = 0x0804,
	XCM_ASC_THIRD_PARTY_DEVICE_FAILURE = 0x0D01,
	XCM_ASC_COPY_TARGET_NOT_REACHABLE = 0x0D02,
	XCM_ASC_INCORRECT_COPY_TARGET_TYPE = 0x0D03,
	XCM_ASC_COPY_TARGET_UNDERRUN = 0x0D04,
	XCM_ASC_COPY_TARGET_OVERRUN = 0x0D05,
	XCM_ASC_WRITE_ERROR = 0x0C00,
	XCM_ASC_UNRECOVERED_READ_ERROR = 0x1100,
	XCM_ASC_PARAM_LIST_LEN = 0x1A00,
	XCM_ASC_INVALID_OPCODE = 0x2000,
	XCM_ASC_LBA_OUT_OF_RANGE = 0x2100,
	XCM_ASC_TOKEN_OP = 0x2300,          /* INVALID TOKEN OPERATION, CAUSE NOT REPORTABLE */
	XCM_ASC_TOKEN_UNSUPPORTED = 0x2301,  /* ... UNSUPPORTED TOKEN TYPE */
	XCM_ASC_TOKEN_REMOTE = 0x2302,       /* ... REMOTE TOKEN USAGE NOT SUPPORTED */
	XCM_ASC_TOKEN_UNKNOWN = 0x2304,      /* ... TOKEN UNKNOWN */
	XCM_ASC_TOKEN_CORRUPT = 0x2305,      /* ... TOKEN CORRUPT */
	XCM_ASC_TOKEN_EXPIRED = 0x2307,      /* ... TOKEN EXPIRED */
	XCM_ASC_TOKEN_CANCELLED = 0x2308,    /* ... TOKEN CANCELLED */
	XCM_ASC_TOKEN_DELETED = 0x2309,      /* ... TOKEN DELETED */
	XCM_ASC_TOKEN_LENGTH = 0x230A,       /* ... INVALID TOKEN LENGTH */
	XCM_ASC_INVALID_FIELD_IN_CDB = 0x2400,
	XCM_ASC_INVALID_FIELD_IN_PARAM = 0x2600,
	XCM_ASC_TOO_MANY_CSCD = 0x2606,
	XCM_ASC_UNSUPP_CSCD_TYPE = 0x2607,
	XCM_ASC_TOO_MANY_SEG = 0x2608,
	XCM_ASC_UNSUPP_SEG_TYPE = 0x2609,
	XCM_ASC_INEXACT_SEGMENT = 0x260A,
	XCM_ASC_INLINE_DATA_LEN_EXCEEDED = 0x260B,
	XCM_ASC_INVALID_OP_FOR_COPY = 0x260C,
	XCM_ASC_COPY_SEGMENT_GRANULARITY = 0x260D,
	XCM_ASC_FAST_COPY_NOT_POSSIBLE = 0x2616,
	XCM_ASC_NO_SPACE = 0x2707,          /* SPACE ALLOCATION FAILED WRITE PROTECT */
	XCM_ASC_CMD_TIMEOUT_DURING_PROCESSING = 0x2E02, /* COMMAND TIMEOUT DURING PROCESSING */
	XCM_ASC_INTERNAL_TARGET_FAILURE = 0x4400,
	XCM_ASC_INSUFFICIENT_RESOURCES = 0x5503,
	XCM_ASC_NO_ROD_RESOURCES = 0x550C,   /* INSUFFICIENT RESOURCES TO CREATE ROD */
	XCM_ASC_NO_TOKEN_RESOURCES = 0x550D, /* INSUFFICIENT RESOURCES TO CREATE ROD TOKEN */
};

/* Fixed sizes */
enum {
	XCM_CDB16_LEN = 16,
	XCM_CDB12_LEN = 12,
	XCM_PLIST_HDR_LEN = 16,        /* LID1 parameter list header */
	XCM_PLIST4_HDR_LEN = 48,       /* LID4 parameter list header */
	XCM_CSCD_LEN = 32,             /* one CSCD slot: CSCD descriptor IDs count these */
	XCM_CSCD_LEN64 = 64,           /* a CSCD with one extension (EAh) */
	XCM_SEG_B2B_LEN = 28,
	XCM_SEG_B2B_OFF_LEN = 32,
	XCM_SEG_HDR_LEN = 8,
	XCM_DESIG_MAX = 20,            /* designator bytes an E4 CSCD can hold */
	XCM_SENSE_MAX = 96,            /* TCMU sense buffer size */
	XCM_FWD_SENSE_MAX = 64,        /* forwarded sense bytes kept (FSDT beyond) */
};

#ifdef __cplusplus
}
#endif

#endif /* XCM_SPC_H */
