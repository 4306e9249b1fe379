/* report/analysis/project.c: a measured test projected onto a host profile. The projection is the
 * least of the bounds its path meets there (drives, their links, the root ports, the link
 * between sockets, memory, CPU, the parity cores, the GPU link), each from the profile's
 * facts and the run's measured costs; the one that binds is named, with the margin to the
 * next. The same bounds without the CPU test a published figure against its own hardware
 * (rr_proj_flag). Every input and formula: docs/report.md, "The model". */
#include "report/analysis/analysis.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const rr_bound_names[RR_NBOUNDS] = {"drives",	"drive links", "root ports",
						"inter-socket", "memory",      "cpu",
						"parity",	"gpu link",    "concurrency"};
enum { B_DRIVES, B_DLINK, B_PORTS, B_SOCKET, B_MEM, B_CPU, B_PARITY, B_GPU, B_CONC };

/* GB/s one way of a PCIe link: lanes x the generation's rate after line coding (Gen3 onward
 * 128b/130b); protocol overhead is not taken off, so this is the link's upper bound. */
double rr_pcie_gbps(json_object *link)
{
	static const double lane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.877};
	double gen = rr_jnum(rr_jget(link, "gen")), width = rr_jnum(rr_jget(link, "width"));
	if (!(gen >= 1 && gen <= 6) || !(width >= 1))
		return NAN;
	return lane[(int)gen] * width;
}

/* ---- profile facts ---- */

static json_object *run_profile_content(const struct rr_run *run)
{
	return rr_jget(rr_jget(run->run_json, "profile"), "content");
}

static int profile_cores(json_object *prof)
{
	json_object *nodes = rr_jget(prof, "numa_nodes");
	double sum = 0;
	for (size_t i = 0; nodes && i < json_object_array_length(nodes); i++) {
		double c = rr_jnum(rr_jget(json_object_array_get_idx(nodes, i), "cores"));
		if (isnan(c))
			return -1;
		sum += c;
	}
	if (sum > 0)
		return (int)sum;
	double cps = rr_jnum(rr_jget(rr_jget(prof, "cpu"), "cores_per_socket"));
	double s = rr_jnum(rr_jget(prof, "sockets"));
	return cps > 0 && s > 0 ? (int)(cps * s) : -1;
}

static json_object *drive_spec(json_object *prof, json_object *bay)
{
	return rr_jget(rr_jget(prof, "drives"), rr_jstr(rr_jget(bay, "drive")));
}

static int socket_of_node(json_object *prof, int node)
{
	json_object *nodes = rr_jget(prof, "numa_nodes");
	for (size_t i = 0; nodes && i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i);
		if ((int)rr_jnum(rr_jget(n, "node")) == node)
			return (int)rr_jnum(rr_jget(n, "socket"));
	}
	return -1;
}

/* ---- the bounds ---- */

static void bound(struct rr_proj *p, int i, double v, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void bound(struct rr_proj *p, int i, double v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->b[i].how, sizeof(p->b[i].how), fmt, ap);
	va_end(ap);
	p->b[i].name = rr_bound_names[i];
	p->b[i].value = isfinite(v) && v > 0 ? v : NAN;
}

/* MB/s of the volume -> the projection's unit */
static double from_mbps(const struct rr_proj *p, double mbps)
{
	return p->large ? mbps : mbps * 1e6 / (double)p->bs;
}

