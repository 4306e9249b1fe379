/*
 * log.c - where the library's messages go: one line each, through a hook the fio adapter
 * points at fio's log_err (stderr by default). The library never writes to stdout.
 */
#include <stdarg.h>
#include <stdio.h>

#include "raid.h"

static void log_stderr(const char *line)
{
	fprintf(stderr, "%s\n", line);
}

/* every fio job's thread sets it as its engine starts, while others may be logging */
static void (*log_fn)(const char *line) = log_stderr;

void raid_set_log(void (*fn)(const char *line))
{
	__atomic_store_n(&log_fn, fn ? fn : log_stderr, __ATOMIC_RELEASE);
}

void raid_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	__atomic_load_n(&log_fn, __ATOMIC_ACQUIRE)(line);
}
