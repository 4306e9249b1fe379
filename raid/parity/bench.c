/*
 * bench.c - raid-parity-bench: single-thread throughput of every parity variant (and ISA-L's
 * pq_gen, and read-XOR bandwidth figures of the cache and of memory) over a grid of ops, k,
 * chunk sizes and cache modes. In stream mode our variants run through their streaming twins
 * (pq_twin(), in the shape the streaming selection chose), as rebuild and scrub call them. The
 * selections' figures come first; --selection N checks that they are stable. Prints a table,
 * or with --json one JSON array of rows
 *   {"impl", "op", "k", "chunk", "mode", "gbps"}
 * where gbps counts data bytes per second (see docs/parity.md for what each op counts), the
 * median of several timed runs. Measurements are rows in one table (struct row) filled by
 * "sources" (struct source): another backend (CUDA) adds a source, not a new output path.
 */
#include <errno.h>
#include <getopt.h>
#include <immintrin.h>
#include <isa-l/raid.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pq.h"
#include "cuda/pq_gpu_bench.h"
#include "bench_select.h"

#define STR2(x) #x
#define STR(x) STR2(x)

#define PROG "raid-parity-bench"

enum op { OP_GEN, OP_RMW, OP_RECOV1, OP_RECOV2, OP_N };
static const char *const op_names[OP_N] = {"gen", "rmw", "recov1", "recov2"};
enum mode { MODE_HOT, MODE_STREAM, MODE_N };
static const char *const mode_names[MODE_N] = {"hot", "stream"};

struct row {
	char impl[32];
	enum op op;
	int k;
	size_t chunk;
	enum mode mode;
	double gbps;
};

static struct row *rows;
static size_t nrows, rows_cap;

static void add_row(const char *impl, enum op op, int k, size_t chunk, enum mode mode, double gbps)
{
	if (nrows == rows_cap) {
		rows_cap = rows_cap ? 2 * rows_cap : 256;
		rows = realloc(rows, rows_cap * sizeof(*rows));
		if (!rows) {
			fprintf(stderr, PROG ": out of memory\n");
			exit(1);
		}
	}
	struct row *r = &rows[nrows++];

	snprintf(r->impl, sizeof(r->impl), "%s", impl);
	r->op = op;
	r->k = k;
	r->chunk = chunk;
	r->mode = mode;
	r->gbps = gbps;
}

/* ---- options ---- */

#define MAX_LIST 16
static struct {
	bool json, quick;
	int ks[MAX_LIST], nk;
	size_t chunks[MAX_LIST];
	int nchunk;
	bool op_on[OP_N], mode_on[MODE_N];
	const char *impls[MAX_LIST];
	int nimpl; /* 0: every valid variant, isal and membw */
	int runs, selection;
	bool kept; /* --kept: --selection's runs measured as kept selections are */
	double run_s;
	size_t pool;
} opt;

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " PROG " [options]\n"
	    "Single-thread throughput of the RAID-5/6 parity variants, ISA-L's pq_gen and\n"
	    "read-XOR bandwidth figures of the cache (cachebw) and of memory (membw); gbps\n"
	    "counts data bytes per second, median of several runs.\n"
	    "  --json          print one JSON array of {impl, op, k, chunk, mode, gbps} rows\n"
	    "  --quick         k = 10, chunk 64k, fewer and shorter runs (a smoke run)\n"
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
	    "                  selected (gen through the selection's choice: each band's\n"
	    "                  winner, what a caller of the library runs)\n"
	    "                  (default: every one this CPU can run)\n"
	    "  --runs N        timed runs per row, the median is printed (default 5)\n"
	    "  --pool SIZE     stream pool size (default 4x the last-level cache, 256m..2g)\n"
	    "  --selection N   run the hot and the streaming selection N times and say whether\n"
	    "                  they are stable: the same choice each time, or every choice\n"
	    "                  within 3%% of the fastest candidate (medians over the N runs);\n"
	    "                  exit status 1 when not\n"
	    "  --kept          with --selection: each run measured as a kept selection is\n"
	    "                  (RAID_PARITY_SELECTION): the medians of %d selections\n"
	    "  --help          this text\n"
	    "LIST is comma-separated. RAID_PARITY_IMPL=<name> forces the selection;\n"
	    "RAID_PARITY_SELECTION=FILE reads it from FILE, or measures it (the medians of %d)\n"
	    "and keeps it there (--selection always measures afresh).\n",
	    PQ_MAX_DATA, PQ_KEEP_RUNS, PQ_KEEP_RUNS);
}

