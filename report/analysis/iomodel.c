/* report/analysis/iomodel.c: what one volume I/O costs the members, from the level and the geometry
 * alone: the same choice of strategy the engine and md make (docs/raid56.md), counted per
 * 4 KiB page row as md's stripe heads are. The engine's stats give the measured counts; this
 * model carries them to another member count (a projection) and stands in where no stats
 * exist (md, a published figure). Its assumptions are in docs/report.md, "The model". */
#include "report/analysis/analysis.h"

#include <math.h>
#include <string.h>

#include "raid/core/raid.h"

#define PAGE 4096.0

/* % of reads in a test: read 100, write 0; the mixes as their job files set rwmixread
 * (workloads/mr-oltp-4k.fio 70, mr-seq-mix.fio 50, fio's default 50). */
int rr_rw_mix(const char *rw, const char *workload)
{
	if (!strcmp(rw, "read") || !strcmp(rw, "randread"))
		return 100;
	if (!strcmp(rw, "write") || !strcmp(rw, "randwrite"))
		return 0;
	return workload && strstr(workload, "OLTP") ? 70 : 50;
}

static void add(struct rr_ioc *o, const struct rr_ioc *x, double w)
{
	o->reads += w * x->reads;
	o->writes += w * x->writes;
	o->read_bytes += w * x->read_bytes;
	o->write_bytes += w * x->write_bytes;
	o->parity_in += w * x->parity_in;
	o->parity_out += w * x->parity_out;
}

static long gcd(long a, long b)
{
	while (b) {
		long t = a % b;
		a = b;
		b = t;
	}
	return a > 0 ? a : 1;
}

/* A write of bs bytes at a chunk-aligned offset of a stripe row (k data chunks, p parity). */
static void parity_write(int n, int p, double c, double bs, struct rr_ioc *o)
{
	int k = n - p;
	if (bs < c) {
		/* one chunk, bs/PAGE page rows: per row 1 data page and p parity pages written;
		 * read-modify-write reads the old data and parity (1 + p), reconstruct-write the
		 * k - 1 other data pages; the fewer reads win (md's rmw_level 1) */
		int rmw = 1 + p, rcw = k - 1, reads = rmw < rcw ? rmw : rcw;
		o->strategy = k == 1 ? "full-stripe" : rmw < rcw ? "rmw" : "rcw";
		o->reads = reads;
		o->writes = 1 + p;
		o->read_bytes = reads;
		o->write_bytes = 1 + p;
		o->parity_in =
		    rmw < rcw ? 2 + p : k; /* old and new data and old parity, or the row */
		o->parity_out = p;
		return;
	}
	/* D whole chunks, starting at chunk s of a row: a run of such I/Os (sequential, or
	 * random at multiples of bs) starts at every multiple of gcd(D, k) in turn, so the
	 * figures are the mean over those starts. Each row the I/O covers is written whole
	 * (full stripe: nothing read) or in part (r chunks: the cheaper of RMW and RCW). */
	long D = (long)floor(bs / c), g = gcd(D, k);
	double reads = 0, writes = 0, rb = 0, wb = 0, pin = 0, pout = 0;
	int nstarts = 0, full = 0, rmw_rows = 0, rcw_rows = 0;
	for (long s0 = 0; s0 < k; s0 += g, nstarts++) {
		double rd = 0, wr = 0;
		for (long left = D, s = s0; left > 0; s = 0) {
			long r = left < k - s ? left : k - s;
			left -= r;
			if (r == k) {
				full++;
				wr += n;
				pin += k;
			} else {
				long rmw = r + p, rcw = k - r;
				rmw < rcw ? rmw_rows++ : rcw_rows++;
				rd += rmw < rcw ? rmw : rcw;
				wr += r + p;
				pin += rmw < rcw ? 2 * r + p : k;
			}
			pout += p;
		}
		rb += rd;
		wb += wr;
		/* pieces on one member in consecutive rows are contiguous: at most one I/O
		 * per member and direction */
		reads += rd < n ? rd : n;
		writes += wr < n ? wr : n;
	}
	o->strategy = !rmw_rows && !rcw_rows ? "full-stripe"
		      : full		     ? "mixed"
		      : rmw_rows && rcw_rows ? "mixed"
		      : rmw_rows	     ? "rmw"
					     : "rcw";
	o->reads = reads / nstarts;
	o->writes = writes / nstarts;
	o->read_bytes = rb * c / nstarts / bs;
	o->write_bytes = wb * c / nstarts / bs;
	o->parity_in = pin * c / nstarts / bs;
	o->parity_out = pout * c / nstarts / bs;
}

/* Reads or writes without parity over `width` members holding distinct data. */
static void striped(int width, int copies, double c, double bs, int write, struct rr_ioc *o)
{
	double touched = bs < c ? 1 : fmin(floor(bs / c), width);
	o->strategy = copies > 1 && write ? "mirror" : write ? "stripe" : "read";
	if (write) {
		o->writes = touched * copies;
		o->write_bytes = copies;
	} else {
		o->reads = touched;
		o->read_bytes = 1;
	}
}

static int one_way(int level, int n, long chunk, long bs, int write, struct rr_ioc *o)
{
	double c = chunk > 0 ? (double)chunk : (double)rr_default_chunk(), b = (double)bs;
	memset(o, 0, sizeof(*o));
	switch (level) {
	case -1: /* JBOD: one drive per I/O */
		striped(1, 1, b, b, write, o);
		return 0;
	case 0:
		striped(n, 1, c, b, write, o);
		return 0;
	case 1:
		if (write)
			striped(1, n, b, b, 1, o);
		else
			striped(1, 1, b, b, 0, o);
		return 0;
	case 10: /* near2: two copies of each chunk */
		striped(n / 2, write ? 2 : 1, c, b, write, o);
		return 0;
	case 5:
	case 6: {
		int p = rr_level_parity(level);
		if (n < p + 1)
			return -1;
		if (write)
			parity_write(n, p, c, b, o);
		else
			striped(n - p, 1, c, b, 0, o);
		return 0;
	}
	default:
		return -1;
	}
}

/* Optimal-state member work of one volume I/O of bs bytes (mix_read_pct % of them reads);
 * -1 for a level or geometry the model does not know. */
int rr_io_model(int level, int members, long chunk, long bs, const char *rw, int mix_read_pct,
		struct rr_ioc *out)
{
	struct rr_ioc r, w;
	memset(out, 0, sizeof(*out));
	if (bs <= 0 || members <= 0)
		return -1;
	if (mix_read_pct < 0)
		mix_read_pct = rr_rw_mix(rw, NULL);
	if (one_way(level, members, chunk, bs, 0, &r) || one_way(level, members, chunk, bs, 1, &w))
		return -1;
	if (mix_read_pct >= 100) {
		*out = r;
		return 0;
	}
	if (mix_read_pct <= 0) {
		*out = w;
		return 0;
	}
	add(out, &r, mix_read_pct / 100.0);
	add(out, &w, 1 - mix_read_pct / 100.0);
	out->strategy = "mixed";
	return 0;
}

double rr_ioc_per_io(const struct rr_ioc *c, int large)
{
	return large ? c->read_bytes + c->write_bytes : c->reads + c->writes;
}
