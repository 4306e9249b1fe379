/*
 * bench_sources.c - what raid-parity-bench measures, each a source of rows: every parity variant
 * valid here (stream mode through its twin, as rebuild and scrub call it), each SIMD variant's gen
 * in every streaming shape ("avx2/none"), ISA-L's pq_gen with its own dispatch and its AVX2 code
 * alone, "selected" (the rule's pick, what a caller runs), and the read-XOR references of the cache
 * (cachebw, gen hot's ceiling) and of memory (membw, gen stream's ceiling).
 */
#include <immintrin.h>
#include <isa-l/raid.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "parity/pq_impl.h"

static bool pq_has(const struct source *s, enum op op, enum mode mode, int k, size_t chunk)
{
	return true;
}

/* a shape matters where the loop streams: a twin, or a hot stripe past L2 (the size rule) */
static bool shape_has(const struct source *s, enum op op, enum mode mode, int k, size_t chunk)
{
	return op == OP_GEN && (mode == MODE_STREAM || (size_t)(k + 2) * chunk > pq_stream_min());
}

/* stream: cold stripes whose outputs go to devices, so the caller asks for the twin */
static void pq_call(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
		    void **ptrs)
{
	const struct pq_calls *c = mode == MODE_STREAM ? pq_twin(s->pq) : s->pq;

	if (s->shape >= 0)
		__atomic_store_n(&pq_shape_forced, s->shape, __ATOMIC_RELAXED);
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
	if (s->shape >= 0)
		__atomic_store_n(&pq_shape_forced, -1, __ATOMIC_RELAXED);
}

static bool isal_has(const struct source *s, enum op op, enum mode mode, int k, size_t chunk)
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
 * streaming, in the rule's shape: the row the band table sets against the fastest and ISA-L.
 */
static void selected_call(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
			  void **ptrs)
{
	(mode == MODE_STREAM ? pq_streaming(pq_best()) : pq_best())->gen_pq(k, chunk, ptrs);
}

static bool membw_has(const struct source *s, enum op op, enum mode mode, int k, size_t chunk)
{
	return op == OP_GEN && mode == MODE_STREAM;
}

static bool cachebw_has(const struct source *s, enum op op, enum mode mode, int k, size_t chunk)
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

uint64_t bench_read_xor(const uint8_t *p, size_t n)
{
	return has_avx2() && n % 128 == 0 ? read_xor_avx2(p, n) : read_xor_scalar(p, n);
}

/* the k data blocks of a pool stripe are contiguous: one sequential read of k * chunk bytes */
static void membw_call(const struct source *s, enum op op, enum mode mode, int k, size_t chunk,
		       void **ptrs)
{
	size_t n = (size_t)k * chunk;

	membw_sink ^= bench_read_xor(ptrs[0], n);
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

struct source sources[MAX_SOURCES];
int nsources;

static void add_source(const char *name, const struct pq_calls *pq, int shape,
		       bool (*has)(const struct source *, enum op, enum mode, int, size_t),
		       void (*call)(const struct source *, enum op, enum mode, int, size_t,
				    void **))
{
	struct source *s = &sources[nsources];

	if (nsources == MAX_SOURCES)
		return;
	nsources++;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->pq = pq;
	s->shape = shape;
	s->has = has;
	s->call = call;
}

bool impl_wanted(const char *name)
{
	if (!opt.nimpl)
		return true;
	for (int i = 0; i < opt.nimpl; i++)
		if (strcmp(opt.impls[i], name) == 0)
			return true;
	return false;
}

void build_sources(void)
{
	for (int i = 0; pq_all_calls[i]; i++) {
		const struct pq_calls *c = pq_all_calls[i];

		if (!c->valid() || !impl_wanted(c->name))
			continue;
		if (strcmp(c->name, "isal") == 0) /* rmw/recovery there are ours: only gen */
			add_source("isal", NULL, -1, isal_has, isal_call);
		else
			add_source(c->name, c, -1, pq_has, pq_call);
	}
	for (int f = 0; opt.shapes && pq_families[f]; f++) {
		const struct pq_calls *c = pq_families[f]->variant;

		for (int sh = 0; sh < PQ_NSHAPES && c->valid() && impl_wanted(c->name); sh++) {
			char name[32];

			snprintf(name, sizeof(name), "%s/%s", c->name, pq_shapes[sh].name);
			add_source(name, c, sh, shape_has, pq_call);
		}
	}
	if (impl_wanted("selected"))
		add_source("selected", NULL, -1, isal_has, selected_call);
	if (has_avx2() && impl_wanted("isal-avx2"))
		add_source("isal-avx2", NULL, -1, isal_has, isal_avx2_call);
	if (impl_wanted("cachebw"))
		add_source("cachebw", NULL, -1, cachebw_has, cachebw_call);
	if (impl_wanted("membw"))
		add_source("membw", NULL, -1, membw_has, membw_call);
}
