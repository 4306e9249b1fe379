/*
 * pq_route.c - the selection in use. Once per process, at the first call that needs it, the hot
 * selection (pq_best()) and then the streaming one (pq_streaming(pq_best())) are measured or read
 * from the kept file (pq_select_use(), pq_select.c), or forced by RAID_PARITY_IMPL, logged with
 * RAID_PARITY_LOG, and installed: each band's winner into pq_route[], through which the routing
 * variants send a call of k and length to its band's winner when the bands chose differently.
 */
#include <stdio.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pq.h"
#include "pq_impl.h"

/* the band candidate c was timed in */
static int band_of(const struct pq_selection *s, int c)
{
	int b = 0;

	while (b + 1 < s->nbands &&
	       (s->band[b].k != s->cand[c].k || s->band[b].len != s->cand[c].len))
		b++;
	return b;
}

void pq_selection_print(FILE *f, const struct pq_selection *s)
{
	char from[160] = "", steady[48] = "";

	if (s->use == PQ_USE_HOT)
		snprintf(steady, sizeof(steady), ", those then in %d steady rounds", PQ_SEL_STEADY);
	if (s->kept) /* how it came to be, when kept in a file */
		snprintf(from, sizeof(from), "; %s %s, measured %s, medians of %d selections",
			 s->loaded ? "read from" : "kept in", s->kept, s->measured, s->runs);
	fprintf(
	    f,
	    "raid parity: %s selection (gen_pq, bands of k and block length, %d rounds, %d where "
	    "within %.0f%% of the best%s, by the median ratio to the round's reference, "
	    "ties within %.0f%% to the first listed; %.0f ms of CPU%s%s): %s%s%s\n",
	    pq_use_name(s->use), PQ_SEL_ROUNDS_FIRST, PQ_SEL_ROUNDS, PQ_SEL_CLOSE * 100, steady,
	    PQ_SEL_PREFER * 100, s->cpu_s * 1e3, s->loaded ? " then" : "", from, s->chosen->name,
	    s->forced ? " (forced by RAID_PARITY_IMPL=" : "", s->forced ? ")" : "");
	for (int c = 0; c < s->n; c++) {
		int b = band_of(s, c);
		char few[24] = ""; /* dropped after the first rounds: how many it was timed in */

		if (s->cand[c].rounds < s->runs * PQ_SEL_ROUNDS)
			snprintf(few, sizeof(few), " (%d rounds)", s->cand[c].rounds);
		else if (s->runs == 1 && s->cand[c].rounds > PQ_SEL_ROUNDS)
			snprintf(few, sizeof(few), " (steady)");
		fprintf(f, "raid parity:   k = %2d %5zuK  %-28s %7.2f GB/s %5.2fx %s%s%s\n",
			s->cand[c].k, s->cand[c].len >> 10, s->cand[c].name, s->cand[c].gbps,
			s->cand[c].rel, s->cand[s->band[b].ref].name, few,
			s->band[b].best == c ? "  chosen" : "");
	}
}

static bool log_on(void)
{
	const char *v = getenv("RAID_PARITY_LOG");

	return v && *v && strcmp(v, "0") != 0;
}

static struct pq_selection sel_hot, sel_stream;
static pthread_once_t once_hot = PTHREAD_ONCE_INIT, once_stream = PTHREAD_ONCE_INIT;

static bool ran_hot, ran_stream; /* set (release) once the selection is filled in */

const struct pq_selection *pq_selection_ran(enum pq_use use)
{
	if (use == PQ_USE_HOT)
		return __atomic_load_n(&ran_hot, __ATOMIC_ACQUIRE) ? &sel_hot : NULL;
	return __atomic_load_n(&ran_stream, __ATOMIC_ACQUIRE) ? &sel_stream : NULL;
}

/* ---- the routing variants: a call goes to its band's winner ---- */

const struct pq_calls *pq_route[2][PQ_SEL_BANDS];

static const struct pq_calls *route(enum pq_use use, int k, size_t len)
{
	return __atomic_load_n(&pq_route[use][pq_sel_band(k, len)], __ATOMIC_RELAXED);
}

#define ROUTED(u, tag)                                                                             \
	static void tag##_gen_p(int k, size_t len, void **ptrs)                                    \
	{                                                                                          \
		route(u, k, len)->gen_p(k, len, ptrs);                                             \
	}                                                                                          \
	static void tag##_gen_pq(int k, size_t len, void **ptrs)                                   \
	{                                                                                          \
		route(u, k, len)->gen_pq(k, len, ptrs);                                            \
	}                                                                                          \
	static void tag##_xor_p(int k, int a, int b, size_t len, void **ptrs)                      \
	{                                                                                          \
		route(u, k, len)->xor_p(k, a, b, len, ptrs);                                       \
	}                                                                                          \
	static void tag##_xor_pq(int k, int a, int b, size_t len, void **ptrs)                     \
	{                                                                                          \
		route(u, k, len)->xor_pq(k, a, b, len, ptrs);                                      \
	}                                                                                          \
	static void tag##_recov_2d(int k, int fa, int fb, size_t len, void **ptrs)                 \
	{                                                                                          \
		route(u, k, len)->recov_2d(k, fa, fb, len, ptrs);                                  \
	}                                                                                          \
	static void tag##_recov_dp(int k, int fa, size_t len, void **ptrs)                         \
	{                                                                                          \
		route(u, k, len)->recov_dp(k, fa, len, ptrs);                                      \
	}                                                                                          \
	static char tag##_name[PQ_SEL_BANDS * 24];                                                 \
	const struct pq_calls pq_calls_##tag = {                                                   \
	    .name = tag##_name,                                                                    \
	    .valid = route_valid,                                                                  \
	    .gen_p = tag##_gen_p,                                                                  \
	    .gen_pq = tag##_gen_pq,                                                                \
	    .xor_p = tag##_xor_p,                                                                  \
	    .xor_pq = tag##_xor_pq,                                                                \
	    .recov_2d = tag##_recov_2d,                                                            \
	    .recov_dp = tag##_recov_dp,                                                            \
	};

