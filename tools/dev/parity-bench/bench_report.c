/*
 * bench_report.c - raid-parity-bench's output from its rows: the JSON array, or the table with
 * the rule's pick marked, then the bands: for each mode, k and chunk of the run, the rule's pick
 * against the fastest row of the band and against ISA-L's pq_gen, and whether it meets the
 * floor (docs/parity.md, "The rule").
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "parity/cuda/pq_gpu_bench.h"
#include "parity/pq_impl.h"

/* the floor of issue 34: the pick within 10% of the fastest and of ISA-L in every band */
#define FLOOR 0.9

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

void print_json(void)
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

const char *pick_name(enum mode mode, int k, size_t chunk)
{
	static char name[48];
	const struct pq_calls *c = pq_best();

	if (mode == MODE_HOT)
		return c->name;
	if (!pq_family_of(c)) /* base, isal: no shapes */
		return pq_streaming(c)->name;
	snprintf(name, sizeof(name), "%s %s", pq_streaming(c)->name,
		 pq_shapes[pq_shape_of(k, chunk, true)].name);
	return name;
}

/* a row of what is measured, not a reference */
static bool candidate(const struct row *r)
{
	static const char *const refs[] = {"cachebw", "membw", "isal-avx2"};

	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		if (!strcmp(r->impl, refs[i]))
			return false;
	return true;
}

/* r runs the pick's code: "selected", the pick's own row, the pick in the rule's shape */
static bool runs_pick(const struct row *r)
{
	char shaped[48];

	snprintf(shaped, sizeof(shaped), "%s/%s", pq_best_name(),
		 pq_shapes[pq_shape_of(r->k, r->chunk, r->mode == MODE_STREAM)].name);
	return r->op == OP_GEN && (!strcmp(r->impl, "selected") ||
				   !strcmp(r->impl, pq_best_name()) || !strcmp(r->impl, shaped));
}

/*
 * The bands, gen only: the rule's pick against the fastest row of another kernel and against
 * ISA-L's pq_gen. The pick is timed in two or three rows that run the same code ("selected",
 * its own row, its row in the rule's shape): its figure is the best of them, as the fastest is
 * the best of the others, and their spread (best / worst) is how far this run's noise alone
 * moved one kernel's figure. A band whose gap to the fastest is within that spread is marked
 * so: the runs could not tell the two apart.
 */
static void print_bands(void)
{
	int n = 0, met = 0, noise = 0;

	for (size_t i = 0; i < nrows; i++) {
		const struct row *p = &rows[i], *best = NULL, *isal;
		double pick = 0, low = 0;

		if (strcmp(p->impl, "selected") || p->op != OP_GEN)
			continue;
		for (size_t j = 0; j < nrows; j++) {
			const struct row *r = &rows[j];

			if (r->op != OP_GEN || r->k != p->k || r->chunk != p->chunk ||
			    r->mode != p->mode || !candidate(r))
				continue;
			if (runs_pick(r)) {
				pick = r->gbps > pick ? r->gbps : pick;
				low = !low || r->gbps < low ? r->gbps : low;
			} else if (!best || r->gbps > best->gbps) {
				best = r;
			}
		}
		if (!best || best->gbps <= 0 || low <= 0)
			continue;
		isal = find_row("isal", OP_GEN, p->k, p->chunk, p->mode);
		if (!n++)
			printf("bands, gen: the rule's pick (the best of its rows) against the "
			       "fastest "
			       "other row and ISA-L's pq_gen (floor: >= %.1fx of both; spread: the "
			       "pick's rows, best / worst)\n"
			       "| %-6s | %3s | %6s | %-26s | %6s | %6s | %-20s | %6s | %7s | %6s | "
			       "%7s | %-5s |\n",
			       FLOOR, "mode", "k", "chunk", "pick", "GB/s", "spread",
			       "fastest other", "GB/s", "/fastest", "isal", "/isal", "floor");
		/* judged as printed, to the hundredth */
		double f = round(100 * pick / best->gbps) / 100,
		       vi = isal && isal->gbps > 0 ? round(100 * pick / isal->gbps) / 100 : 1;
		bool ok = f >= FLOOR && vi >= FLOOR;
		bool within = !ok && pick / low >= 1 / (f < vi ? f : vi);

		met += ok;
		noise += within;
		printf("| %-6s | %3d | %5zuK | %-26s | %6.2f | %5.2fx | %-20s | %6.2f | %7.2fx | "
		       "%6.2f | %6.2fx | %-5s |\n",
		       mode_names[p->mode], p->k, p->chunk >> 10,
		       pick_name(p->mode, p->k, p->chunk), pick, pick / low, best->impl, best->gbps,
		       f, isal ? isal->gbps : 0, vi,
		       ok	? "met"
		       : within ? "noise"
				: "MISS");
	}
	if (n)
		printf("%d of %d bands meet the floor; %d more miss it by less than the pick's own "
		       "spread in this run (noise: run again)\n",
		       met, n, noise);
}

/* the row of the variant a call of the row's k and chunk runs */
static bool is_pick(const struct row *r)
{
	return r->op == OP_GEN && !strcmp(r->impl, pq_best_name());
}

void print_table(void)
{
	printf("%-20s %-7s %3s %8s %-6s %9s\n", "impl", "op", "k", "chunk", "mode", "GB/s");
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		char cs[32];

		if (r->chunk % (1 << 20) == 0)
			snprintf(cs, sizeof(cs), "%zuM", r->chunk >> 20);
		else if (r->chunk % 1024 == 0)
			snprintf(cs, sizeof(cs), "%zuK", r->chunk >> 10);
		else
			snprintf(cs, sizeof(cs), "%zu", r->chunk);
		printf("%-20s %-7s %3d %8s %-6s %9.2f%s\n", r->impl, op_names[r->op], r->k, cs,
		       mode_names[r->mode], r->gbps, is_pick(r) ? "  *" : "");
	}
	printf("(* gen: the rule's pick; gbps = data bytes per second, median of %d runs)\n",
	       opt.runs);
	print_bands();
	if (impl_wanted("cuda"))
		pq_gpu_bench_rows(NULL, stdout, opt.quick);
}
