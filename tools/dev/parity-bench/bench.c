/*
 * bench.c - raid-parity-bench: single-thread throughput of every parity variant (and ISA-L's
 * pq_gen, and read-XOR bandwidth figures of the cache and of memory) over a grid of ops, k,
 * chunk sizes and cache modes, and for each band of k and chunk the rule's pick (pq_best(), in
 * stream mode its twin) against the fastest and against ISA-L. In stream mode our variants run
 * through their streaming twins, as rebuild and scrub call them. Prints a table, or with --json
 * one JSON array of rows
 *   {"impl", "op", "k", "chunk", "mode", "gbps"}
 * where gbps counts data bytes per second (see docs/parity.md for what each op counts), the
 * median of several timed runs. This file: the command line and main; bench.h names the rest.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid/core/raid.h"
#include "bench.h"

#define STR2(x) #x
#define STR(x) STR2(x)

struct bench_opt opt;

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " PROG " [options]\n"
	    "Single-thread throughput of the RAID-5/6 parity variants, ISA-L's pq_gen and\n"
	    "read-XOR bandwidth figures of the cache (cachebw) and of memory (membw); gbps\n"
	    "counts data bytes per second, median of several runs. The table ends with the\n"
	    "bands: the rule's pick against the fastest and against ISA-L, and the start-up\n"
	    "cost of a one-write RAID5 fio run against a RAID0 one.\n"
	    "  --json          print one JSON array of {impl, op, k, chunk, mode, gbps} rows\n"
	    "  --quick         k = 10, chunk 64k, fewer and shorter runs, no start-up figures\n"
	    "  --k LIST        data blocks per stripe, 1..%d (default 4,10,22)\n"
	    "  --chunk LIST    block sizes, multiples of 64, suffix k or m (default 4k,64k,1m)\n"
	    "  --op LIST       gen, rmw, recov1, recov2 (default all)\n"
	    "  --mode LIST     hot: one stripe, reused (data the caller just wrote), variants\n"
	    "                  as called; stream: cold inputs whose parity goes to devices,\n"
	    "                  the way the engine's rebuild and scrub call it: a pool far\n"
	    "                  larger than the last-level cache, our variants through their\n"
	    "                  streaming twins (pq_twin()) (default both)\n"
	    "  --impl LIST     variants (base, avx2, avx512, avx512gfni), isal (ISA-L's pq_gen,\n"
	    "                  its own dispatch), isal-avx2 (ISA-L's pq_gen_avx2), cachebw\n"
	    "                  (read-XOR of the hot stripe's data: gen hot's ceiling), membw\n"
	    "                  (read-XOR of each pool stripe's data: gen stream's ceiling),\n"
	    "                  selected (gen through the rule's pick, what a caller of the\n"
	    "                  library runs) (default: every one this CPU can run)\n"
	    "  --shapes        also gen of each SIMD variant in every streaming shape, where\n"
	    "                  the loop streams (\"avx2/none\"; default in the table, not --json)\n"
	    "  --startup       print the start-up figures (default in the table without --quick)\n"
	    "  --runs N        timed runs per row, the median is printed (default 5)\n"
	    "  --pool SIZE     stream pool size (default 4x the last-level cache, 256m..2g)\n"
	    "  --help          this text\n"
	    "LIST is comma-separated. RAID_PARITY_IMPL=<name> forces the pick.\n",
	    PQ_MAX_DATA);
}

static void die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, " (see --help)\n");
	exit(2);
}

/* "64k", "1m", "4096": bytes by the engine's syntax (raid_parse_size), or 0 when malformed
 * or above 1 TiB */
static size_t parse_size(const char *s)
{
	uint64_t v;

	return raid_parse_size(s, &v) || v > (1ull << 40) ? 0 : (size_t)v;
}

/* split a comma list in place, calling fn on each item */
static void each_item(const char *optname, char *list, void (*fn)(const char *, char *))
{
	char *save, *it = strtok_r(list, ",", &save);

	if (!it)
		die("%s: empty list%s", optname, "");
	for (; it; it = strtok_r(NULL, ",", &save))
		fn(optname, it);
}

static void add_k(const char *o, char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || end == s || v < 1 || v > PQ_MAX_DATA)
		die("%s: '%s' is not a data block count from 1 to " STR(PQ_MAX_DATA), o, s);
	if (opt.nk == MAX_LIST)
		die("%s: too many values%s", o, "");
	opt.ks[opt.nk++] = (int)v;
}

static void add_chunk(const char *o, char *s)
{
	size_t v = parse_size(s);

	if (!v || v % PQ_LEN_ALIGN || v > (64u << 20))
		die("%s: '%s' is not a size that is a multiple of 64 bytes, up to 64m", o, s);
	if (opt.nchunk == MAX_LIST)
		die("%s: too many values%s", o, "");
	opt.chunks[opt.nchunk++] = v;
}

static void add_op(const char *o, char *s)
{
	for (int i = 0; i < OP_N; i++)
		if (strcmp(s, op_names[i]) == 0) {
			opt.op_on[i] = true;
			return;
		}
	die("%s: unknown op '%s' (gen, rmw, recov1, recov2)", o, s);
}