static void die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, " (see --help)\n");
	exit(2);
}

/* "64k", "1m", "4096": bytes, or 0 when malformed */
static size_t parse_size(const char *s)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);

	if (errno || end == s || *s == '-')
		return 0;
	unsigned long long mul = 1;

	switch (*end) {
	case 'k':
	case 'K':
		mul = 1ull << 10, end++;
		break;
	case 'm':
	case 'M':
		mul = 1ull << 20, end++;
		break;
	case 'g':
	case 'G':
		mul = 1ull << 30, end++;
		break;
	}
	if (*end == 'i' && mul > 1)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > (1ull << 40) / mul)
		return 0;
	return (size_t)(v * mul);
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

static bool has_avx2(void)
{
	return __builtin_cpu_supports("avx2");
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
		O_SEL,
		O_KEPT
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
	    {"selection", required_argument, NULL, O_SEL},
	    {"kept", no_argument, NULL, O_KEPT},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool any_op = false, any_mode = false;
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
		case O_SEL:
			opt.selection = parse_count("--selection", optarg, 2, 20);
			break;
		case O_KEPT:
			opt.kept = true;
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
	if (opt.kept && !opt.selection)
		die("--kept: only with --selection N%s%s", "", "");
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

/* ---- what is measured ---- */

struct source {
	const char *name;
	const struct pq_calls *pq; /* NULL for isal's raw pq_gen, cachebw and membw */
	bool (*has)(const struct source *s, enum op op, enum mode mode);
	void (*call)(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
		     void **ptrs);
};

static bool pq_has(const struct source *s, enum op op, enum mode mode)
{
	return true;
}

/* stream: cold stripes whose outputs go to devices, so the caller asks for the twin */
static void pq_call(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
		    void **ptrs)
{
	const struct pq_calls *c = mode == MODE_STREAM ? pq_twin(s->pq) : s->pq;

	switch (op) {
	case OP_GEN:
		c->gen_pq(k, chunk, ptrs);
		break;
	case OP_RMW: /* a one-block write: old data out, new data in */
		c->xor_pq(k, k / 2, k / 2, chunk, ptrs);
		c->xor_pq(k, k / 2, k / 2, chunk, ptrs);
		break;
	case OP_RECOV1:
		pq_recov_1d_p(c, k, 0, chunk, ptrs);
		break;
	case OP_RECOV2:
		c->recov_2d(k, 0, k / 2, chunk, ptrs);
		break;
	default:
		break;
	}
}

static bool isal_has(const struct source *s, enum op op, enum mode mode)
{
	return op == OP_GEN;
}

static void isal_call(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
		      void **ptrs)
{
	pq_gen(k + 2, (int)chunk, ptrs);
}

/*
 * ISA-L's AVX2 code whatever this CPU has: read beside our avx2 it compares like with like,
 * as ISA-L's own dispatch would on an AVX2-only CPU (e.g. AMD Zen 3). The bench's blocks are
 * page-aligned and chunks are multiples of 64, as pq_gen_avx2 requires.
 */
static void isal_avx2_call(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
			   void **ptrs)
{
	pq_gen_avx2(k + 2, (int)chunk, ptrs);
}

/*
 * "selected": what a caller of the library runs, pq_best() hot and pq_streaming(pq_best())
 * streaming, that is each band's winner of the selection (pq_selected()), ISA-L's included:
 * the row that says whether the library is ever slower than ISA-L at a given k and chunk.
 */
static void selected_call(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
			  void **ptrs)
{
	(mode == MODE_STREAM ? pq_streaming(pq_best()) : pq_best())->gen_pq(k, chunk, ptrs);
}

static bool membw_has(const struct source *s, enum op op, enum mode mode)
{
	return op == OP_GEN && mode == MODE_STREAM;
}

static bool cachebw_has(const struct source *s, enum op op, enum mode mode)
{
	return op == OP_GEN && mode == MODE_HOT;
}

static volatile uint64_t membw_sink;

__attribute__((target("avx2"))) static uint64_t read_xor_avx2(const uint8_t *p, size_t n)
{
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;

	for (size_t o = 0; o < n; o += 128) {
		a0 = _mm256_xor_si256(a0, _mm256_load_si256((const __m256i *)(p + o)));
		a1 = _mm256_xor_si256(a1, _mm256_load_si256((const __m256i *)(p + o + 32)));
		a2 = _mm256_xor_si256(a2, _mm256_load_si256((const __m256i *)(p + o + 64)));
		a3 = _mm256_xor_si256(a3, _mm256_load_si256((const __m256i *)(p + o + 96)));
	}
	a0 = _mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3));
	return (uint64_t)_mm256_extract_epi64(a0, 0) ^ (uint64_t)_mm256_extract_epi64(a0, 3);
}

