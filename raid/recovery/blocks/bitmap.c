/*
 * bitmap.c - the write-intent bitmap's file and bits (bitmap.h). A region's bit is set in
 * the file and fdatasync'ed before the first write into it is issued (md's bitmap_startwrite
 * waits for the bitmap page the same way); later writes into a set region only count
 * themselves in flight (two atomics, no lock, no I/O). A clear takes a region's bit down in
 * memory first and then looks at its count: a write that counted itself meanwhile either saw
 * the bit (and the clear, seeing the count, puts it back) or did not (and sets it again,
 * durably, under the lock the clear holds), so no write runs in a region whose bit is
 * clear in the file. Creation and header changes replace the file atomically (temp file,
 * fsync, rename, fsync of the directory), as the state file does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bitmap.h"
#include "recovery/blocks/blocks.h" /* rec_sync_dir */

#define MAGIC "fio-raid bitmap"
#define VERSION 1
#define MIB ((uint64_t)1 << 20)

uint64_t rec_bitmap_default_region(uint64_t member_size, uint64_t chunk)
{
	uint64_t r = 64 * 1024;

	/* about 2048 regions a member, up to md's 64 MiB; whole chunk rows always */
	while (r < 64 * MIB && r * 2048 < member_size)
		r *= 2;
	while (r < chunk)
		r *= 2;
	return r;
}

static size_t bits_len(const struct rec_bitmap *b)
{
	return (size_t)((b->nregions + 7) / 8);
}

static json_object *header(const struct rec_bitmap *b)
{
	json_object *o = json_object_new_object(), *g = json_object_new_object();
	json_object *m = json_object_new_array();

	json_object_object_add(o, "magic", json_object_new_string(MAGIC));
	json_object_object_add(o, "version", json_object_new_int(VERSION));
	json_object_object_add(g, "level", json_object_new_int(b->g.level));
	json_object_object_add(g, "members", json_object_new_int(b->g.members));
	json_object_object_add(g, "chunk", json_object_new_int64((int64_t)b->g.chunk));
	json_object_object_add(g, "layout", json_object_new_int(b->g.layout));
	json_object_object_add(g, "member_size", json_object_new_int64((int64_t)b->g.member_size));
	json_object_object_add(o, "array", g);
	json_object_object_add(o, "region", json_object_new_int64((int64_t)b->g.region));
	json_object_object_add(o, "regions", json_object_new_int64((int64_t)b->nregions));
	for (int i = 0; i < b->g.members; i++)
		if (b->missed >> i & 1) {
			json_object *e = json_object_new_object();

			json_object_object_add(e, "member", json_object_new_int(i));
			json_object_object_add(e, "id", json_object_new_string(b->missed_id[i]));
			json_object_array_add(m, e);
		}
	json_object_object_add(o, "missed", m);
	return o;
}

/* The whole file (header and bits) written anew and renamed over the name; reopens b->fd. */
static int rewrite(struct rec_bitmap *b)
{
	json_object *o = header(b);
	const char *txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED);
	size_t len = strlen(txt);
	char *buf = NULL, *tmp = NULL;
	int fd = -1, ret = 0;

	if (len + 1 >= BM_HDR) {
		ret = -ENOSPC; /* more missed members' ids than the header holds */
		goto out;
	}
	if (!(buf = malloc(BM_HDR + bits_len(b))) || asprintf(&tmp, "%s.tmp", b->path) < 0) {
		tmp = NULL;
		ret = -ENOMEM;
		goto out;
	}
	memset(buf, ' ', BM_HDR);
	memcpy(buf, txt, len);
	buf[BM_HDR - 1] = '\n';
	memcpy(buf + BM_HDR, b->img, bits_len(b));
	errno = 0;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, BM_HDR + bits_len(b)) != (ssize_t)(BM_HDR + bits_len(b)) ||
	    fsync(fd) || rename(tmp, b->path))
		ret = errno ? -errno : -EIO;
	else
		ret = rec_sync_dir(b->path);
	if (fd >= 0)
		close(fd);
	if (ret)
		unlink(tmp);
	if (!ret) {
		int nfd = open(b->path, O_RDWR | O_CLOEXEC);

		if (nfd < 0) {
			ret = -errno;
		} else {
			if (b->fd >= 0)
				close(b->fd);
			b->fd = nfd;
		}
	}