static double from_iops(const struct rr_proj *p, double iops)
{
	return p->large ? iops * (double)p->bs / 1e6 : iops;
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static void b_drives(struct rr_proj *p, json_object *prof, const struct rr_test *jbod)
{
	const struct rr_ioc *c = &p->io;
	int n = p->members * p->arrays;
	if (jbod) {
		/* this machine: a member's rate is what the run's JBOD got from each member */
		double per = rr_primary(jbod) / jbod->members, need = rr_ioc_per_io(c, p->large);
		bound(p, B_DRIVES, n * per / need,
		      "%d members x %.4g %s each (run: %s / %d) / %.3g member %s per volume %s", n,
		      per, p->unit, jbod->test, jbod->members, need, p->large ? "bytes" : "I/Os",
		      p->large ? "byte" : "I/O");
		return;
	}
	json_object *bays = rr_jget(prof, "bays");
	json_object *d = drive_spec(prof, bays ? json_object_array_get_idx(bays, 0) : NULL);
	const char *r_key = p->large ? "seq_read_mbps" : "rand_read_4k_iops";
	const char *w_key = p->large ? "seq_write_mbps" : "rand_write_4k_iops";
	double r = rr_jnum(rr_jget(d, r_key)), w = rr_jnum(rr_jget(d, w_key));
	double rn = p->large ? c->read_bytes : c->reads, wn = p->large ? c->write_bytes : c->writes;
	if ((rn > 0 && isnan(r)) || (wn > 0 && isnan(w)) || (!p->large && p->bs > 4096)) {
		bound(p, B_DRIVES, NAN, "drive spec has no %s", rn > 0 && isnan(r) ? r_key : w_key);
		return;
	}
	double t = (rn > 0 ? rn / r : 0) + (wn > 0 ? wn / w : 0);
	bound(p, B_DRIVES, n / t, "%d drives / (%.3g %s / %.0f + %.3g %s / %.0f)", n, rn,
	      p->large ? "read MB" : "reads", r, wn, p->large ? "write MB" : "writes", w);
}

/* The bays a projection's members sit in: the layout rule's, else the first n of the
 * profile, as run.sh maps members to bays. */
static size_t used_bays(json_object *prof, json_object *ids, int n, json_object **out, size_t max)
{
	json_object *bays = rr_jget(prof, "bays");
	size_t k = 0;
	for (size_t i = 0; ids && i < json_object_array_length(ids) && k < max; i++) {
		int id = json_object_get_int(json_object_array_get_idx(ids, i));
		for (size_t j = 0; bays && j < json_object_array_length(bays); j++)
			if ((int)rr_jnum(rr_jget(json_object_array_get_idx(bays, j), "bay")) == id)
				out[k++] = json_object_array_get_idx(bays, j);
	}
	if (ids)
		return k;
	for (size_t i = 0; bays && i < json_object_array_length(bays) && k < (size_t)n && k < max;
	     i++)
		out[k++] = json_object_array_get_idx(bays, i);
	return k;
}

/* Member bytes each way per volume byte through a link behind which the RAID runs on the host
 * (all member traffic) or on a controller (the volume's bytes only). */
static double link_need(const struct rr_proj *p, int controller)
{
	if (controller) {
		int mix = rr_rw_mix(p->rw, NULL);
		return max2(mix / 100.0, 1 - mix / 100.0);
	}
	return max2(p->io.read_bytes, p->io.write_bytes);
}

static void b_links(struct rr_proj *p, json_object *prof, int hw_raid)
{
	json_object *bays[256];
	int n = p->members * p->arrays;
	size_t k = used_bays(prof, p->bays, n, bays, 256);
	if ((int)k < n) {
		bound(p, B_DLINK, NAN, "profile has %zu bays, not %d", k, n);
		bound(p, B_PORTS, NAN, "profile has %zu bays, not %d", k, n);
		bound(p, B_SOCKET, NAN, "profile has %zu bays, not %d", k, n);
		return;
	}
	double need = link_need(p, 0);
	double dl = rr_pcie_gbps(rr_jget(drive_spec(prof, bays[0]), "link"));
	if (isnan(dl))
		bound(p, B_DLINK, NAN, "drive link (gen, width) not in profile");
	else
		bound(p, B_DLINK, from_mbps(p, n * dl * 1000 / need),
		      "%d x %.2f GB/s / %.3g member bytes per volume byte (busier direction)", n,
		      dl, need);

	/* root ports: each carries its bays' share of the member traffic */
	json_object *ports = rr_jget(prof, "root_ports");
	double best = INFINITY;
	char how[240] = "";
	for (size_t i = 0; i < k; i++) {
		const char *rp = rr_jstr(rr_jget(bays[i], "root_port"));
		int cnt = 0, seen = 0;
		for (size_t j = 0; j < k; j++) {
			cnt += !strcmp(rr_jstr(rr_jget(bays[j], "root_port")), rp);
			seen |= j < i && !strcmp(rr_jstr(rr_jget(bays[j], "root_port")), rp);
		}
		if (seen)
			continue;
		json_object *port = rr_jget(ports, rp);
		double bw = rr_pcie_gbps(port);
		if (isnan(bw)) {
			best = NAN;
			snprintf(how, sizeof(how), "root port '%s': link not in profile", rp);
			break;
		}
		int ctl = hw_raid && rr_jget(port, "controller") &&
			  json_object_get_boolean(rr_jget(port, "controller"));
		double share = ctl ? 1 : (double)cnt / n;
		double v = bw * 1000 / (share * link_need(p, ctl));
		if (v < best) {
			best = v;
			snprintf(how, sizeof(how), "'%s' %.2f GB/s carries %d of %d bays%s", rp, bw,
				 cnt, n,
				 ctl ? " behind the controller: the volume's bytes only" : "");
		}
	}
	bound(p, B_PORTS, from_mbps(p, best), "%s", *how ? how : "no bays");

	/* sockets: with the buffers on the socket holding most bays, the others' traffic
	 * crosses the link between them */
	int per_socket[16] = {0}, most = 0;
	for (size_t i = 0; i < k; i++) {
		int s = socket_of_node(prof, (int)rr_jnum(rr_jget(bays[i], "numa_node")));
		if (s >= 0 && s < 16 && ++per_socket[s] > most)
			most = per_socket[s];
	}
	double f = 1 - (double)most / n, ic = rr_jnum(rr_jget(prof, "interconnect_gbps"));
	if (f <= 0)
		bound(p, B_SOCKET, NAN, "all %d bays on one socket: not crossed", n);
	else if (isnan(ic))
		bound(p, B_SOCKET, NAN,
		      "%.0f%% of the traffic crosses %s; its bandwidth is not in "
		      "the profile",
		      100 * f, rr_jstr(rr_jget(prof, "interconnect")));
	else
		bound(p, B_SOCKET, from_mbps(p, ic * 1000 / (f * need)),
		      "%.2f GB/s / (%.0f%% of bays on the other socket x %.3g)", ic, 100 * f, need);
}

static void b_memory(struct rr_proj *p, json_object *prof)
{
	const struct rr_ioc *c = &p->io;
	double bw = rr_jnum(rr_jget(prof, "memory_bw_gbps"));
	double per = c->read_bytes + c->write_bytes + c->parity_in + c->parity_out;
	if (isnan(bw))
		bound(p, B_MEM, NAN, "memory bandwidth not in profile");
	else
		bound(p, B_MEM, from_mbps(p, bw * 1000 / per),
		      "%.1f GB/s / %.3g bytes through memory per volume byte (member DMA + parity "
		      "in/out)",
		      bw, per);
}

static void b_cpu(struct rr_proj *p, int cores)
{
	if (cores <= 0) {
		bound(p, B_CPU, NAN, "core count not in profile");
		return;
	}
	if (isnan(p->cpu_us)) {
		bound(p, B_CPU, NAN, "no CPU time measured");
		return;
	}
	bound(p, B_CPU, from_iops(p, cores * 1e6 / p->cpu_us), "%d cores / %.3g us per I/O (%s)",
	      cores, p->cpu_us, p->cpu_source);
}

static void b_parity(struct rr_proj *p, int cores)
{
	/* bytes per volume I/O in the rate's own count: written ones for the bench's rmw */
	int mix = rr_rw_mix(p->rw, NULL);
	double in =
	    p->parity_rmw ? (1 - mix / 100.0) * (double)p->bs : p->io.parity_in * (double)p->bs;
	if (!(in > 0) || strcmp(p->path, "cpu")) {
		bound(p, B_PARITY, NAN, in > 0 ? "parity on the GPU" : "no parity work");
		return;
	}
	if (isnan(p->parity_gbps_core)) {
		bound(p, B_PARITY, NAN, "no parity rate measured");
		return;
	}
	if (p->parity_cores <= 0) {
		bound(p, B_PARITY, NAN, "parity cores not known: no job count or core count");
		return;
	}
	bound(p, B_PARITY, from_iops(p, p->parity_cores * p->parity_gbps_core * 1e9 / in),
	      "%d core%s x %.3g GB/s (%s) / %.0f %s bytes per I/O", p->parity_cores,
	      p->parity_cores > 1 ? "s" : "", p->parity_gbps_core, p->parity_source, in,
	      p->parity_rmw ? "written" : "parity input");
}

static void b_gpu(struct rr_proj *p, json_object *prof)
{
	const struct rr_ioc *c = &p->io;
	if (strcmp(p->path, "cuda") || !(c->parity_in > 0)) {
		bound(p, B_GPU, NAN, "no parity on a GPU");
		return;
	}
	json_object *g = rr_jget(prof, "gpu");
	double bw = rr_pcie_gbps(rr_jget(g, "pcie"));
	double need = max2(c->parity_in, c->parity_out);
	if (isnan(bw))
		bound(p, B_GPU, NAN, "GPU link not in profile");
	else
		bound(p, B_GPU, from_mbps(p, bw * 1000 / need),
		      "%s: %.2f GB/s / %.3g bytes to the GPU per volume byte (the data its parity "
		      "reads)",
		      rr_jstr(rr_jget(g, "model")), bw, need);
}

/* Little's law: no more than the I/Os in flight per latency. The latency is the measured
 * test's, scaled by its CPU time per I/O at the target; it carries only to the same number in
 * flight (the self-check): a run scaled down measures its own queueing, not the host's. */
static void b_concurrency(struct rr_proj *p, const struct rr_test *s, int inflight)
{
	int here = s->iodepth * s->numjobs;
	if (inflight != here || !(s->lat_mean_us > 0)) {
		bound(p, B_CONC, NAN, "latency measured at %d in flight here, not %d: not carried",
		      here, inflight);
		return;
	}
	double scale = p->cpu_us_src > 0 && p->cpu_us > 0 ? p->cpu_us / p->cpu_us_src : 1;
	double lat = s->lat_mean_us * scale;
	bound(p, B_CONC, from_iops(p, inflight * 1e6 / lat),
	      "%d in flight / %.4g us (%s's mean latency x %.3g, the CPU time ratio)", inflight,
	      lat, s->test, scale);
}

/* The least known bound (skipping CPU and parity when cpu_too is 0), and the next one. */
static void pick(struct rr_proj *p, int cpu_too, int *binding, int *next)
{
	*binding = *next = -1;
	for (int i = 0; i < RR_NBOUNDS; i++) {
		if (isnan(p->b[i].value) ||
		    (!cpu_too && (i == B_CPU || i == B_PARITY || i == B_CONC)))
			continue;
		if (*binding < 0 || p->b[i].value < p->b[*binding].value) {
			*next = *binding;
			*binding = i;
		} else if (*next < 0 || p->b[i].value < p->b[*next].value) {
			*next = i;
		}
	}
}

/* ---- the measured inputs ---- */

static double stats_num(const struct rr_test *t, const char *a, const char *b)
{
	return rr_jnum(rr_jget(rr_jget(t->stats_json, a), b));
}

static void cpu_inputs(struct rr_proj *p, const struct rr_test *s)
{
	json_object *hc = rr_jget(s->meta_json, "host_cpu");
	double busy = rr_jnum(rr_jget(hc, "user_s")) + rr_jnum(rr_jget(hc, "system_s")) +
		      rr_jnum(rr_jget(hc, "softirq_s")),
	       iv = rr_jnum(rr_jget(hc, "interval_s"));
	double fig_iops = s->iops;
	if (busy > 0 && iv > 0 && fig_iops > 0) {
		p->cpu_us_src = busy / iv / fig_iops * 1e6;
		p->cpu_source = "host_cpu: whole machine";
	} else {
		p->cpu_us_src = s->cpu_us_per_io;
		p->cpu_source = "fio usr+sys: job threads only";
	}
	double vol = stats_num(s, "volume", "reads") + stats_num(s, "volume", "writes");
	double pns = stats_num(s, "parity", "cpu_ns");
	p->parity_us_src = vol > 0 && pns >= 0 ? pns / vol / 1e3 : 0;
	double w = rr_jnum(rr_jget(s->stats_json, "stripe_lock_waits"));
	p->stripe_waits_per_io = vol > 0 && w >= 0 ? w / vol : NAN;
	if (isnan(p->parity_us_src))
		p->parity_us_src = 0;
}

/* Per-core parity rate: the run's parity-bench.json row of the engine's variant nearest the
 * stripe's k and chunk; when the bench has no row of that name (a routing variant such as
 * "avx2+isal", whose bands' winners differ) its "selected" row, which runs each band's
 * winner as the engine does; else another SIMD one (ISA-L has no rmw); else the test's own
 * parity bytes over parity CPU time. p->parity_rmw says which bytes the rate counts: the
 * bench's rmw rows count the written block, its gen rows and the stats the blocks read. */
static void parity_inputs(struct rr_proj *p, const struct rr_test *s, json_object *bench)
{
	int k = p->members - rr_level_parity(p->level);
	const char *impl = s->parity_impl ? s->parity_impl : "";
	const char *op = !strcmp(p->io.strategy, "rmw") ? "rmw" : "gen";
	double best = NAN, dist = INFINITY;
	long chunk = p->chunk < p->bs ? p->chunk : p->bs;
	for (size_t i = 0; bench && i < json_object_array_length(bench); i++) {
		json_object *r = json_object_array_get_idx(bench, i);
		const char *ri = rr_jstr(rr_jget(r, "impl"));
		if (strcmp(rr_jstr(rr_jget(r, "op")), op) ||
		    strcmp(rr_jstr(rr_jget(r, "mode")), "stream") || !strcmp(ri, "membw") ||
		    !strcmp(ri, "cachebw") || (!strcmp(ri, "base") && strcmp(impl, "base")))
			continue;
		double d =
		    (!strcmp(ri, impl)	       ? 0
		     : !strcmp(ri, "selected") ? 1e5
					       : 1e6) +
		    fabs(rr_jnum(rr_jget(r, "k")) - k) * 100 +
		    fabs(log2(rr_jnum(rr_jget(r, "chunk")) / (double)(chunk > 0 ? chunk : 65536)));
		if (d < dist) {
			dist = d;
			best = rr_jnum(rr_jget(r, "gbps"));
			p->parity_rmw = !strcmp(op, "rmw");
			snprintf(p->parity_source, sizeof(p->parity_source),
				 "parity-bench.json %s %s k=%.0f chunk %.0fk", ri, op,
				 rr_jnum(rr_jget(r, "k")), rr_jnum(rr_jget(r, "chunk")) / 1024);
		}
	}
	if (isnan(best) && s->parity_gbps > 0) {
		best = s->parity_gbps;
		p->parity_rmw = 0;
		snprintf(p->parity_source, sizeof(p->parity_source), "stats of %s", s->test);
	}
	p->parity_gbps_core = best;
}

static const char *target_of(const struct rr_test *t)
{
	const char *s = rr_jstr(rr_jget(t->meta_json, "target"));
	if (*s)
		return s;
	return strcmp(rr_level_name(t), "jbod") ? "engine" : "jbod";
}

static int pub_is_gpu(const struct rr_pub *pub)
{
	return pub && !strcmp(pub->engine, "graid");
}

static int pub_is_hw_raid(const struct rr_pub *pub)
{
	return pub && !strcmp(pub->engine, "megaraid");
}

/* Array members of a published row: the profile's published_layouts rule for its source,
 * array and state (and workload, when the rule names one), e.g. review B's two 8-drive
 * arrays, else one array of all its drives. *bays: the rule's bays, NULL for the first ones. */
int rr_pub_layout(const struct rr_pub *p, json_object *prof, int *arrays, json_object **bays)
{
	json_object *rules = rr_jget(prof, "published_layouts");
	*arrays = 1;
	if (bays)
		*bays = NULL;
	for (size_t i = 0; rules && i < json_object_array_length(rules); i++) {
		json_object *r = json_object_array_get_idx(rules, i);
		if (strcmp(rr_jstr(rr_jget(r, "source")), p->source) ||
		    strcmp(rr_jstr(rr_jget(r, "array")), p->array) ||
		    strcmp(rr_jstr(rr_jget(r, "state")), p->state) ||
		    (*rr_jstr(rr_jget(r, "workload")) &&
		     strcmp(rr_jstr(rr_jget(r, "workload")), p->workload)))
			continue;
		*arrays =
		    rr_jnum(rr_jget(r, "arrays")) >= 1 ? (int)rr_jnum(rr_jget(r, "arrays")) : 1;
		if (bays)
			*bays = rr_jget(r, "bays");
		return rr_jnum(rr_jget(r, "members")) >= 1 ? (int)rr_jnum(rr_jget(r, "members"))
							   : p->drives;
	}
	return p->drives;
}

static const struct rr_test *jbod_for(const struct rr_run *run, const struct rr_test *s)
{
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *o = &run->tests[i];
		if (!strcmp(rr_level_name(o), "jbod") && o->members == s->members &&
		    !strcmp(o->workload, s->workload) && !strcmp(o->rw, s->rw) && o->bs == s->bs &&
		    !strcmp(o->state, "optimal"))
			return o;
	}
	return NULL;
}

