/*
 * raid5.c - the RAID5 personality: md's rotating single parity (P = XOR of the data) over
 * 3 or more members, in md's four layouts. The work is raid56.c's.
 */
#include "levels.h"
#include "raid56.h"
#include "rebuild56.h"

const struct raid_level_ops raid5_ops = {
    .level = 5,
    .name = "raid5",
    .min_members = 3,
    .max_failed = 1,
    .parity = 1,
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
