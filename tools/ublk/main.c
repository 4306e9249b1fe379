/*
 * main.c - raid-ublk: an engine array as the block device /dev/ublkbN (tools/ublk/README.md,
 * docs/ublk.md). The command line, the checks that refuse before anything changes, the
 * daemon, and the pid/state files under /run/raid-ublk; the device itself is server.c's.
 *
 *   raid-ublk start [--id N] [--queues N] [--depth N] [--cpus LIST] [--buffered]
 *                   [--foreground] [--recover] raid_level=5 raid_members=/a:/b:/c [raid_*=...]
 *   raid-ublk stop N|/dev/ublkbN
 *   raid-ublk list
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "params.h"
#include "raid/core/raid.h"
#include "server.h"

#define RUN_DIR "/run/raid-ublk"
#define OPTS_MAX 4096

static const char usage[] =
    "usage: raid-ublk start [--id N] [--queues N] [--depth N] [--cpus LIST] [--buffered]\n"
    "                       [--foreground] [--recover] raid_level=L raid_members=/a:/b:...\n"
    "                       [raid_OPTION=VALUE ...]\n"
    "       raid-ublk stop N|/dev/ublkbN\n"
    "       raid-ublk list\n";

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static int parse_uint(const char *opt, const char *v, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v ? v : "", &end, 10);
	if (!v || !*v || *end || errno || x < lo || x > hi) {
		fprintf(stderr, "raid-ublk: %s: '%s' is not a whole number from %u to %u\n", opt,
			v ? v : "", lo, hi);
		return -EINVAL;
	}
	*out = (unsigned)x;
	return 0;
}

/*
 * A block device that md (or another holder: dm, a mounted partition's owner) has claimed;
 * the engine's own flock refuses another engine. 0 or -EBUSY with the holder named.
 */
static int member_held(const char *path, char *err, size_t errlen)
{
	struct stat st;
	char dir[128];
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		return 0;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/holders", major(st.st_rdev),
		 minor(st.st_rdev));
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(err, errlen, "raid-ublk: %s is in use by %s%s; stop that first",
				 path, e->d_name,
				 strncmp(e->d_name, "md", 2) ? "" : " (a member of an md array)");
			ret = -EBUSY;
			break;
		}
	closedir(d);
	return ret;
}

/* the members' largest logical block (512 for files) */
static unsigned members_lbs(const struct raid_config *c)
{
	unsigned lbs = 512;

	for (int i = 0; i < c->nmembers; i++) {
		int fd = open(c->members[i], O_RDONLY | O_CLOEXEC), v = 0;

		if (fd < 0)
			continue;
		if (ioctl(fd, BLKSSZGET, &v) == 0 && v > (int)lbs)
			lbs = v;
		close(fd);
	}
	return lbs;
}

static void pidfile_path(int id, char *buf, size_t len)
{
	snprintf(buf, len, RUN_DIR "/%d", id);
}

static int pidfile_write(int id, const char *opts)
{
	char path[64], tmp[80];
	FILE *f;

	mkdir(RUN_DIR, 0755);
	pidfile_path(id, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "pid=%d\nid=%d\ndev=/dev/ublkb%d\noptions=%s\n", getpid(), id, id, opts);
	if (fclose(f))
		return -EIO;
	return rename(tmp, path) ? -errno : 0;
}

/* the pid and options of device id's file; -ENOENT when there is none */
static int pidfile_read(int id, int *pid, char *opts, size_t len)
{
	char path[64], line[OPTS_MAX + 16];
	FILE *f;

	pidfile_path(id, path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return -errno;
	*pid = -1;
	opts[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "pid=", 4))
			*pid = atoi(line + 4);
		else if (!strncmp(line, "options=", 8))
			snprintf(opts, len, "%.*s", (int)len - 1, line + 8);
	}
	fclose(f);
	return 0;
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
	raid_interrupt(); /* a rebuild or resync stops at its next window, checkpointed */
}

