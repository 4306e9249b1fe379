/*
 * hosts.c - `raid-preset hosts [--hosts LIST] [--hosts-file FILE]`: run.sh's hosts of a
 * multi-host run (fio's client/server mode), checked and normalized: host, host:port, IPv4,
 * IPv4:port, [IPv6], [IPv6]:port (port 8765, fio's, by default), each host's member directory
 * or drives from its hosts-file line, whether it is this machine. One line per host, fields
 * separated by 0x1f (a field may be empty): NAME ADDR PORT CLIENT LABEL LOCAL SCRATCH DRIVES
 * (run/hosts.sh reads them). A bad host or line is one error line naming the option or the
 * file and line. With --members DRIVES SCRATCH GIVEN (the run's --drives, its member directory
 * and 1 when the caller gave it), each host without scratch= or drives= gets the run's drives,
 * else SCRATCH/LABEL (a directory a host: two servers on one machine must not share member
 * files), and hosts on one machine sharing members are refused.
 *
 * `raid-preset render JOB_FILE K=V... -- ARG...`: the job file as a host's fio server runs it
 * (it takes job files only): the test's arguments (--x=y) as the lines of a [global] section
 * first, each ${K} of the file replaced by V.
 */
#include <ctype.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preset.h"

#define FIO_PORT 8765 /* fio's default server port */
#define MAX_HOSTS 256

struct host {
	char name[300], addr[260], client[300], label[300], scratch[LINE_MAX_], drives[LINE_MAX_];
	int port;
	bool local;
};

struct hosts {
	struct host h[MAX_HOSTS];
	int n;
};

/* n characters of s, all from set */
static bool all_of(const char *s, size_t n, const char *set)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return true;
}

/* dotted IPv4, each part 1-3 digits and at most 255 (leading zeros allowed, as run.sh took) */
static bool ipv4_literal(const char *s)
{
	int parts = 0;

	for (const char *p = s;; p++) {
		size_t n = strspn(p, "0123456789");

		if (n < 1 || n > 3 || atoi(p) > 255)
			return false;
		parts++;
		p += n;
		if (!*p)
			break;
		if (*p != '.')
			return false;
	}
	return parts == 4;
}

/* hex groups, at most one '::', an optional dotted IPv4 tail (two groups) */
static bool ipv6_literal(const char *s)
{
	char a[300];
	int n = 0;
	size_t l = strlen(s);

	if (!l || l >= sizeof(a) - 4 || !all_of(s, l, "0123456789ABCDEFabcdef:.") ||
	    !strchr(s, ':') || strstr(s, ":::"))
		return false;
	const char *dc = strstr(s, "::");

	if (dc && strstr(dc + 1, "::"))
		return false;
	snprintf(a, sizeof(a), "%s", s);
	char *tail = strrchr(a, ':') + 1;

	if (strchr(tail, '.')) {
		if (!ipv4_literal(tail))
			return false;
		strcpy(tail, "0:0");
	}
	if (strchr(a, '.'))
		return false;
	for (char *g = a, *e;; g = e + 1) {
		e = g + strcspn(g, ":");
		if (e - g > 4)
			return false;
		n += e > g;
		if (!*e)
			break;
	}
	return dc ? n < 8 : n == 8;
}

/* a DNS name: labels of letters, digits and inner '-', at most 253 characters */
static bool dns_name(const char *s)
{
	size_t l = strlen(s);

	if (l > 253 || !l || *s == '.' || s[l - 1] == '.' || strstr(s, ".."))
		return false;
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, ".");

		if (n > 63 ||
		    !all_of(p, n,
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789-") ||
		    p[0] == '-' || p[n - 1] == '-')
			return false;
		p += n + (p[n] == '.');
	}
	return true;
}

