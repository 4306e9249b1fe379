/*
 * pq_gpu_bench_main.c - raid-gpu-bench: prints the GPU path's figures (pq_gpu_bench.c) as a
 * table, or with --json as one JSON array of rows {impl, op, k, chunk, batch, mode, gbps,
 * ratio}. Without a usable GPU it says why on stderr and exits 0 with no rows, so `make bench`
 * runs everywhere. tests/gpu/check.sh runs it on GPU machines.
 */
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

#include "pq_gpu_bench.h"

#define PROG "raid-gpu-bench"

static void print_row(void *ctx, const struct pq_gpu_bench_row *r)
{
	json_object *rows = ctx;

	if (!rows) {
		printf("%-9s %-7s %3d %9zu %5d %-7s %9.2f", r->impl, r->op, r->k, r->chunk,
		       r->batch, r->mode, r->gbps);
		if (r->ratio > 0)
			printf(" %6.2f", r->ratio);
		printf("\n");
		fflush(stdout);
		return;
	}
	json_object *o = json_object_new_object();

	json_object_object_add(o, "impl", json_object_new_string(r->impl));
	json_object_object_add(o, "op", json_object_new_string(r->op));
	json_object_object_add(o, "k", json_object_new_int(r->k));
	json_object_object_add(o, "chunk", json_object_new_int64((int64_t)r->chunk));
	json_object_object_add(o, "batch", json_object_new_int(r->batch));
	json_object_object_add(o, "mode", json_object_new_string(r->mode));
	json_object_object_add(o, "gbps", json_object_new_double(r->gbps));
	json_object_object_add(o, "ratio", json_object_new_double(r->ratio));
	json_object_array_add(rows, o);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {{"json", no_argument, NULL, 'j'},
					   {"quick", no_argument, NULL, 'q'},
					   {"device", required_argument, NULL, 'd'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	int json = 0, quick = 0, device = 0, c;
	char why[256], *end;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'q':
			quick = 1;
			break;
		case 'd':
			device = (int)strtol(optarg, &end, 10);
			if (*end || end == optarg || device < 0) {
				fprintf(stderr, PROG ": --device %s: not a device index\n", optarg);
				return 2;
			}
			break;
		case 'h':
			printf("usage: " PROG " [--json] [--quick] [--device N]\n"
			       "GPU parity figures: kernel only, end to end (copy, mapped)\n"
			       "for 1 to 1024 stripes a launch, and the pinned copy bandwidths\n"
			       "they are judged against (ratio column; see docs/gpu.md).\n");
			return 0;
		default:
			fprintf(stderr, PROG ": see --help\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	json_object *rows = json ? json_object_new_array() : NULL;

	if (!json)
		printf("%-9s %-7s %3s %9s %5s %-7s %9s %6s\n", "impl", "op", "k", "chunk", "batch",
		       "mode", "GB/s", "ratio");
	if (pq_gpu_bench_run(device, quick, print_row, rows, why, sizeof(why))) {
		fprintf(stderr, PROG ": no GPU figures: %s\n", why);
		if (json)
			printf("[]\n");
		json_object_put(rows);
		return 0;
	}
	if (json)
		printf("%s\n", json_object_to_json_string_ext(rows, JSON_C_TO_STRING_PRETTY));
	json_object_put(rows);
	return 0;
}