__attribute__((target("avx512f"))) static uint64_t read_xor_avx512(const uint8_t *p, size_t n)
{
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;

	for (size_t o = 0; o < n; o += 256) {
		a0 = _mm512_xor_si512(a0, _mm512_load_si512((const void *)(p + o)));
		a1 = _mm512_xor_si512(a1, _mm512_load_si512((const void *)(p + o + 64)));
		a2 = _mm512_xor_si512(a2, _mm512_load_si512((const void *)(p + o + 128)));
		a3 = _mm512_xor_si512(a3, _mm512_load_si512((const void *)(p + o + 192)));
	}
	a0 = _mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3));
	return (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(a0));
}

static uint64_t read_xor_scalar(const uint8_t *p, size_t n)
{
	uint64_t a = 0;

	for (size_t o = 0; o < n; o += 8)
		a ^= *(const uint64_t *)(p + o);
	return a;
}

/* the k data blocks of a pool stripe are contiguous: one sequential read of k * chunk bytes */
static void membw_call(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
		       void **ptrs)
{
	size_t n = (size_t)k * chunk;

	if (__builtin_cpu_supports("avx2") && n % 128 == 0)
		membw_sink ^= read_xor_avx2(ptrs[0], n);
	else
		membw_sink ^= read_xor_scalar(ptrs[0], n);
}

/*
 * The hot stripe's k data blocks, contiguous and in L2 after the first call, as one sequential
 * read with the widest vectors this CPU has: the most one core pulls from that cache level, the
 * ceiling of gen hot, which reads the same bytes as k interleaved streams. (membw keeps AVX2:
 * from DRAM the width does not matter, and run.sh records that figure as it was.)
 */
static void cachebw_call(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
			 void **ptrs)
{
	size_t n = (size_t)k * chunk;

	if (__builtin_cpu_supports("avx512f") && n % 256 == 0)
		membw_sink ^= read_xor_avx512(ptrs[0], n);
	else
		membw_call(s, op, mode, k, chunk, ptrs);
}

#define MAX_SOURCES 16
static struct source sources[MAX_SOURCES];
static int nsources;

static void add_source(struct source s)
{
	if (nsources < MAX_SOURCES)
		sources[nsources++] = s;
}

static bool impl_wanted(const char *name)
{
	if (!opt.nimpl)
		return true;
	for (int i = 0; i < opt.nimpl; i++)
		if (strcmp(opt.impls[i], name) == 0)
			return true;
	return false;
}

static void build_sources(void)
{
	for (int i = 0; pq_all_calls[i]; i++) {
		const struct pq_calls *c = pq_all_calls[i];

		if (!c->valid() || !impl_wanted(c->name))
			continue;
		if (strcmp(c->name, "isal") == 0) /* rmw/recovery there are ours: only gen */
			add_source((struct source){"isal", NULL, isal_has, isal_call});
		else
			add_source((struct source){c->name, c, pq_has, pq_call});
	}
	if (impl_wanted("selected"))
		add_source((struct source){"selected", NULL, isal_has, selected_call});
	if (has_avx2() && impl_wanted("isal-avx2"))
		add_source((struct source){"isal-avx2", NULL, isal_has, isal_avx2_call});
	if (impl_wanted("cachebw"))
		add_source((struct source){"cachebw", NULL, cachebw_has, cachebw_call});
	if (impl_wanted("membw"))
		add_source((struct source){"membw", NULL, membw_has, membw_call});
}

/* ---- buffers and timing ---- */