/* SPEC -> h's address, port, name; false when SPEC is none of the six forms */
static bool host_parse(const char *spec, struct host *h)
{
	const char *port = NULL;
	bool v6 = spec[0] == '[';

	if (v6) {
		const char *end = strchr(spec, ']');

		if (!end || end == spec + 1 || (size_t)(end - spec) >= sizeof(h->addr))
			return false;
		snprintf(h->addr, sizeof(h->addr), "%.*s", (int)(end - spec - 1), spec + 1);
		if (end[1] && end[1] != ':')
			return false;
		port = end[1] ? end + 2 : NULL;
		if (!ipv6_literal(h->addr))
			return false;
	} else {
		size_t n = strcspn(spec, ":");

		if (!n || n >= sizeof(h->addr) ||
		    !all_of(spec, n,
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789.-"))
			return false;
		snprintf(h->addr, sizeof(h->addr), "%.*s", (int)n, spec);
		port = spec[n] ? spec + n + 1 : NULL;
		if (all_of(h->addr, n, "0123456789.") ? !ipv4_literal(h->addr) : !dns_name(h->addr))
			return false;
	}
	h->port = FIO_PORT;
	if (port) {
		size_t n = strlen(port);

		if (n < 1 || n > 5 || !all_of(port, n, "0123456789"))
			return false;
		h->port = atoi(port);
	}
	if (h->port < 1 || h->port > 65535)
		return false;
	/* fio's own syntax: host,port and ip6:ADDR,port */
	snprintf(h->name, sizeof(h->name), v6 ? "[%s]:%d" : "%s:%d", h->addr, h->port);
	snprintf(h->client, sizeof(h->client), v6 ? "ip6:%s,%d" : "%s,%d", h->addr, h->port);
	snprintf(h->label, sizeof(h->label), "%s_%d", h->addr, h->port);
	for (char *c = h->label; *c; c++)
		if (*c == ':')
			*c = '_';
	return true;
}

/* This machine: loopback, its host name (short and canonical), its interfaces' addresses
 * but IPv6 link-local ones (as hostname -I lists them) */
static bool host_is_local(const char *a)
{
	char name[256] = "", buf[INET6_ADDRSTRLEN];
	struct ifaddrs *ifs, *i;
	bool local = false;

	if (!strncmp(a, "127.", 4) || !strcmp(a, "::1") || !strcmp(a, "localhost") ||
	    !strcmp(a, "localhost.localdomain"))
		return true;
	if (!gethostname(name, sizeof(name) - 1)) {
		struct addrinfo hint = {.ai_flags = AI_CANONNAME}, *res;

		if (!strcmp(a, name))
			return true;
		if (!getaddrinfo(name, NULL, &hint, &res)) {
			local = res->ai_canonname && !strcmp(a, res->ai_canonname);
			freeaddrinfo(res);
		}
	}
	if (local || getifaddrs(&ifs))
		return local;
	for (i = ifs; i && !local; i = i->ifa_next) {
		const void *x = NULL;
		int fam = i->ifa_addr ? i->ifa_addr->sa_family : 0;

		if (fam == AF_INET)
			x = &((struct sockaddr_in *)i->ifa_addr)->sin_addr;
		else if (fam == AF_INET6 &&
			 !IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr))
			x = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
		local = x && inet_ntop(fam, x, buf, sizeof(buf)) && !strcmp(a, buf);
	}
	freeifaddrs(ifs);
	return local;
}

/* one host (WHERE names the option or the file's line) */
static void hosts_add(struct hosts *hs, const char *spec, const char *scratch, const char *drives,
		      const char *where)
{
	struct host *h = &hs->h[hs->n];

	if (hs->n == MAX_HOSTS)
		preset_die("%s: more than %d hosts", where, MAX_HOSTS);
	if (!host_parse(spec, h)) {
		const char *c = strchr(spec, ':');
		bool hint = spec[0] != '[' && c && strchr(c + 1, ':');

		preset_die("%s: '%s' is not a host (host, host:port, an IPv4 address, [IPv6] or "
			   "[IPv6]:port)%s%s%s",
			   where, spec, hint ? " (an IPv6 address goes in brackets: [" : "",
			   hint ? spec : "", hint ? "])" : "");
	}
	for (int i = 0; i < hs->n; i++)
		if (!strcmp(hs->h[i].name, h->name))
			preset_die("%s: host %s is named twice", where, h->name);
	h->local = host_is_local(h->addr);
	snprintf(h->scratch, sizeof(h->scratch), "%s", scratch);
	snprintf(h->drives, sizeof(h->drives), "%s", drives);
	hs->n++;
}

/* a ','-separated list (modified in place); an empty entry is an error naming WHAT */
static int split_commas(const char *what, char *list, char **out, int max)
{
	size_t l = strlen(list);
	int n = 0;

	if (!l)
		return 0;
	if (list[0] == ',' || list[l - 1] == ',' || strstr(list, ",,"))
		preset_die("%s: an empty entry in '%s'", what, list);
	for (char *s = list, *e;; s = e + 1) {
		e = s + strcspn(s, ",");
		if (n == max)
			preset_die("%s: more than %d entries", what, max);
		out[n++] = s;
		if (!*e)
			break;
		*e = 0;
	}
	return n;
}

/* a hosts file: HOST[:PORT] [scratch=DIR] [drives=A,B,...] a line; '#' starts a comment */
static void hosts_file(struct hosts *hs, const char *file)
{
	char line[4 * LINE_MAX_], where[PATH_MAX + 32];
	struct stat st;
	FILE *f = stat(file, &st) || !S_ISREG(st.st_mode) ? NULL : fopen(file, "r");
	int n = 0;

	if (!f)
		preset_die("--hosts-file: %s: no such readable file", file);
	while (fgets(line, sizeof(line), f)) {
		char *w[MAXW], *spec, sd[LINE_MAX_] = "", dr[LINE_MAX_] = "", copy[LINE_MAX_];
		int nw = 0;

		snprintf(where, sizeof(where), "%s:%d", file, ++n);
		line[strcspn(line, "#")] = 0;
		for (char *t = strtok(line, " \t\r\n"); t && nw < MAXW; t = strtok(NULL, " \t\r\n"))
			w[nw++] = t;
		if (!nw)
			continue;
		spec = w[0];
		for (int i = 1; i < nw; i++) {
			char *d[MAXW], what[PATH_MAX + 48];

			if (!strncmp(w[i], "scratch=/", 9)) {
				snprintf(sd, sizeof(sd), "%s", w[i] + 8);
			} else if (!strncmp(w[i], "drives=", 7)) {
				snprintf(dr, sizeof(dr), "%s", w[i] + 7);
				snprintf(copy, sizeof(copy), "%s", dr);
				snprintf(what, sizeof(what), "%s: drives", where);
				for (int k = split_commas(what, copy, d, MAXW); k-- > 0;)
					if (d[k][0] != '/')
						preset_die("%s: '%s' is not an absolute path", what,
							   d[k]);
			} else if (!strncmp(w[i], "scratch=", 8)) {
				preset_die("%s: scratch=%s: the directory must be an absolute path",
					   where, w[i] + 8);
			} else {
				preset_die("%s: '%s' is neither scratch=DIR nor drives=A,B,...",
					   where, w[i]);
			}
		}
		if (*sd && *dr)
			preset_die("%s: scratch= and drives= exclude each other", where);
		hosts_add(hs, spec, sd, dr, where);
	}
	fclose(f);
	if (!hs->n)
		preset_die("--hosts-file: %s names no host", file);
}

/* Servers on one machine (one address, or all local) */
static bool same_machine(const struct host *a, const struct host *b)
{
	return (a->local && b->local) || !strcmp(a->addr, b->addr);
}

/* each host's member directory or drives: the defaults, then no two on one machine sharing */
static void hosts_members(struct hosts *hs, const char *drives, const char *scratch, bool given)
{
	for (int i = 0; i < hs->n; i++) {
		struct host *h = &hs->h[i];

		if (*h->scratch || *h->drives)
			continue;
		if (*drives)
			snprintf(h->drives, sizeof(h->drives), "%s", drives);
		else if (h->local || given)
			snprintf(h->scratch, sizeof(h->scratch), "%s/%s", scratch, h->label);
		else
			preset_die(
			    "--hosts: %s is not this machine: give --scratch DIR (DIR/%s must "
			    "exist there), --drives, or a --hosts-file line with scratch= or "
			    "drives=",
			    h->name, h->label);
	}
	for (int i = 0; i < hs->n; i++)
		for (int j = i + 1; j < hs->n; j++) {
			const struct host *a = &hs->h[i], *b = &hs->h[j];

			if (!same_machine(a, b))
				continue;
			if (*a->scratch && !strcmp(a->scratch, b->scratch))
				preset_die(
				    "hosts %s and %s are one machine and share scratch %s: their "
				    "member files would collide",
				    a->name, b->name, a->scratch);
			if (*a->drives && !strcmp(a->drives, b->drives) && !a->local)
				preset_die("hosts %s and %s are one machine and share drives %s",
					   a->name, b->name, a->drives);
		}
}

int hosts_main(int argc, char **argv)
{
	struct hosts *hs = calloc(1, sizeof(*hs));
	const char *list = NULL, *file = NULL, **members = NULL;

	if (!hs)
		preset_die("out of memory");
	for (int i = 0; i < argc; i += 2) {
		if (!strcmp(argv[i], "--members") && i + 3 < argc)
			members = (const char **)argv + i + 1, i += 2;
		else if (i + 1 == argc)
			preset_die("hosts: %s needs a value", argv[i]);
		else if (!strcmp(argv[i], "--hosts"))
			list = argv[i + 1];
		else if (!strcmp(argv[i], "--hosts-file"))
			file = argv[i + 1];
		else
			preset_die("hosts: unknown option '%s'", argv[i]);
	}
	if (list) {
		char *copy = xstrdup(list), *w[MAX_HOSTS];

		for (int i = 0, n = split_commas("--hosts", copy, w, MAX_HOSTS); i < n; i++)
			hosts_add(hs, w[i], "", "", "--hosts");
		free(copy);
	}
	if (file)
		hosts_file(hs, file);
	if (members)
		hosts_members(hs, members[0], members[1], !strcmp(members[2], "1"));
	for (int i = 0; i < hs->n; i++) {
		const struct host *h = &hs->h[i];

		printf("%s\x1f%s\x1f%d\x1f%s\x1f%s\x1f%d\x1f%s\x1f%s\n", h->name, h->addr, h->port,
		       h->client, h->label, h->local, h->scratch, h->drives);
	}
	free(hs);
	return 0;
}

int render_main(int argc, char **argv)
{
	char line[4 * LINE_MAX_];
	FILE *f = argc ? fopen(argv[0], "r") : NULL;
	int dash = 1;

	if (!f)
		preset_die("render: %s: cannot read the job file", argc ? argv[0] : "(none)");
	while (dash < argc && strcmp(argv[dash], "--"))
		dash++;
	puts("[global]");
	for (int i = dash + 1; i < argc; i++)
		puts(argv[i] + (strncmp(argv[i], "--", 2) ? 0 : 2));
	while (fgets(line, sizeof(line), f)) {
		for (int i = 1; i < dash; i++) {
			const char *eq = strchr(argv[i], '=');
			char key[256], *at, out[sizeof(line)];

			if (!eq)
				continue;
			snprintf(key, sizeof(key), "${%.*s}", (int)(eq - argv[i]), argv[i]);
			for (char *from = line; (at = strstr(from, key));) {
				snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - line), line,
					 eq + 1, at + strlen(key));
				from = line + (at - line) + strlen(eq + 1);
				memcpy(line, out, sizeof(line));
			}
		}
		fputs(line, stdout);
	}
	fclose(f);
	return 0;
}