static void add_mode(const char *o, char *s)
{
	for (int i = 0; i < MODE_N; i++)
		if (strcmp(s, mode_names[i]) == 0) {
			opt.mode_on[i] = true;
			return;
		}
	die("%s: unknown mode '%s' (hot, stream)", o, s);
}

static void add_impl(const char *o, char *s)
{
	bool bw =
	    strcmp(s, "membw") == 0 || strcmp(s, "cachebw") == 0 || strcmp(s, "selected") == 0;
	bool known = bw || strcmp(s, "isal-avx2") == 0;

	for (int i = 0; !known && pq_all_calls[i]; i++)
		known = strcmp(s, pq_all_calls[i]->name) == 0;
	if (!known)
		die("%s: unknown implementation '%s'", o, s);
	if (strcmp(s, "isal-avx2") == 0 ? !has_avx2() : !bw && !pq_find(s))
		die("%s: '%s' cannot run on this CPU", o, s);
	if (opt.nimpl == MAX_LIST)
		die("%s: too many values%s", o, "");
	opt.impls[opt.nimpl++] = s;
}

static int parse_count(const char *o, const char *s, int lo, int hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || end == s || v < lo || v > hi) {
		fprintf(stderr, PROG ": %s: '%s' is not a count from %d to %d (see --help)\n", o, s,
			lo, hi);
		exit(2);
	}
	return (int)v;
}

static void parse_args(int argc, char **argv)
{
	enum {
		O_JSON = 256,
		O_QUICK,
		O_K,
		O_CHUNK,
		O_OP,
		O_MODE,
		O_IMPL,
		O_RUNS,
		O_POOL,
		O_SHAPES,
		O_STARTUP
	};
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, O_JSON},
	    {"quick", no_argument, NULL, O_QUICK},
	    {"k", required_argument, NULL, O_K},
	    {"chunk", required_argument, NULL, O_CHUNK},
	    {"op", required_argument, NULL, O_OP},
	    {"mode", required_argument, NULL, O_MODE},
	    {"impl", required_argument, NULL, O_IMPL},
	    {"runs", required_argument, NULL, O_RUNS},
	    {"pool", required_argument, NULL, O_POOL},
	    {"shapes", no_argument, NULL, O_SHAPES},
	    {"startup", no_argument, NULL, O_STARTUP},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool any_op = false, any_mode = false, shapes = false, startup = false;
	int c;

	opt.runs = 5;
	opt.run_s = 0.01;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_JSON:
			opt.json = true;
			break;
		case O_QUICK:
			opt.quick = true;
			break;
		case O_K:
			each_item("--k", optarg, add_k);
			break;
		case O_CHUNK:
			each_item("--chunk", optarg, add_chunk);
			break;
		case O_OP:
			each_item("--op", optarg, add_op);
			any_op = true;
			break;
		case O_MODE:
			each_item("--mode", optarg, add_mode);
			any_mode = true;
			break;
		case O_IMPL:
			each_item("--impl", optarg, add_impl);
			break;
		case O_RUNS:
			opt.runs = parse_count("--runs", optarg, 1, 101);
			break;
		case O_SHAPES:
			shapes = true;
			break;
		case O_STARTUP:
			startup = true;
			break;
		case O_POOL:
			opt.pool = parse_size(optarg);
			if (opt.pool < (16u << 20))
				die("--pool: '%s' is not a size of at least 16m%s", optarg, "");
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			die("unknown or incomplete option '%s'%s", argv[optind - 1], "");
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'%s", argv[optind], "");
	opt.shapes = shapes || (!opt.json && !opt.nimpl);
	opt.startup = startup || (!opt.json && !opt.quick && !opt.nimpl);
	if (opt.quick) {
		if (!opt.nk)
			opt.ks[opt.nk++] = 10;
		if (!opt.nchunk)
			opt.chunks[opt.nchunk++] = 64 << 10;
		opt.runs = opt.runs < 3 ? opt.runs : 3;
		opt.run_s = 0.005;
	}
	if (!opt.nk) {
		opt.ks[0] = 4, opt.ks[1] = 10, opt.ks[2] = 22;
		opt.nk = 3;
	}
	if (!opt.nchunk) {
		opt.chunks[0] = 4 << 10, opt.chunks[1] = 64 << 10, opt.chunks[2] = 1 << 20;
		opt.nchunk = 3;
	}
	for (int i = 0; i < OP_N; i++)
		opt.op_on[i] |= !any_op;
	for (int i = 0; i < MODE_N; i++)
		opt.mode_on[i] |= !any_mode;
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	FILE *info = opt.json ? stderr : stdout;

	build_sources();
	if (!nsources && !opt.startup) {
		fprintf(stderr, PROG ": nothing to measure\n");
		return 2;
	}
	fprintf(info,
		"parity variant: %s (%s); streaming: %s (its shape by k and chunk: the bands)\n",
		pq_best_name(), pq_best_why(), pq_streaming(pq_best())->name);
	if (!opt.json && pool_len == 0 && opt.mode_on[MODE_STREAM] && nsources)
		printf("stream pool: %zu MiB\n", (opt.pool ? opt.pool : default_pool()) >> 20);
	if (nsources)
		run_all();
	if (opt.json)
		print_json();
	else if (nsources)
		print_table();
	if (opt.startup)
		print_startup();
	return 0;
}
