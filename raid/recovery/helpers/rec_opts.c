/*
 * rec_opts.c - where recovery's options sit in every configuration (rec_opts.h): the index
 * the core gives them at registration. A leaf of recovery's files: every file that reads the
 * options (rec_cfg) depends on it alone, not on options.c, which holds the rows and depends
 * on the parsers in rebuild_config.c and state.c.
 */
#include "rec_opts.h"

int rec_opts_slot = -1;
