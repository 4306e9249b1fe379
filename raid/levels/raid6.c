/*
 * raid6.c - the RAID6 personality: md's P and Q (Q = sum g^i D_i over GF(2^8), i counted
 * from the member after Q) over 4 or more members, in md's four layouts. The work is
 * raid56.c's.
 */
#include "levels.h"
#include "raid56.h"
#include "rebuild56.h"

const struct raid_level_ops raid6_ops = {
    .level = 6,
    .name = "raid6",
    .min_members = 4,
    .max_failed = 2,
    .parity = 2,
    .copies = 1,
    .uses_chunk = true,
    .layouts = RAID56_LAYOUTS,
    .default_layout = RAID_LAYOUT_LEFT_SYM,
    .size = raid56_size,
    .map = raid56_map,
    .start = raid56_start,
    .advance = raid56_advance,
    .array_init = raid56_array_init,
    .array_exit = raid56_array_exit,
    .queue_exit = raid56_queue_exit,
    .queue_commit = raid56_gpu_flush,
    .buf_register = raid56_buf_register,
    .buf_unregister = raid56_buf_unregister,
    .span = raid56_rec_span,
    .rows_recover = raid56_rec_rows_recover,
    .rows_check = raid56_rec_rows_check,
};