/*
 * The thread's CPU time, as the selection's (pq_select.c). For one thread that never sleeps it is
 * the wall clock (which the engine's parity_ns is, and run.sh gates the engine's parity rate
 * against this bench's membw figure) minus the time the scheduler gave to other processes: on
 * this shared 2-core machine, at a load of 13, the wall clock put ISA-L's streaming gen at 0.39
 * GB/s beside our 2.32 in one row group.
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *map_filled(size_t n)
{
	uint8_t *p = pq_map_huge(n);

	if (!p) {
		fprintf(stderr, PROG ": cannot map %zu MiB: %s\n", n >> 20, strerror(errno));
		exit(1);
	}
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (size_t o = 0; o < n; o += 8) { /* touch every page; random-ish bytes */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		memcpy(p + o, &x, 8);
	}
	return p;
}

static size_t default_pool(void)
{
	long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	long avail = sysconf(_SC_AVPHYS_PAGES) * sysconf(_SC_PAGESIZE);
	size_t pool = llc > 0 ? 4 * (size_t)llc : 256u << 20;

	if (pool < (256u << 20))
		pool = 256u << 20;
	if (pool > (2048u << 20))
		pool = 2048u << 20;
	if (avail > 0 && pool > (size_t)avail / 4)
		pool = (size_t)avail / 4;
	return pool;
}

static uint8_t *pool_mem;
static size_t pool_len, pool_cursor;

/* data bytes one call processes: what gbps counts */
static double call_bytes(enum op op, int k, size_t chunk)
{
	return op == OP_RMW ? (double)chunk : (double)k * chunk;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Stream: before every timed run, an untimed read of a buffer of twice the last-level cache
 * (apart from the pool), so that the dirty lines the previous run left in the cache are written
 * back before this run is timed, not during it, and no stripe of the pool is left in the cache:
 * each run pays for its own writes only. Without it (the first round) a row measured 10-35%
 * lower or higher depending on the row before it.
 */
static uint8_t *flush_mem;
static size_t flush_len;

static void flush_caches(void)
{
	membw_sink ^= __builtin_cpu_supports("avx2") ? read_xor_avx2(flush_mem, flush_len)
						     : read_xor_scalar(flush_mem, flush_len);
}

/*
 * Every source of one row (op, k, chunk, mode): opt.runs timed runs each, at least opt.run_s
 * long, interleaved (run 1 of every source, then run 2, ...) so that a change in the load of the
 * machine lands on all of them alike and the ratios within the row group stay fair (rows timed
 * one after the other moved 20% against each other between runs here); g[i] = source i's
 * median in GB/s, -1 when it has nothing to measure.
 */
static void measure_group(const struct source *const *ss, int n, enum op op, int k, size_t chunk,
			  enum mode mode, uint8_t *hot, double *g)
{
	size_t stripe = (size_t)(k + 2) * chunk;
	size_t nstripes = mode == MODE_STREAM ? pool_len / stripe : 1;
	static double rates[MAX_SOURCES][101];
	void *ptrs[PQ_MAX_DATA + 2];
	/* calls between two readings of the clock: the thread's CPU clock costs 0.7 us a reading
	 * here, as long as a hot k = 4 gen of 4 KiB blocks (it made those rows a third of their
	 * speed); a MiB of data between readings keeps it below 2% */
	size_t per = (size_t)k * chunk;
	int batch = per >= (1u << 20) ? 1 : (int)((1u << 20) / per);

	for (int i = 0; i < n; i++)
		g[i] = -1;
	if (!nstripes)
		return;
	for (int r = 0; r < opt.runs; r++) {
		for (int i = 0; i < n; i++) {
			const struct source *s = ss[i];
			double bytes = 0, t0, t;

			for (int j = 0; j < k + 2; j++)
				ptrs[j] = hot + (size_t)j * chunk;
			if (mode == MODE_STREAM)
				flush_caches();
			else
				s->call(s, op, mode, k, chunk,
					ptrs); /* the stripe into its cache state */
			t0 = now_s();
			do {
				for (int q = 0; q < batch; q++) {
					if (mode == MODE_STREAM) { /* walk on; the pool is far
								      larger than the LLC */
						uint8_t *base =
						    pool_mem + (pool_cursor++ % nstripes) * stripe;

						for (int j = 0; j < k + 2; j++)
							ptrs[j] = base + (size_t)j * chunk;
					}
					s->call(s, op, mode, k, chunk, ptrs);
				}
				bytes += batch * call_bytes(op, k, chunk);
			} while ((t = now_s() - t0) < opt.run_s);
			rates[i][r] = bytes / t / 1e9;
		}
	}
	for (int i = 0; i < n; i++) {
		qsort(rates[i], opt.runs, sizeof(rates[i][0]), cmp_double);
		g[i] = rates[i][opt.runs / 2];
	}
}

static void run_all(void)
{
	bool any_stream = false;

	for (int si = 0; si < nsources; si++)
		for (int op = 0; op < OP_N; op++)
			any_stream |= opt.op_on[op] && opt.mode_on[MODE_STREAM] &&
				      sources[si].has(&sources[si], op, MODE_STREAM);
	if (any_stream) {
		long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);

		pool_len = opt.pool ? opt.pool : default_pool();
		pool_mem = map_filled(pool_len);
		flush_len = llc > 0 && 2 * (size_t)llc > (64u << 20) ? 2 * (size_t)llc : 64u << 20;
		flush_mem = map_filled(flush_len);
		/* the first pass over fresh pages ran 30-40% slow here: not in any row */
		membw_sink ^= read_xor_scalar(pool_mem, pool_len);
	}
	for (int ki = 0; ki < opt.nk; ki++) {
		for (int ci = 0; ci < opt.nchunk; ci++) {
			int k = opt.ks[ki];
			size_t chunk = opt.chunks[ci];
			size_t hot_len = ((size_t)(k + 2) * chunk + 4095) & ~(size_t)4095;
			uint8_t *hot = map_filled(hot_len);

			for (int mode = 0; mode < MODE_N; mode++) {
				if (!opt.mode_on[mode])
					continue;
				for (int op = 0; op < OP_N; op++) {
					const struct source *ss[MAX_SOURCES];
					double g[MAX_SOURCES];
					int n = 0;

					if (!opt.op_on[op])
						continue;
					for (int si = 0; si < nsources; si++)
						if (sources[si].has(&sources[si], op, mode))
							ss[n++] = &sources[si];
					measure_group(ss, n, op, k, chunk, mode, hot, g);
					for (int i = 0; i < n; i++)
						if (g[i] >= 0)
							add_row(ss[i]->name, op, k, chunk, mode,
								g[i]);
				}
			}
			munmap(hot, hot_len);
		}
	}
}

