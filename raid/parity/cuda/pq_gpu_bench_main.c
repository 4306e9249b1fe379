/*
 * pq_gpu_bench_main.c - raid-gpu-bench: prints the GPU path's figures (pq_gpu_bench.c) as a
 * table, or with --json as one JSON array of rows {impl, op, k, chunk, batch, mode, gbps,
 * ratio}; raid-parity-bench prints the same rows after its CPU ones. Without a usable GPU it
 * says why and exits 0 with no rows. tests/gpu/check.sh runs it on GPU machines.
 */
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

#include "pq_gpu_bench.h"

#define PROG "raid-gpu-bench"

int main(int argc, char **argv)
{
	static const struct option lo[] = {{"json", no_argument, NULL, 'j'},
					   {"quick", no_argument, NULL, 'q'},
					   {"device", required_argument, NULL, 'd'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	int json = 0, quick = 0, c;
	char *end;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'q':
			quick = 1;
			break;
		case 'd':
			if (strtol(optarg, &end, 10) < 0 || *end || end == optarg) {
				fprintf(stderr, PROG ": --device %s: not a device index\n", optarg);
				return 2;
			}
			setenv("RAID_GPU", optarg, 1);
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
	if (!json) {
		pq_gpu_bench_rows(NULL, stdout, quick);
		return 0;
	}
	json_object *rows = json_object_new_array();

	pq_gpu_bench_rows(rows, NULL, quick);
	printf("%s\n", json_object_to_json_string_ext(rows, JSON_C_TO_STRING_PRETTY));
	json_object_put(rows);
	return 0;
}