void rr_project_one(struct rr_proj *p, const struct rr_run *run, const struct rr_test *s,
		    const struct rr_pub *pub, const struct rr_test *to, json_object *prof,
		    json_object *bench)
{
	memset(p, 0, sizeof(*p));
	p->pub = pub;
	p->src = s;
	p->actual = to;
	p->binding = p->next = -1;
	snprintf(p->target, sizeof(p->target), "%s", target_of(s));
	snprintf(p->profile, sizeof(p->profile), "%s", rr_jstr(rr_jget(prof, "name")));
	p->level = s->level < 0 || !strcmp(rr_level_name(s), "jbod") ? -1 : s->level;
	p->chunk = s->chunk;
	snprintf(p->rw, sizeof(p->rw), "%s", s->rw);
	if (pub) {
		p->members = rr_pub_layout(pub, prof, &p->arrays, &p->bays);
		p->bs = rr_pub_bs(pub);
		p->large = strcmp(pub->metric, "iops") != 0;
		p->published = pub->value;
	} else {
		p->members = to->members;
		p->arrays = 1;
		p->bs = to->bs;
		p->large = rr_is_large(to);
		/* to == s: the test at its own size on the profile, with nothing to set beside */
		p->published = to == s ? NAN : rr_primary(to);
	}
	snprintf(p->unit, sizeof(p->unit), "%s", p->large ? "MB/s" : "IOPS");
	snprintf(p->path, sizeof(p->path), "%s",
		 rr_level_parity(p->level) > 0 && !strcmp(s->parity, "cuda") ? "cuda" : "cpu");
	int mix = rr_rw_mix(s->rw, s->workload);
	rr_io_model(p->level, p->members, p->chunk, p->bs, s->rw, mix, &p->io);
	rr_io_model(p->level, s->members, s->chunk, s->bs, s->rw, mix, &p->io_src);
	if (!p->io.strategy)
		p->io.strategy = "unknown";
	p->io_src_measured = NAN;
	double vol = stats_num(s, "volume", "reads") + stats_num(s, "volume", "writes");
	if (vol > 0)
		p->io_src_measured =
		    (stats_num(s, "member_io", "reads") + stats_num(s, "member_io", "writes")) /
		    vol;

	cpu_inputs(p, s);
	/* CPU per I/O at the target: the parity part scales with the bytes parity reads, the
	 * rest with the member I/Os issued (both per volume I/O, from the model at each size) */
	double base = fmax(0, p->cpu_us_src - p->parity_us_src);
	double ios_ratio = rr_ioc_per_io(&p->io, 0) / rr_ioc_per_io(&p->io_src, 0);
	double par_ratio =
	    p->io_src.parity_in > 0 ? p->io.parity_in * p->bs / (p->io_src.parity_in * s->bs) : 1;
	p->cpu_us = base * (isfinite(ios_ratio) ? ios_ratio : 1) + p->parity_us_src * par_ratio;
	if (!strcmp(p->path, "cpu") && rr_level_parity(p->level) > 0)
		parity_inputs(p, s, bench);
	else
		p->parity_gbps_core = NAN;

	int cores = profile_cores(prof);
	/* md computes parity in one raid5d thread per array; the engine in the job threads */
	if (!strcmp(p->target, "md"))
		p->parity_cores = p->arrays;
	else {
		/* the jobs there, at most one core each; -1: neither jobs nor cores known */
		int jobs = pub ? pub->numjobs : to->numjobs;
		p->parity_cores = jobs > 0 && (cores <= 0 || jobs < cores) ? jobs : cores;
	}

	/* the self-check's drives are this machine's (its JBOD), a profile's its drive spec */
	b_drives(p, prof, pub || to == s ? NULL : jbod_for(run, s));
	b_links(p, prof, 0);
	b_memory(p, prof);
	b_cpu(p, cores);
	b_parity(p, cores);
	b_gpu(p, prof);
	b_concurrency(p, s, pub ? pub->iodepth * pub->numjobs : to->iodepth * to->numjobs);
	pick(p, 1, &p->binding, &p->next);
	p->projected = p->binding >= 0 ? p->b[p->binding].value : NAN;
	p->margin = p->next >= 0 ? p->b[p->next].value / p->projected : NAN;
	p->ratio = p->published > 0 ? p->projected / p->published : NAN;
}