/* ---- output ---- */

static const struct row *find_row(const char *impl, enum op op, int k, size_t chunk, enum mode mode)
{
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		if (!strcmp(r->impl, impl) && r->op == op && r->k == k && r->chunk == chunk &&
		    r->mode == mode)
			return r;
	}
	return NULL;
}

static void print_json(void)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "impl", json_object_new_string(r->impl));
		json_object_object_add(o, "op", json_object_new_string(op_names[r->op]));
		json_object_object_add(o, "k", json_object_new_int(r->k));
		json_object_object_add(o, "chunk", json_object_new_int64((int64_t)r->chunk));
		json_object_object_add(o, "mode", json_object_new_string(mode_names[r->mode]));
		json_object_object_add(o, "gbps", json_object_new_double(r->gbps));
		json_object_array_add(arr, o);
	}
	if (impl_wanted("cuda")) /* GPU rows (docs/gpu.md), when a GPU is present */
		pq_gpu_bench_rows(arr, NULL, opt.quick);
	puts(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
}

/* the fastest of our own kernels (not ISA-L, not a reference) in a k = 10, 64K gen row */
static const struct row *best_own(enum mode mode)
{
	const struct row *best = NULL;

	for (int i = 0; pq_all_calls[i]; i++) {
		const struct row *r = find_row(pq_all_calls[i]->name, OP_GEN, 10, 64 << 10, mode);

		if (r && pq_all_calls[i] != pq_find("isal") && (!best || r->gbps > best->gbps))
			best = r;
	}
	return best;
}