out:
	free(tmp);
	free(buf);
	json_object_put(o);
	return ret;
}

static int int_of(json_object *o, const char *key, int64_t *v)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !json_object_is_type(x, json_type_int))
		return -EINVAL;
	*v = json_object_get_int64(x);
	return 0;
}

/* The file's geometry against the array's: "" when they agree, else what differs. */
static void compare(const struct rec_bitmap_geom *f, const struct rec_bitmap_geom *g, char *why,
		    size_t len)
{
	why[0] = 0;
	if (f->level != g->level)
		snprintf(why, len, "it records raid_level=%d, this job has raid_level=%d", f->level,
			 g->level);
	else if (f->members != g->members)
		snprintf(why, len, "it records %d members, this job has %d", f->members, g->members);
	else if (f->chunk != g->chunk)
		snprintf(why, len, "it records raid_chunk=%" PRIu64 ", this job has %" PRIu64,
			 f->chunk, g->chunk);
	else if (f->layout != g->layout)
		snprintf(why, len, "it records layout %d, this job has layout %d", f->layout,
			 g->layout);
	else if (f->member_size != g->member_size)
		snprintf(why, len, "it records members of %" PRIu64 " bytes, these give %" PRIu64,
			 f->member_size, g->member_size);
	else if (g->region && f->region != g->region)
		snprintf(why, len,
			 "its regions are of %" PRIu64 " bytes, raid_bitmap_chunk says %" PRIu64,
			 f->region, g->region);
}

/* Read an existing file into b (b->g: the array's); `why` says what is wrong. */
static int load(struct rec_bitmap *b, const struct rec_bitmap_geom *g, char *why, size_t wlen)
{
	char *hdr = malloc(BM_HDR + 1);
	json_object *o = NULL, *a, *m, *x;
	struct rec_bitmap_geom f = {0};
	struct stat st;
	int64_t v[7];
	int ret = -EINVAL;

	if (!hdr)
		return -ENOMEM;
	if (fstat(b->fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(b->fd, hdr, BM_HDR, 0) != BM_HDR) {
		snprintf(why, wlen, "not a fio-raid bitmap (%s)",
			 S_ISREG(st.st_mode) ? "shorter than its header" : "not a regular file");
		goto out;
	}
	hdr[BM_HDR] = 0;
	o = json_tokener_parse(hdr);
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "magic", &x) || !json_object_is_type(x, json_type_string) ||
	    strcmp(json_object_get_string(x), MAGIC)) {
		snprintf(why, wlen, "not a fio-raid bitmap (no \"%s\" header)", MAGIC);
		goto out;
	}
	if (int_of(o, "version", &v[0]) || v[0] != VERSION ||
	    !json_object_object_get_ex(o, "array", &a) || int_of(a, "level", &v[1]) ||
	    int_of(a, "members", &v[2]) || int_of(a, "chunk", &v[3]) || int_of(a, "layout", &v[4]) ||
	    int_of(a, "member_size", &v[5]) || int_of(o, "region", &v[6]) || v[6] <= 0 ||
	    v[5] <= 0 || !json_object_object_get_ex(o, "missed", &m) ||
	    !json_object_is_type(m, json_type_array)) {
		snprintf(why, wlen, "a bitmap header of another version, or damaged");
		goto out;
	}
	f = (struct rec_bitmap_geom){.level = (int)v[1], .members = (int)v[2], .chunk = (uint64_t)v[3],
				     .layout = (int)v[4], .member_size = (uint64_t)v[5],
				     .region = (uint64_t)v[6]};
	compare(&f, g, why, wlen);
	if (why[0]) {
		ret = -ESTALE;
		goto out;
	}
	b->g = f;
	b->nregions = (f.member_size + f.region - 1) / f.region;
	if ((uint64_t)st.st_size != BM_HDR + bits_len(b)) {
		snprintf(why, wlen, "%" PRIu64 " bytes, a bitmap of %" PRIu64 " regions has %zu",
			 (uint64_t)st.st_size, b->nregions, BM_HDR + bits_len(b));
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(m); i++) {
		json_object *e = json_object_array_get_idx(m, i), *id;
		int64_t k;

		if (!json_object_is_type(e, json_type_object) || int_of(e, "member", &k) || k < 0 ||
		    k >= f.members || k >= BM_MAX_MEMBERS || !json_object_object_get_ex(e, "id", &id) ||
		    !json_object_is_type(id, json_type_string) ||
		    json_object_get_string_len(id) >= RAID_ID_LEN) {
			snprintf(why, wlen, "a \"missed\" entry is not {member, id}");
			goto out;
		}
		b->missed |= 1ULL << k;
		snprintf(b->missed_id[k], RAID_ID_LEN, "%s", json_object_get_string(id));
	}
	ret = 0;