static int cmd_start(int argc, char **argv)
{
	struct ublk_opts o = {
	    .id = -1, .queues = 1, .depth = 64, .max_io = 1 << 20, .direct = true};
	struct raid_config c;
	struct raid_level_info li;
	struct raid_array *a = NULL;
	struct ublk_srv *s = NULL;
	char err[RAID_ERRLEN], opts[OPTS_MAX] = "", dev[64];
	bool foreground = false;
	int pipefd[2] = {-1, -1}, ret, i;
	uint64_t size;
	sigset_t mask;

	raid_config_init(&c);
	for (i = 0; i < argc; i++) {
		const char *arg = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *eq;
		unsigned x;

		if (!strcmp(arg, "--foreground"))
			foreground = true;
		else if (!strcmp(arg, "--recover"))
			o.recover = true;
		else if (!strcmp(arg, "--buffered"))
			o.direct = false;
		else if (!strcmp(arg, "--id") || !strcmp(arg, "--queues") ||
			 !strcmp(arg, "--depth")) {
			unsigned hi = arg[2] == 'i' ? 1048575 : arg[2] == 'q' ? 64 : 4096;

			if (parse_uint(arg, v, arg[2] == 'i' ? 0 : 1, hi, &x))
				goto bad;
			if (arg[2] == 'i')
				o.id = (int)x;
			else if (arg[2] == 'q')
				o.queues = x;
			else
				o.depth = x;
			i++;
		} else if (!strcmp(arg, "--cpus")) {
			if (!v || ublk_parse_cpus(v, &o.cpus)) {
				fprintf(stderr,
					"raid-ublk: --cpus: '%s' is not a CPU list (0-3,8)\n",
					v ? v : "");
				goto bad;
			}
			o.pin = true;
			i++;
		} else if (arg[0] == '-') {
			fprintf(stderr, "raid-ublk: unknown option %s\n%s", arg, usage);
			goto bad;
		} else if ((eq = strchr(arg, '=')) && eq > arg) {
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
			ret = raid_config_set(&c, name, eq + 1, err, sizeof(err));
			if (ret < 0) {
				fprintf(stderr, "%s\n", err);
				goto bad;
			}
			if (strlen(opts) + strlen(arg) + 2 < sizeof(opts))
				snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%s%s",
					 opts[0] ? " " : "", arg);
		} else {
			fprintf(stderr, "raid-ublk: '%s' is no option (raid_NAME=VALUE)\n%s", arg,
				usage);
			goto bad;
		}
	}
	/* the device writes; members open as a job with direct=1 opens them */
	c.writes = true;
	c.direct = o.direct;
	if (raid_config_validate(&c, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		goto bad;
	}
	if (raid_level_get(c.level, &li)) {
		fprintf(stderr, "raid-ublk: raid_level %d is not known\n", c.level);
		goto bad;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "raid-ublk: must run as root (%s and the device are root's)\n",
			UBLK_CONTROL);
		goto bad;
	}
	if (access(UBLK_CONTROL, F_OK)) {
		fprintf(stderr,
			"raid-ublk: no %s: load the module ublk_drv (modprobe ublk_drv); "
			"Debian 13's linux-image (6.12) has it, Debian 12's 6.1 does not\n",
			UBLK_CONTROL);
		goto bad;
	}
	for (i = 0; i < c.nmembers; i++)
		if (member_held(c.members[i], err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			goto bad;
		}
	if (raid_probe(&c, &size, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		goto bad;
	}
	if (o.id >= 0 && !o.recover && access(RUN_DIR, F_OK) == 0) {
		int pid;
		char old[OPTS_MAX];

		if (pidfile_read(o.id, &pid, old, sizeof(old)) == 0 && pid > 0 &&
		    kill(pid, 0) == 0) {
			fprintf(stderr, "raid-ublk: device %d is served by pid %d\n", o.id, pid);
			goto bad;
		}
	}

	/* the daemon is a child that reports the device path (or nothing) through a pipe */
	if (!foreground) {
		pid_t pid;

		if (pipe(pipefd))
			return fail("raid-ublk: pipe: %s", strerror(errno));
		fflush(NULL);
		pid = fork();
		if (pid < 0)
			return fail("raid-ublk: fork: %s", strerror(errno));
		if (pid > 0) {
			char line[64] = "";
			ssize_t n;

			close(pipefd[1]);
			n = read(pipefd[0], line, sizeof(line) - 1);
			if (n <= 0) {
				waitpid(pid, NULL, 0);
				raid_config_free(&c);
				return 1;
			}
			line[n] = 0;
			fputs(line, stdout);
			raid_config_free(&c);
			return 0;
		}
		close(pipefd[0]);
		setsid();
	}
	/* blocked in every thread; the main thread takes them in sigsuspend */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, SIG_IGN);

	ret = raid_array_get(&c, &a, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "%s\n", err);
		raid_config_free(&c);
		return 1;
	}
	ret =
	    ublk_srv_start(a, &o, members_lbs(&c), &li, c.nmembers, c.chunk, &s, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "%s\n", err);
		raid_array_put(a);
		raid_config_free(&c);
		return 1;
	}
	snprintf(dev, sizeof(dev), "/dev/ublkb%d\n", ublk_srv_id(s));
	if (pidfile_write(ublk_srv_id(s), opts) < 0)
		fprintf(stderr, "raid-ublk: cannot write %s/%d\n", RUN_DIR, ublk_srv_id(s));
	if (foreground) {
		fputs(dev, stdout);
		fflush(stdout);
	} else {
		char logp[80];
		int fd;

		snprintf(logp, sizeof(logp), RUN_DIR "/%d.log", ublk_srv_id(s));
		fd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		if (write(pipefd[1], dev, strlen(dev)) < 0)
			fprintf(stderr, "raid-ublk: the starter went away\n");
		close(pipefd[1]);
	}

	sigemptyset(&mask);
	while (!got_signal)
		sigsuspend(&mask);

	/* drain (the kernel's, through the queues), then flush and write the state clean */
	snprintf(dev, sizeof(dev), RUN_DIR "/%d", ublk_srv_id(s));
	ret = ublk_srv_stop(s) < 0;
	if (raid_array_flush(a))
		ret = 1;
	if (raid_array_put(a))
		ret = 1;
	unlink(dev);
	raid_config_free(&c);
	return ret;