/* What the published figure's own path can carry on its own hardware: the same bounds for
 * its engine (GPU parity for graid, the controller for megaraid), without the CPU, whose
 * cost on that host no run measured. Sets p->flag when the figure is above one of them. */
static void flag_published(struct rr_proj *p, json_object *prof)
{
	const struct rr_pub *pub = p->pub;
	struct rr_proj q = *p, best;
	int lvl = !strcmp(pub->array, "jbod") ? -1 : atoi(pub->array + 4), bi = -1, nx;
	/* a chunk the review did not publish is given its most favourable value, 4k to 1m:
	 * a figure is only called impossible when no chunk makes it possible */
	long c0 = *pub->chunk ? rr_size_of(pub->chunk, rr_default_chunk()) : 4096;
	long c1 = *pub->chunk ? c0 : 1048576, chosen = c0;
	for (long c = c0; c <= c1; c *= 2) {
		snprintf(q.path, sizeof(q.path), "%s", pub_is_gpu(pub) ? "cuda" : "cpu");
		if (rr_io_model(lvl, q.members, c, q.bs, pub->rw, rr_rw_mix(pub->rw, pub->workload),
				&q.io))
			return;
		b_drives(&q, prof, NULL);
		b_links(&q, prof, pub_is_hw_raid(pub));
		b_memory(&q, prof);
		b_gpu(&q, prof);
		int b, n;
		pick(&q, 0, &b, &n);
		if (b >= 0 && (bi < 0 || q.b[b].value > best.b[bi].value)) {
			best = q;
			bi = b;
			chosen = c;
		}
	}
	(void)nx;
	if (bi < 0 || !(pub->value > best.b[bi].value * 1.02))
		return;
	char ch[64] = "";
	if (!*pub->chunk)
		snprintf(ch, sizeof(ch), "; chunk not published: the most favourable, %ldk",
			 chosen / 1024);
	snprintf(p->flag, sizeof(p->flag), "%g %s is %.2fx what its %s can carry (%.4g %s: %s%s)%s",
		 pub->value, p->unit, pub->value / best.b[bi].value, best.b[bi].name,
		 best.b[bi].value, p->unit, best.b[bi].how, ch,
		 bi == B_GPU ? ": it cannot have come from GPU-computed parity alone" : "");
}

