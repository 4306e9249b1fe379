/*
 * pq_rule.c - which variant and which streaming shape this CPU runs, by its features alone, as
 * ISA-L's dispatch chooses: no timing, no file, a few cpuid instructions once per process.
 *
 * The variant: the first of avx512gfni, avx512, avx2, base that the CPU runs. A wider kernel was
 * nowhere measured slower than a narrower one beyond the noise, and ISA-L is not in the order:
 * raid-parity-bench prints, band by band, the pick against the fastest kernel and against ISA-L
 * (docs/parity.md, "The rule", has the figures and the bands where ISA-L is close).
 *
 * The shape of a streaming loop (PQ_SHAPES, pq_impl.h) is the one parameter that differs
 * between cores rather than ISAs. On the Zen 5 the hardware prefetchers alone (none) win up to
 * k = 15 (k = 10, 64 KiB: none 20-28 GB/s, every software prefetch 14-20) and with 4 KiB blocks,
 * while from k = 16 with longer blocks prefetching into L2 (l2-2k) reads the many streams
 * faster (k = 22 and 30, 64 KiB: 17-20 GB/s against 13-17). On a Zen 4 and the Xeons,
 * prefetching into L2 and L1 (l12-1l) won at k >= 7 (1.15-1.9x ISA-L) while at k <= 6 none kept
 * up as well as any. A hot stripe past L2 (the size rule) sits in L3, where prefetching it as a
 * cold one lost on every core measured. docs/parity.md has the figures.
 */
#include <cpuid.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq.h"
#include "pq_impl.h"

/* AMD's family 1Ah: Zen 5 (the one family measured with this rule) */
#define AMD_ZEN5_FAMILY 0x1a

static const struct pq_calls *best_rule, *best;
static const char *best_why;
static bool zen5; /* the streaming shape's rule: Zen 5's, or the others' */
static pthread_once_t once = PTHREAD_ONCE_INIT;
int pq_shape_forced = -1;

/* AMD family 1Ah: the Zen 5 shapes */
static bool amd_zen5(void)
{
	unsigned int a, b, c, d;
	char vendor[13];

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return false;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (strcmp(vendor, "AuthenticAMD") || !__get_cpuid(1, &a, &b, &c, &d))
		return false;
	unsigned int family = (a >> 8) & 0xf;

	if (family == 0xf)
		family += (a >> 20) & 0xff;
	return family == AMD_ZEN5_FAMILY;
}

static bool log_on(void)
{
	const char *v = getenv("RAID_PARITY_LOG");

	return v && *v && strcmp(v, "0") != 0;
}

/* the twin's shape for k blocks of len bytes, once choose() has run */
static int stream_shape(int k, size_t len)
{
	if (zen5)
		return k > 15 && len > 16384 ? PQ_SHAPE_L2_2K : PQ_SHAPE_NONE;
	return k <= 6 ? PQ_SHAPE_NONE : PQ_SHAPE_L12_1L;
}

/* the twin's shapes in words, for the log and the stats */
static void shapes_text(char *buf, size_t n)
{
	if (zen5)
		snprintf(buf, n, "shape %s, k > 15 with blocks over 16 KiB %s (AMD Zen 5)",
			 pq_shapes[stream_shape(4, 4096)].name,
			 pq_shapes[stream_shape(22, 65536)].name);
	else
		snprintf(buf, n, "shape %s at k <= 6, %s above",
			 pq_shapes[stream_shape(4, 4096)].name,
			 pq_shapes[stream_shape(10, 65536)].name);
}

static void choose(void)
{
	static const struct {
		const struct pq_calls *c;
		const char *why;
	} order[] = {
	    {&pq_calls_avx512gfni, "AVX-512 F/BW/VL + GFNI"},
	    {&pq_calls_avx512, "AVX-512 F/BW/VL"},
	    {&pq_calls_avx2, "AVX2"},
	    {&pq_calls_base, "no AVX2"},
	};
	const char *force = getenv("RAID_PARITY_IMPL");
	const struct pq_calls *c;
	size_t i = 0;

	while (!order[i].c->valid()) /* base is always valid */
		i++;
	best_rule = c = order[i].c;
	best_why = order[i].why;
	zen5 = amd_zen5();
	if (force && *force) {
		if (pq_find(force)) {
			c = pq_find(force);
			best_why = "forced by RAID_PARITY_IMPL";
		} else {
			fprintf(stderr,
				"raid parity: RAID_PARITY_IMPL=%s is unknown or not supported on "
				"this CPU; using the rule's %s\n",
				force, c->name);
		}
	}
	if (log_on()) {
		char shapes[96];

		shapes_text(shapes, sizeof(shapes));
		fprintf(stderr, "raid parity: %s (%s); streaming: %s, %s\n", c->name, best_why,
			pq_twin(c)->name, shapes);
	}
	__atomic_store_n(&best, c, __ATOMIC_RELEASE); /* pq_selection_json() reads it unlocked */
}

const struct pq_calls *pq_best(void)
{
	pthread_once(&once, choose);
	return best;
}

const char *pq_best_name(void)
{
	return pq_best()->name;
}

const char *pq_best_why(void)
{
	pq_best();
	return best_why;
}

const struct pq_calls *pq_best_native(void)
{
	pq_best();
	return best_rule;
}

const struct pq_calls *pq_streaming(const struct pq_calls *c)
{
	return pq_twin(c);
}

int pq_shape_of(int k, size_t len, bool stream)
{
	int f = __atomic_load_n(&pq_shape_forced, __ATOMIC_RELAXED);

	if (f >= 0)
		return f;
	if (!stream)
		return PQ_SHAPE_NONE;
	pthread_once(&once, choose);
	return stream_shape(k, len);
}

static json_object *choice_obj(const struct pq_calls *c, const char *why)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "chosen", json_object_new_string(c->name));
	json_object_object_add(o, "why", json_object_new_string(why));
	return o;
}

struct json_object *pq_selection_json(void)
{
	const struct pq_calls *c = __atomic_load_n(&best, __ATOMIC_ACQUIRE);
	char why[160], shapes[96];
	json_object *o;

	if (!c) /* not chosen yet: nothing is started here */
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "hot", choice_obj(c, best_why));
	shapes_text(shapes, sizeof(shapes));
	snprintf(why, sizeof(why), "%s's twin, %s", c->name, shapes);
	json_object_object_add(o, "streaming", choice_obj(pq_twin(c), why));
	return o;
}