static void target(const char *what, const struct row *a, const struct row *b, double want)
{
	if (!a || !b || b->gbps <= 0)
		return;
	double x = a->gbps / b->gbps;

	printf("| %-44s | %-18s %6.2f | %-9s %6.2f | %5.2fx | >= %.1fx | %-3s |\n", what, a->impl,
	       a->gbps, b->impl, b->gbps, x, want, x >= want ? "met" : "no");
}

/* a selection's choice in one line: what won each band and by how much against the reference */
static void print_choice(const struct pq_selection *sel)
{
	if (sel->forced || sel->best < 0) {
		printf("%s selection: %s (forced by RAID_PARITY_IMPL)\n", pq_use_name(sel->use),
		       sel->chosen->name);
		return;
	}
	printf("%s selection won by:", pq_use_name(sel->use));
	for (int b = 0; b < sel->nbands; b++) {
		const struct pq_candidate *c = &sel->cand[sel->band[b].best];

		printf("%s k = %d %zuK %s %.2fx %s", b ? ";" : "", c->k, c->len >> 10, c->name,
		       c->rel, sel->cand[sel->band[b].ref].name);
	}
	printf(" (the selection's median ratios; %.0f ms of CPU)\n", sel->cpu_s * 1e3);
}

/*
 * "Never slower than ISA-L": the selected row against ISA-L's pq_gen at every k and chunk of the
 * run, with the band's winner, which is what a call of that k and chunk runs.
 */
static void print_selected(void)
{
	bool any = false;

	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i], *isal;

		if (strcmp(r->impl, "selected") || r->op != OP_GEN ||
		    !(isal = find_row("isal", OP_GEN, r->k, r->chunk, r->mode)) || isal->gbps <= 0)
			continue;
		if (!any)
			printf("selected (each band's winner) against ISA-L's pq_gen, gen:\n"
			       "| %3s | %8s | %-6s | %-24s | %8s | %8s | %6s |\n",
			       "k", "chunk", "mode", "runs", "GB/s", "isal", "ratio");
		any = true;
		printf("| %3d | %7zuK | %-6s | %-24s | %8.2f | %8.2f | %5.2fx |\n", r->k,
		       r->chunk >> 10, mode_names[r->mode],
		       pq_selected(r->mode == MODE_HOT ? PQ_USE_HOT : PQ_USE_STREAM, r->k, r->chunk)
			   ->name,
		       r->gbps, isal->gbps, r->gbps / isal->gbps);
	}
}

/* the variants a CPU may lack, and what they need: their rows say so instead of a figure */
static const struct {
	const char *name, *needs;
} wide[] = {{"avx512", "AVX-512 F/BW/VL"}, {"avx512gfni", "AVX-512 F/BW/VL and GFNI"}};

/* the targets of issue 18 as ratios within this run, at the geometry they name */
static void print_targets(const struct pq_selection *stream_sel)
{
	int k = 10;
	size_t ch = 64 << 10;
	const struct row *own_hot = best_own(MODE_HOT), *own_stream = best_own(MODE_STREAM);

	printf("targets at k = %d, chunk 64K (ours = our fastest own kernel; streaming: through "
	       "its twin):\n",
	       k);
	printf("| %-44s | %-25s | %-16s | %-6s | %-7s | %-3s |\n", "figure", "ours GB/s",
	       "ISA-L / ref GB/s", "ratio", "target", "met");
	target("gen, data in cache", own_hot, find_row("isal", OP_GEN, k, ch, MODE_HOT), 1.0);
	target("gen, from memory (streaming)", own_stream,
	       find_row("isal", OP_GEN, k, ch, MODE_STREAM), 1.2);
	target("gen, streaming, avx2 vs ISA-L's avx2", find_row("avx2", OP_GEN, k, ch, MODE_STREAM),
	       find_row("isal-avx2", OP_GEN, k, ch, MODE_STREAM), 1.2);
	target("streaming gen / read-XOR memory bandwidth", own_stream,
	       find_row("membw", OP_GEN, k, ch, MODE_STREAM), 0.8);
	for (int m = 0; m < MODE_N; m++) {
		const struct row *g = m == MODE_HOT ? own_hot : own_stream;

		if (g) {
			char what[48];

			snprintf(what, sizeof(what), "recov2 / gen, %s", mode_names[m]);
			target(what, find_row(g->impl, OP_RECOV2, k, ch, m), g, 0.5);
		}
	}
	for (size_t w = 0; w < sizeof(wide) / sizeof(wide[0]); w++) {
		char what[48];

		if (!pq_find(wide[w].name)) {
			printf(
			    "| %-44s | unavailable: this CPU does not report %s (a hypervisor can "
			    "hide them); no figure |\n",
			    wide[w].name, wide[w].needs);
			continue;
		}
		snprintf(what, sizeof(what), "gen, data in cache, %s", wide[w].name);
		target(what, find_row(wide[w].name, OP_GEN, k, ch, MODE_HOT),
		       find_row("isal", OP_GEN, k, ch, MODE_HOT), 1.0);
		snprintf(what, sizeof(what), "gen, streaming, %s", wide[w].name);
		target(what, find_row(wide[w].name, OP_GEN, k, ch, MODE_STREAM),
		       find_row("isal", OP_GEN, k, ch, MODE_STREAM), 1.2);
	}
	print_choice(pq_selection(PQ_USE_HOT));
	if (stream_sel)
		print_choice(stream_sel);
	print_selected();
}