out:
	json_object_put(o);
	free(hdr);
	return ret;
}

int rec_bitmap_open(struct rec_bitmap *b, const char *path, const struct rec_bitmap_geom *g,
		    char *err, size_t errlen)
{
	char why[RAID_ID_LEN * 2] = "";
	int ret;

	*b = (struct rec_bitmap){.fd = -1, .g = *g};
	pthread_mutex_init(&b->mu, NULL);
	if (!(b->path = strdup(path)))
		return -ENOMEM;
	b->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block */
	if (b->fd < 0 && errno != ENOENT) {
		snprintf(err, errlen, "raid: raid_bitmap: %s: cannot open it: %s", path,
			 strerror(errno));
		return -errno;
	}
	b->created = b->fd < 0;
	if (b->created) {
		if (!b->g.region)
			b->g.region = rec_bitmap_default_region(g->member_size, g->chunk);
		b->nregions = (g->member_size + b->g.region - 1) / b->g.region;
	} else if ((ret = load(b, g, why, sizeof(why)))) {
		if (ret == -ESTALE)
			snprintf(err, errlen,
				 "raid: raid_bitmap: %s describes another array: %s (remove the "
				 "file to start afresh; the next unclean start then resyncs all)",
				 path, why);
		else
			snprintf(err, errlen, "raid: raid_bitmap: %s: %s", path,
				 why[0] ? why : strerror(-ret));
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	b->img = calloc(1, bits_len(b) ? bits_len(b) : 1);
	b->set = calloc(b->nregions, sizeof(*b->set));
	b->inflight = calloc(b->nregions, sizeof(*b->inflight));
	b->last_end = calloc(b->nregions, sizeof(*b->last_end));
	if (!b->img || !b->set || !b->inflight || !b->last_end)
		return -ENOMEM;
	if (b->created) {
		ret = rewrite(b);
		if (ret)
			snprintf(err, errlen, "raid: raid_bitmap: cannot create %s: %s", path,
				 strerror(-ret));
		return ret;
	}
	if (pread(b->fd, b->img, bits_len(b), BM_HDR) != (ssize_t)bits_len(b)) {
		snprintf(err, errlen, "raid: raid_bitmap: %s: cannot read its bits", path);
		return -EIO;
	}
	for (uint64_t k = 0; k < b->nregions; k++)
		atomic_init(&b->set[k], rec_bitmap_isset(b, k));
	return 0;
}

void rec_bitmap_close(struct rec_bitmap *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	pthread_mutex_destroy(&b->mu);
	free(b->path);
	free(b->img);
	free(b->set);
	free(b->inflight);
	free(b->last_end);
	b->path = NULL;
	b->img = NULL;
	b->set = NULL;
	b->inflight = NULL;
	b->last_end = NULL;
}

/* Under mu: write the bytes of img [k0, k1] hold (whole 512-byte sectors) and sync them. */
static int flush_bits(struct rec_bitmap *b, uint64_t k0, uint64_t k1)
{
	size_t lo = (size_t)(k0 / 8) / 512 * 512, hi = (size_t)(k1 / 8) / 512 * 512 + 512;

	if (hi > bits_len(b))
		hi = bits_len(b);
	if (pwrite(b->fd, b->img + lo, hi - lo, (off_t)(BM_HDR + lo)) != (ssize_t)(hi - lo))
		return errno ? -errno : -EIO;
	return fdatasync(b->fd) ? -errno : 0;
}

static void regions(const struct rec_bitmap *b, uint64_t lo, uint64_t hi, uint64_t *k0,
		    uint64_t *k1)
{
	*k0 = lo / b->g.region;
	*k1 = (hi ? hi - 1 : 0) / b->g.region;
	if (*k1 >= b->nregions)
		*k1 = b->nregions - 1;
	if (*k0 > *k1)
		*k0 = *k1;
}

int rec_bitmap_start(struct rec_bitmap *b, uint64_t lo, uint64_t hi)
{
	uint64_t k0, k1, need = 0;
	int ret = 0;

	regions(b, lo, hi, &k0, &k1);
	for (uint64_t k = k0; k <= k1; k++) {
		atomic_fetch_add(&b->inflight[k], 1); /* seq_cst: before the bit is read */
		need += !atomic_load(&b->set[k]);
	}
	if (!need)
		return 0;
	pthread_mutex_lock(&b->mu);
	need = 0;
	for (uint64_t k = k0; k <= k1; k++)
		if (!atomic_load(&b->set[k])) {
			b->img[k / 8] |= (uint8_t)(1u << (k % 8));
			need++;
		}
	if (need) {
		errno = 0;
		ret = flush_bits(b, k0, k1);
		if (!ret) {
			for (uint64_t k = k0; k <= k1; k++)
				atomic_store(&b->set[k], 1); /* durable: later writes go straight on */
			b->syncs++;
		}
	}
	pthread_mutex_unlock(&b->mu);
	if (ret)
		for (uint64_t k = k0; k <= k1; k++)
			atomic_fetch_sub(&b->inflight[k], 1);
	return ret;
}

void rec_bitmap_end(struct rec_bitmap *b, uint64_t lo, uint64_t hi, uint64_t now_ns)
{
	uint64_t k0, k1;

	regions(b, lo, hi, &k0, &k1);
	for (uint64_t k = k0; k <= k1; k++) {
		atomic_store_explicit(&b->last_end[k], now_ns, memory_order_relaxed);
		atomic_fetch_sub(&b->inflight[k], 1);
	}
}

int64_t rec_bitmap_clear(struct rec_bitmap *b, uint64_t before_ns)
{
	uint64_t first = UINT64_MAX, last = 0;
	int64_t n = 0;
	int ret = 0;

	pthread_mutex_lock(&b->mu);
	for (uint64_t k = 0; k < b->nregions; k++) {
		if (!atomic_load(&b->set[k]) || atomic_load(&b->inflight[k]) ||
		    atomic_load_explicit(&b->last_end[k], memory_order_relaxed) > before_ns)
			continue;
		atomic_store(&b->set[k], 0); /* seq_cst: before the count is read again */
		if (atomic_load(&b->inflight[k])) {
			atomic_store(&b->set[k], 1); /* a write came in: it saw the bit */
			continue;
		}
		b->img[k / 8] &= (uint8_t)~(1u << (k % 8));
		first = k < first ? k : first;
		last = k;
		n++;
	}
	if (n) {
		errno = 0;
		ret = flush_bits(b, first, last);
	}
	pthread_mutex_unlock(&b->mu);
	return ret ? ret : n;
}

int rec_bitmap_set_missed(struct rec_bitmap *b, uint64_t missed, const char (*ids)[RAID_ID_LEN])
{
	uint64_t was = b->missed;
	int ret;

	pthread_mutex_lock(&b->mu);
	for (int i = 0; i < b->g.members; i++)
		if (missed >> i & 1 && !(was >> i & 1))
			snprintf(b->missed_id[i], RAID_ID_LEN, "%s", ids[i]);
	b->missed = missed;
	ret = missed == was ? 0 : rewrite(b);
	if (ret)
		b->missed = was;
	pthread_mutex_unlock(&b->mu);
	return ret;
}

uint64_t rec_bitmap_count(struct rec_bitmap *b)
{
	uint64_t n = 0;

	pthread_mutex_lock(&b->mu);
	for (size_t i = 0; i < bits_len(b); i++)
		n += (uint64_t)__builtin_popcount(b->img[i]);
	pthread_mutex_unlock(&b->mu);
	return n;
}
