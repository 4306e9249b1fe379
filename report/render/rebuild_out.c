/* report/render/rebuild_out.c: the rebuild and resync table (report/analysis/rebuild.c):
 * rebuild.csv beside the summary, and the page's section "Rebuild and resync", one row per
 * rebuild or resync with each reference labelled with what it is (docs/report.md). */
#include "report/render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *what(const struct rr_recovery *r)
{
	if (!r->resync)
		return "rebuild onto a spare";
	return strcmp(r->policy, "bitmap") ? "resync after an unclean stop, full (dirty mark)"
					   : "resync after an unclean stop, write-intent bitmap";
}

static const char *emul(const struct rr_run *run, const struct rr_recovery *r)
{
	return r->emulated ? run->emulation : "measured";
}

int rr_write_recovery_csv(const struct rr_run *run, char *err, size_t errlen)
{
	struct rr_recovery *rows;
	size_t n = rr_recovery_rows(run, &rows);
	if (!n) {
		free(rows);
		return 0;
	}
	FILE *f = rr_out_open(run, "rebuild.csv", err, errlen);
	if (!f) {
		free(rows);
		return -1;
	}
	fputs("test,target,what,policy,level,members,seconds,member_mb,member_mbps,array_mbps,"
	      "spec_mbps,of_spec,spec,transfers_mbps,of_transfers,transfers,md_test,md_mbps,vs_md,"
	      "clock\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct rr_recovery *r = &rows[i];
		const double nums[] = {r->seconds,    r->member_bytes / 1e6, r->member_mbps,
				       r->array_mbps, r->spec_mbps,	     r->of_spec};
		fprintf(f, "%s,%s,", r->t->test, r->t->target);
		rr_csv_str(f, what(r));
		fprintf(f, ",%s,%s,%d", r->policy, rr_level_name(r->t), r->t->members);
		for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
			fputc(',', f), rr_csv_num(f, nums[k]);
		fputc(',', f), rr_csv_str(f, r->spec);
		fputc(',', f), rr_csv_num(f, r->transfers_mbps);
		fputc(',', f), rr_csv_num(f, r->of_transfers);
		fputc(',', f), rr_csv_str(f, r->transfers);
		fprintf(f, ",%s,", r->md ? r->md->test : "");
		rr_csv_num(f, r->md_mbps);
		fputc(',', f), rr_csv_num(f, r->vs_md);
		fputc(',', f), rr_csv_str(f, emul(run, r));
		fputc('\n', f);
	}
	free(rows);
	return rr_out_close(f, run, "rebuild.csv", err, errlen);
}

void rr_recovery_html(FILE *f, const struct rr_run *run)
{
	struct rr_recovery *rows;
	size_t n = rr_recovery_rows(run, &rows);
	if (!n) {
		free(rows);
		return;
	}
	fputs("<h2 id=rebuild>Rebuild and resync</h2>\n<p>Each rebuild onto a spare and each "
	      "resync after an unclean stop, as MB/s of member (the spare written; each member "
	      "resynced: a bitmap's resync counts only its dirty regions) and of array (volume "
	      "bytes given back their redundancy), beside its references: the drive's sequential "
	      "write spec from the run's host profile (the spare's bay), the array's own "
	      "transfers where the run measured them, and md's rate on the same members. "
	      "<a href=rebuild.csv>rebuild.csv</a>.",
	      f);
	if (*run->emulation)
		fprintf(f,
			" <b>Every figure here is emulated (%s)</b>: the rates say that each path "
			"works, not what a machine does; no ratio to md is given.",
			run->emulation);
	fputs("</p>\n<table>\n<tr><th>test<th>what<th>s<th>MB/s of member<th>MB/s of array"
	      "<th>drive write spec MB/s<th>of spec<th>own transfers MB/s<th>of transfers"
	      "<th>md MB/s (same members)<th>vs md<th>clock</tr>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct rr_recovery *r = &rows[i];
		fputs("<tr>", f);
		rr_html_td_str(f, r->t->test);
		rr_html_td_str(f, what(r));
		rr_html_td_num(f, r->seconds);
		rr_html_td_num(f, r->member_mbps);
		rr_html_td_num(f, r->array_mbps);
		if (r->spec_mbps > 0)
			rr_html_td_num(f, r->spec_mbps);
		else
			rr_html_td_str(f, r->spec);
		rr_html_td_num(f, r->of_spec);
		if (r->transfers_mbps > 0)
			rr_html_td_num(f, r->transfers_mbps);
		else
			rr_html_td_str(f, r->transfers);
		rr_html_td_num(f, r->of_transfers);
		if (r->md)
			rr_html_td_num(f, r->md_mbps);
		else
			rr_html_td_str(f,
				       strcmp(r->t->target, "md") ? "no md test" : "(md itself)");
		if (r->emulated && r->md)
			rr_html_td_str(f, "emulated, not comparable");
		else
			rr_html_td_num(f, r->vs_md);
		rr_html_td_str(f, emul(run, r));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	for (size_t i = 0; i < n; i++)
		if (rows[i].spec_mbps > 0) { /* the spec's source, once */
			fputs("<p class=note>Spec: ", f);
			rr_html_esc(f, rows[i].spec);
			fputs("</p>\n", f);
			break;
		}
	free(rows);
}