static struct rr_proj *proj_add(struct rr_analysis *an)
{
	an->proj = realloc(an->proj, (an->nproj + 1) * sizeof(*an->proj));
	if (!an->proj)
		abort();
	return &an->proj[an->nproj++];
}

static int chunk_fits(const struct rr_pub *p, const struct rr_test *t)
{
	return !*p->chunk || rr_size_of(p->chunk, 0) == t->chunk;
}

/* Of the tests of one target and parity path that reproduce p, the one projected: the most
 * members up to the published count (the least extrapolation), else the fewest above it. */
static int closest(const struct rr_run *run, const struct rr_pub *p, const struct rr_test *t)
{
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *o = &run->tests[i];
		if (o == t || !rr_pub_matches(p, o) || !chunk_fits(p, o) ||
		    strcmp(o->parity, t->parity) || strcmp(target_of(o), target_of(t)))
			continue;
		int ot = o->members <= p->drives, tt = t->members <= p->drives;
		if (ot != tt ? ot
		    : ot     ? o->members > t->members || (o->members == t->members && o < t)
			     : o->members < t->members || (o->members == t->members && o < t))
			return 0;
	}
	return 1;
}

/* Same configuration at a smaller member count, for the self-check. */
static int same_config(const struct rr_test *a, const struct rr_test *b)
{
	return a->level == b->level && !strcmp(rr_level_name(a), rr_level_name(b)) &&
	       !strcmp(a->workload, b->workload) && !strcmp(a->rw, b->rw) && a->bs == b->bs &&
	       a->chunk == b->chunk && !strcmp(a->parity, b->parity) && a->iodepth == b->iodepth &&
	       a->numjobs == b->numjobs && !strcmp(a->state, b->state) &&
	       !strcmp(target_of(a), target_of(b));
}

