/*
 * ublk_uapi.h - the part of the ublk driver's user ABI that raid-ublk uses, written here
 * because this host's headers (Debian 12's linux-libc-dev 6.1) predate the ioctl-encoded
 * commands. Values and layouts are those of Linux 6.12's include/uapi/linux/ublk_cmd.h
 * (Debian 13's linux-image 6.12 ships the driver as the module ublk_drv); names carry a
 * RU_ prefix so that they never clash with a system header that has the originals.
 */
#ifndef TOOLS_UBLK_UBLK_UAPI_H
#define TOOLS_UBLK_UBLK_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* sent in the 80 bytes of a 128-byte SQE to /dev/ublk-control (IORING_OP_URING_CMD) */
struct ru_ctrl_cmd {
	__u32 dev_id;
	__u16 queue_id;
	__u16 len; /* of the buffer at addr */
	__u64 addr;
	__u64 data[1];
	__u16 dev_path_len;
	__u16 pad;
	__u32 reserved;
};

struct ru_dev_info {
	__u16 nr_hw_queues;
	__u16 queue_depth;
	__u16 state;
	__u16 pad0;
	__u32 max_io_buf_bytes;
	__u32 dev_id;
	__s32 ublksrv_pid;
	__u32 pad1;
	__u64 flags;
	__u64 ublksrv_flags;
	__u32 owner_uid;
	__u32 owner_gid;
	__u64 reserved1;
	__u64 reserved2;
};

/* dev_info.state */
#define RU_S_DEV_DEAD 0
#define RU_S_DEV_LIVE 1
#define RU_S_DEV_QUIESCED 2

#define RU_CMD_IOR(nr) _IOR('u', nr, struct ru_ctrl_cmd)
#define RU_CMD_IOWR(nr) _IOWR('u', nr, struct ru_ctrl_cmd)
#define RU_U_CMD_GET_DEV_INFO RU_CMD_IOR(0x02)
#define RU_U_CMD_ADD_DEV RU_CMD_IOWR(0x04)
#define RU_U_CMD_DEL_DEV RU_CMD_IOWR(0x05)
#define RU_U_CMD_START_DEV RU_CMD_IOWR(0x06)
#define RU_U_CMD_STOP_DEV RU_CMD_IOWR(0x07)
#define RU_U_CMD_SET_PARAMS RU_CMD_IOWR(0x08)
#define RU_U_CMD_START_USER_RECOVERY RU_CMD_IOWR(0x10)
#define RU_U_CMD_END_USER_RECOVERY RU_CMD_IOWR(0x11)

/* feature flags of ADD_DEV */
#define RU_F_USER_RECOVERY (1ULL << 3)
#define RU_F_USER_RECOVERY_REISSUE (1ULL << 4)
#define RU_F_CMD_IOCTL_ENCODE (1ULL << 6)

/* the per-tag descriptor the driver fills in the mmapped area of /dev/ublkcN */
struct ru_io_desc {
	__u32 op_flags; /* op in bits 0-7, flags above */
	__u32 nr_sectors;
	__u64 start_sector;
	__u64 addr;
};

#define RU_IO_OP_READ 0
#define RU_IO_OP_WRITE 1
#define RU_IO_OP_FLUSH 2
#define RU_IO_OP_DISCARD 3
#define RU_IO_OP_WRITE_SAME 4
#define RU_IO_OP_WRITE_ZEROES 5
#define RU_IO_F_FUA (1U << 13)

/* sent in the SQE's command area on /dev/ublkcN, one per tag */
struct ru_io_cmd {
	__u16 q_id;
	__u16 tag;
	__s32 result;
	__u64 addr; /* the server's buffer for this tag */
};

#define RU_U_IO_FETCH_REQ _IOWR('u', 0x20, struct ru_io_cmd)
#define RU_U_IO_COMMIT_AND_FETCH_REQ _IOWR('u', 0x21, struct ru_io_cmd)
#define RU_IO_RES_ABORT (-19) /* -ENODEV: the device is going away, no more fetches */

/* the descriptors of queue q start at q * this page-rounded size in /dev/ublkcN */
#define RU_MAX_QUEUE_DEPTH 4096
#define RU_CMD_BUF_OFFSET 0

struct ru_param_basic {
	__u32 attrs;
	__u8 logical_bs_shift;
	__u8 physical_bs_shift;
	__u8 io_opt_shift;
	__u8 io_min_shift;
	__u32 max_sectors;
	__u32 chunk_sectors;
	__u64 dev_sectors;
	__u64 virt_boundary_mask;
};
#define RU_ATTR_VOLATILE_CACHE (1U << 2)
#define RU_ATTR_FUA (1U << 3)

struct ru_param_discard {
	__u32 discard_alignment;
	__u32 discard_granularity;
	__u32 max_discard_sectors;
	__u32 max_write_zeroes_sectors;
	__u16 max_discard_segments;
	__u16 reserved0;
};

/* only the types raid-ublk sends: len says how much of the kernel's struct is here */
struct ru_params {
	__u32 len;
	__u32 types;
	struct ru_param_basic basic;
	struct ru_param_discard discard;
};
#define RU_PARAM_TYPE_BASIC (1U << 0)

#endif