/* the row of the variant a call of the row's k and chunk runs (its band's winner) */
static bool is_selected(const struct row *r)
{
	enum pq_use u = r->mode == MODE_HOT ? PQ_USE_HOT : PQ_USE_STREAM;

	if (!pq_selection_ran(u) || r->op != OP_GEN)
		return false;
	const char *w = pq_selected(u, r->k, r->chunk)->name;
	size_t n = u == PQ_USE_HOT ? strlen(w) : strcspn(w, "-"); /* avx2-stream: the avx2 row */

	return strlen(r->impl) == n && strncmp(r->impl, w, n) == 0;
}

static void print_table(const struct pq_selection *stream_sel)
{
	printf("%-11s %-7s %3s %8s %-6s %9s\n", "impl", "op", "k", "chunk", "mode", "GB/s");
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		char cs[32];

		if (r->chunk % (1 << 20) == 0)
			snprintf(cs, sizeof(cs), "%zuM", r->chunk >> 20);
		else if (r->chunk % 1024 == 0)
			snprintf(cs, sizeof(cs), "%zuK", r->chunk >> 10);
		else
			snprintf(cs, sizeof(cs), "%zu", r->chunk);
		printf("%-11s %-7s %3d %8s %-6s %9.2f%s\n", r->impl, op_names[r->op], r->k, cs,
		       mode_names[r->mode], r->gbps, is_selected(r) ? "  *" : "");
	}
	printf("(* gen: the band's winner, what a call of that k and chunk runs, isal for "
	       "isal-stream; gbps = data bytes per second, median of %d runs)\n",
	       opt.runs);
	print_targets(stream_sel);
	if (impl_wanted("cuda"))
		pq_gpu_bench_rows(NULL, stdout, opt.quick);
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	const char *force = getenv("RAID_PARITY_IMPL");
	const char *sel = pq_best_name();
	FILE *info = opt.json ? stderr : stdout;

	if (opt.selection)
		return bench_selection_check(opt.selection, opt.kept, stdout) ? 0 : 1;
	build_sources();
	if (!nsources) {
		fprintf(stderr, PROG ": nothing to measure\n");
		return 2;
	}
	bool variants = false; /* the streaming selection runs only when a variant streams */
	const struct pq_selection *st = NULL;

	for (int i = 0; i < nsources; i++)
		variants |=
		    (sources[i].pq || sources[i].call == selected_call) && opt.mode_on[MODE_STREAM];
	fprintf(info, "parity variant selected: %s (%s)", sel,
		force && *force ? "RAID_PARITY_IMPL" : "fastest by timing");
	if (variants) {
		st = pq_selection(PQ_USE_STREAM);
		fprintf(info, ", streaming: %s", st->chosen->name);
	}
	fprintf(info, "\n");
	pq_selection_print(info, pq_selection(PQ_USE_HOT));
	if (variants)
		pq_selection_print(info, pq_selection(PQ_USE_STREAM));
	if (!opt.json && pool_len == 0 && opt.mode_on[MODE_STREAM])
		printf("stream pool: %zu MiB\n", (opt.pool ? opt.pool : default_pool()) >> 20);
	run_all();
	if (opt.json)
		print_json();
	else
		print_table(st);
	return 0;
}