void rr_proj_fill(struct rr_analysis *an, const struct rr_run *run, const struct rr_pubset *pub,
		  json_object *prof, int every_test)
{
	json_object *bench = rr_bench_load(run);
	an->by_test = calloc(run->ntests ? run->ntests : 1, sizeof(*an->by_test));
	if (!an->by_test)
		abort();
	const char *host = rr_jstr(rr_jget(prof, "name"));
	for (size_t r = 0; prof && pub && r < pub->n; r++) {
		const struct rr_pub *p = &pub->rows[r];
		/* the model is the optimal state's: a rebuilding array's figures are not projected
		 */
		if (strcmp(p->host, host) ||
		    (strcmp(p->metric, "bw") && strcmp(p->metric, "iops")) ||
		    strcmp(p->state, "optimal"))
			continue;
		for (size_t i = 0; i < run->ntests; i++) {
			const struct rr_test *t = &run->tests[i];
			if (!rr_pub_matches(p, t) || !chunk_fits(p, t) || !closest(run, p, t))
				continue;
			struct rr_proj *x = proj_add(an);
			rr_project_one(x, run, t, p, NULL, prof, bench);
			flag_published(x, prof);
		}
	}
	/* every_test: each optimal-state test no published row was projected from, at its own
	 * size on the profile (`raid-report project`: a quick run has no test of a reviewed host's)
	 */
	for (size_t i = 0; prof && every_test && i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		int done = strcmp(t->state, "optimal") != 0; /* the model is the optimal state's */
		for (size_t x = 0; x < an->nproj && !done; x++)
			done = an->proj[x].src == t;
		if (!done)
			rr_project_one(proj_add(an), run, t, NULL, t, prof, bench);
	}
	/* the self-check: each configuration run at more than one member count, projected from
	 * its smallest onto this machine's profile (run.json's, generated by run.sh) */
	json_object *self = run_profile_content(run);
	size_t before = an->nproj;
	for (size_t i = 0; self && i < run->ntests; i++) {
		const struct rr_test *to = &run->tests[i], *src = NULL;
		for (size_t k = 0; k < run->ntests; k++) {
			const struct rr_test *s = &run->tests[k];
			if (s->members < to->members && same_config(s, to) &&
			    (!src || s->members < src->members))
				src = s;
		}
		if (src && strcmp(rr_level_name(to), "jbod"))
			rr_project_one(proj_add(an), run, src, NULL, to, self, bench);
	}
	an->nself = an->nproj - before;
	/* pointers last: proj_add moves the array */
	for (size_t x = 0; x < an->nproj - an->nself; x++)
		for (size_t i = 0; i < run->ntests; i++)
			if (an->proj[x].src == &run->tests[i] && !an->by_test[i])
				an->by_test[i] = &an->proj[x];
	json_object_put(bench);
}
