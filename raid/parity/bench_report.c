/*
 * bench_report.c - raid-parity-bench's output from its rows: the JSON array, or the table with
 * each band's winner marked, the targets of issue 18 as ratios within this run, the selections'
 * choices, and the "selected" row against ISA-L's pq_gen at every k and chunk.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cuda/pq_gpu_bench.h"

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

/*
 * One target: a against b, and the ceiling: the ratio a would reach at the read-XOR bandwidth of
 * the same data in this run (cap: cachebw hot, membw streaming; NULL where none applies). gen
 * reads every data byte, so it does not run faster than that, and a target above the ceiling
 * cannot be met in this run, whatever the kernel (on the Zen 5 ISA-L streamed at up to 0.85x of
 * membw, where 1.2x of it is 1.02x of membw: docs/parity.md).
 */
static void target(const char *what, const struct row *a, const struct row *b, double want,
		   const struct row *cap)
{
	if (!a || !b || b->gbps <= 0)
		return;
	double x = a->gbps / b->gbps;
	char ceil[16] = "-";

	if (cap && cap->gbps > 0)
		snprintf(ceil, sizeof(ceil), "%.2fx", cap->gbps / b->gbps);
	printf("| %-44s | %-18s %6.2f | %-9s %6.2f | %5.2fx | >= %.1fx | %7s | %-3s |\n", what,
	       a->impl, a->gbps, b->impl, b->gbps, x, want, ceil, x >= want ? "met" : "no");
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
	const struct row *cache = find_row("cachebw", OP_GEN, k, ch, MODE_HOT),
			 *mem = find_row("membw", OP_GEN, k, ch, MODE_STREAM);

	printf("| %-44s | %-25s | %-16s | %-6s | %-7s | %-7s | %-3s |\n", "figure", "ours GB/s",
	       "ISA-L / ref GB/s", "ratio", "target", "ceiling", "met");
	target("gen, data in cache", own_hot, find_row("isal", OP_GEN, k, ch, MODE_HOT), 1.0,
	       cache);
	target("gen, from memory (streaming)", own_stream,
	       find_row("isal", OP_GEN, k, ch, MODE_STREAM), 1.2, mem);
	target("gen, streaming, avx2 vs ISA-L's avx2", find_row("avx2", OP_GEN, k, ch, MODE_STREAM),
	       find_row("isal-avx2", OP_GEN, k, ch, MODE_STREAM), 1.2, mem);
	target("streaming gen / read-XOR memory bandwidth", own_stream, mem, 0.8, NULL);
	for (int m = 0; m < MODE_N; m++) {
		const struct row *g = m == MODE_HOT ? own_hot : own_stream;

		if (g) {
			char what[48];

			snprintf(what, sizeof(what), "recov2 / gen, %s", mode_names[m]);
			target(what, find_row(g->impl, OP_RECOV2, k, ch, m), g, 0.5, NULL);
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
		       find_row("isal", OP_GEN, k, ch, MODE_HOT), 1.0, cache);
		snprintf(what, sizeof(what), "gen, streaming, %s", wide[w].name);
		target(what, find_row(wide[w].name, OP_GEN, k, ch, MODE_STREAM),
		       find_row("isal", OP_GEN, k, ch, MODE_STREAM), 1.2, mem);
	}
	if (cache || mem)
		printf(
		    "(ceiling: the ratio at the read-XOR bandwidth of the same data in this run, "
		    "cachebw hot, membw streaming; gen reads every data byte, so a target above it "
		    "cannot be met in this run)\n");
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

void print_table(const struct pq_selection *stream_sel)
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
