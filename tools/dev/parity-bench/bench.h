/*
 * bench.h - raid-parity-bench's parts, shared between its files: the options (bench.c), the
 * sources that are measured (bench_sources.c), the timed runs that fill the table of rows
 * (bench_run.c) and the output made from the rows (bench_report.c: the bands, the rule's pick
 * against the fastest and against ISA-L, and the start-up cost of a parity array in fio). Every
 * figure is a row; another backend (CUDA) adds a source, not a new output path.
 */
#ifndef TOOLS_DEV_PARITY_BENCH_H
#define TOOLS_DEV_PARITY_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parity/pq.h"

#define PROG "raid-parity-bench"

enum op { OP_GEN, OP_RMW, OP_RECOV1, OP_RECOV2, OP_N };
enum mode { MODE_HOT, MODE_STREAM, MODE_N };
extern const char *const op_names[OP_N];     /* "gen", "rmw", "recov1", "recov2" */
extern const char *const mode_names[MODE_N]; /* "hot", "stream" */

/* the command line (bench.c) */
#define MAX_LIST 16
struct bench_opt {
	bool json, quick;
	int ks[MAX_LIST], nk;
	size_t chunks[MAX_LIST];
	int nchunk;
	bool op_on[OP_N], mode_on[MODE_N];
	const char *impls[MAX_LIST];
	int nimpl; /* 0: every valid variant, isal and membw */
	int runs;
	bool shapes;  /* gen rows of every SIMD variant in every streaming shape */
	bool startup; /* the start-up cost of a RAID5 and a RAID0 fio run */
	double run_s;
	size_t pool;
};
extern struct bench_opt opt;

static inline bool has_avx2(void)
{
	return __builtin_cpu_supports("avx2");
}

/* what is measured (bench_sources.c): a variant, ISA-L's pq_gen, a read-XOR reference */
struct source {
	char name[32];
	const struct pq_calls *pq; /* NULL for isal's raw pq_gen, cachebw and membw */
	int shape;		   /* a variant in this streaming shape (pq_impl.h), or -1 */
	bool (*has)(const struct source *s, enum op op, enum mode mode, int k, size_t chunk);
	void (*call)(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
		     void **ptrs);
};
#define MAX_SOURCES 32
extern struct source sources[MAX_SOURCES];
extern int nsources;
/* the sources --impl asked for (all that this CPU can run without it) */
void build_sources(void);
bool impl_wanted(const char *name);
/* an XOR of n bytes at p (a multiple of 128), read with the widest loads membw uses */
uint64_t bench_read_xor(const uint8_t *p, size_t n);

/* the timed runs (bench_run.c): one row per source, op, k, chunk and mode */
struct row {
	char impl[32];
	enum op op;
	int k;
	size_t chunk;
	enum mode mode;
	double gbps; /* data bytes per second / 1e9, the median of opt.runs runs */
};
extern struct row *rows;
extern size_t nrows;
extern size_t pool_len; /* the stream pool once run_all() mapped it, else 0 */
size_t default_pool(void);
void run_all(void);

/* the output (bench_report.c): the JSON array of rows, or the table with the bands */
void print_json(void);
void print_table(void);
/* the rule's pick for a row of this mode, k and chunk: "avx512gfni", "avx512gfni-stream none" */
const char *pick_name(enum mode mode, int k, size_t chunk);
/* the wall time of a one-write RAID5 and RAID0 fio run (bench_startup.c) */
void print_startup(void);

#endif
