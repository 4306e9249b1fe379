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

static void (*log_fn)(const char *line) = log_stderr;

void raid_set_log(void (*fn)(const char *line))
{
	log_fn = fn ? fn : log_stderr;
}

void raid_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_fn(line);
}