bad:
	raid_config_free(&c);
	return 1;
}

/* exited, not yet reaped by its parent (init, once the daemon's starter has gone) */
static bool zombie(int pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	bool z = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] == ' ')
		z = p[2] == 'Z';
	fclose(f);
	return z;
}

static int cmd_stop(int argc, char **argv)
{
	char opts[OPTS_MAX];
	int id, pid;

	if (argc != 1 || (id = ublk_parse_id(argv[0])) < 0)
		return fail("raid-ublk: stop: give one device, N or /dev/ublkbN\n%s", usage);
	if (pidfile_read(id, &pid, opts, sizeof(opts)) < 0 || pid <= 0)
		return fail("raid-ublk: stop: no server of device %d (no %s/%d)", id, RUN_DIR, id);
	if (kill(pid, SIGTERM)) {
		char err[RAID_ERRLEN], path[64];

		if (errno != ESRCH)
			return fail("raid-ublk: stop: device %d's server (pid %d): %s", id, pid,
				    strerror(errno));
		/*
		 * Killed: the device waits for a `start --recover` that is not coming. Delete it
		 * (what it still holds fails); the engine's state file stays dirty, so the next
		 * start resyncs.
		 */
		snprintf(path, sizeof(path), "/dev/ublkc%d", id);
		if (access(path, F_OK) == 0 && ublk_dev_delete(id, err, sizeof(err)) < 0)
			return fail("%s", err);
		pidfile_path(id, path, sizeof(path));
		unlink(path);
		fprintf(stderr,
			"raid-ublk: stop: device %d's server (pid %d) was gone; device "
			"deleted, its state file left dirty\n",
			id, pid);
		return 0;
	}
	/* it drains, flushes and writes its state file: as long as that takes */
	while (kill(pid, 0) == 0 && !zombie(pid)) {
		struct timespec ts = {0, 20000000};

		nanosleep(&ts, NULL);
	}
	return 0;
}

static int cmd_list(void)
{
	DIR *d = opendir(RUN_DIR);
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char opts[OPTS_MAX];
		int id, pid;

		if ((id = ublk_parse_id(e->d_name)) < 0)
			continue;
		if (pidfile_read(id, &pid, opts, sizeof(opts)) < 0)
			continue;
		printf("%d /dev/ublkb%d %d%s %s\n", id, id, pid,
		       pid > 0 && kill(pid, 0) == 0 ? "" : "(dead)", opts);
	}
	closedir(d);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "start"))
		return cmd_start(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "stop"))
		return cmd_stop(argc - 2, argv + 2);
	if (argc == 2 && !strcmp(argv[1], "list"))
		return cmd_list();
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return 0;
	}
	fputs(usage, stderr);
	return 2;
}
