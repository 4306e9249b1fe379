/*
 * bench_run.c - raid-parity-bench's timed runs: the buffers (the hot stripe, the stream pool far
 * larger than the last-level cache, the buffer that flushes the caches between stream runs),
 * the thread's CPU clock, and every row group timed in interleaved runs, one row per source.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

const char *const op_names[OP_N] = {"gen", "rmw", "recov1", "recov2"};
const char *const mode_names[MODE_N] = {"hot", "stream"};
static volatile uint64_t run_sink; /* what the untimed reads XOR to: never optimised away */

struct row *rows;
size_t nrows;
static size_t rows_cap;

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

/*
 * The thread's CPU time. For one thread that never sleeps it is
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

size_t default_pool(void)
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
static size_t pool_cursor;
size_t pool_len;

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
	run_sink ^= bench_read_xor(flush_mem, flush_len);
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

void run_all(void)
{
	bool any_stream = false;

	for (int si = 0; si < nsources; si++)
		for (int op = 0; op < OP_N; op++)
			any_stream |= opt.op_on[op] && opt.mode_on[MODE_STREAM] &&
				      sources[si].has(&sources[si], op, MODE_STREAM, 4, 4096);
	if (any_stream) {
		long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);

		pool_len = opt.pool ? opt.pool : default_pool();
		pool_mem = map_filled(pool_len);
		flush_len = llc > 0 && 2 * (size_t)llc > (64u << 20) ? 2 * (size_t)llc : 64u << 20;
		flush_mem = map_filled(flush_len);
		/* the first pass over fresh pages ran 30-40% slow here: not in any row */
		run_sink ^= bench_read_xor(pool_mem, pool_len);
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
						if (sources[si].has(&sources[si], op, mode, k,
								    chunk))
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
