# raid/backends/backends.mk: the member I/O backends (io_uring, libaio, psync, ram, null)
# behind struct member_backend_ops (raid/core/member.h), and the raid_inject decorator;
# member_null_test: raid_null_delay on a fake clock.

LIBRAID_SRCS += raid/backends/member.c raid/backends/member_uring.c raid/backends/member_aio.c \
	raid/backends/member_psync.c raid/backends/member_ram.c raid/backends/member_null.c \
	raid/backends/member_fault.c

$(eval $(call raid_ctest,backends,member_null_test))