static int route_valid(void)
{
	return 1; /* its routes are valid variants */
}

ROUTED(PQ_USE_HOT, route_hot)
ROUTED(PQ_USE_STREAM, route_stream)

/*
 * Puts s in use: each band's winner into pq_route, and s->chosen the one winner of all bands, or
 * the routing variant named after the distinct winners in pq_all_calls[]'s order ("avx2+isal",
 * "avx2-stream+isal-stream"), the same name whichever band each won.
 */
static void install(struct pq_selection *s)
{
	const struct pq_calls *rv =
	    s->use == PQ_USE_HOT ? &pq_calls_route_hot : &pq_calls_route_stream;
	char *name = s->use == PQ_USE_HOT ? route_hot_name : route_stream_name;
	size_t size = sizeof(route_hot_name), used = 0;
	bool one = true;

	for (int b = 0; b < PQ_SEL_BANDS; b++) {
		__atomic_store_n(&pq_route[s->use][b], s->band[b].calls, __ATOMIC_RELAXED);
		one &= s->band[b].calls == s->band[0].calls;
	}
	for (int i = 0; pq_all_calls[i] && used < size; i++) {
		const struct pq_calls *v =
		    s->use == PQ_USE_HOT ? pq_all_calls[i] : pq_twin(pq_all_calls[i]);
		bool won = false;

		for (int b = 0; b < PQ_SEL_BANDS; b++)
			won |= s->band[b].calls == v;
		if (won)
			used +=
			    snprintf(name + used, size - used, "%s%s", used ? "+" : "", v->name);
	}
	s->chosen = one ? s->band[0].calls : rv;
}

/* forced or out of memory: one variant for every band */
static void install_one(struct pq_selection *s, const struct pq_calls *c)
{
	for (int b = 0; b < PQ_SEL_BANDS; b++)
		s->band[b].calls = c;
	install(s);
}

const struct pq_calls *pq_selected(enum pq_use use, int k, size_t len)
{
	pq_selection(use);
	return route(use, k, len);
}

static void choose_hot(void)
{
	const char *force = getenv("RAID_PARITY_IMPL");

	if (force && *force) {
		const struct pq_calls *c = pq_find(force);

		if (c) { /* forced: nothing timed */
			memset(&sel_hot, 0, sizeof(sel_hot));
			sel_hot.use = PQ_USE_HOT;
			sel_hot.forced = c->name;
			sel_hot.best = -1;
			install_one(&sel_hot, c);
			__atomic_store_n(&ran_hot, true, __ATOMIC_RELEASE);
			return;
		}
		fprintf(stderr,
			"raid parity: RAID_PARITY_IMPL=%s is unknown or not supported on this CPU; "
			"choosing by timing\n",
			force);
	}
	if (pq_select_use(PQ_USE_HOT, &sel_hot)) {
		install_one(&sel_hot, &pq_calls_base); /* out of memory: base needs no probe */
	} else {
		install(&sel_hot);
	}
	__atomic_store_n(&ran_hot, true, __ATOMIC_RELEASE);
	if (log_on())
		pq_selection_print(stderr, &sel_hot);
}

static void choose_stream(void)
{
	const struct pq_calls *hot = pq_best();

	if (pq_select_use(PQ_USE_STREAM, &sel_stream)) {
		install_one(&sel_stream, pq_twin(hot)); /* out of memory: the default shapes */
		__atomic_store_n(&ran_stream, true, __ATOMIC_RELEASE);
		return;
	}
	if (sel_hot.forced) {
		sel_stream.forced = hot->name;
		install_one(&sel_stream, pq_twin(hot));
	} else {
		install(&sel_stream);
	}
	__atomic_store_n(&ran_stream, true, __ATOMIC_RELEASE);
	if (log_on())
		pq_selection_print(stderr, &sel_stream);
}

const struct pq_selection *pq_selection(enum pq_use use)
{
	if (use == PQ_USE_HOT) {
		pthread_once(&once_hot, choose_hot);
		return &sel_hot;
	}
	pthread_once(&once_stream, choose_stream);
	return &sel_stream;
}

const struct pq_calls *pq_best(void)
{
	return pq_selection(PQ_USE_HOT)->chosen;
}

const char *pq_best_name(void)
{
	return pq_best()->name;
}
